import Foundation

extension SWMMReader {
    /// Cross-section checks after every line is read: references resolve, conduits have cross
    /// sections, every node drains to (or is connected with) an outfall.
    func validate(_ m: SWMMModel) throws {
        let nodes = Set(m.nodeNames)
        let subcatchments = Set(m.subcatchments.map(\.name))
        let gages = Set(m.rainGages.map(\.name))
        let links = Set(m.linkEnds.map(\.name))
        func line(_ kind: String, _ name: String) -> Int? { definedAt[kind + "/" + name] }

        for s in m.subcatchments {
            if !gages.contains(s.rainGage) {
                throw SWMMInputError(line: line("SUBCATCH", s.name), section: "SUBCATCHMENTS", field: "RainGage",
                                     reason: "subcatchment \(s.name) names rain gage \(s.rainGage), which is not defined")
            }
            if !nodes.contains(s.outlet) && !subcatchments.contains(s.outlet) {
                throw SWMMInputError(line: line("SUBCATCH", s.name), section: "SUBCATCHMENTS", field: "Outlet",
                                     reason: "subcatchment \(s.name) drains to \(s.outlet), which is neither a node nor a subcatchment")
            }
        }
        for a in m.subareas where !subcatchments.contains(a.subcatchment) {
            throw SWMMInputError(line: line("SUBAREA", a.subcatchment), section: "SUBAREAS", field: "Subcatchment",
                                 reason: "\(a.subcatchment) is not a subcatchment")
        }
        for i in m.infiltration where !subcatchments.contains(i.subcatchment) {
            throw SWMMInputError(line: nil, section: "INFILTRATION", field: "Subcatchment", reason: "\(i.subcatchment) is not a subcatchment")
        }
        for g in m.rainGages {
            if case .timeseries(let ts) = g.source, m.timeseries(named: ts) == nil {
                throw SWMMInputError(line: line("GAGE", g.name), section: "RAINGAGES", field: "SeriesName",
                                     reason: "rain gage \(g.name) reads time series \(ts), which is not defined")
            }
        }
        for link in m.linkEnds {
            for (end, field) in [(link.from, "FromNode"), (link.to, "ToNode")] where !nodes.contains(end) {
                throw SWMMInputError(line: line("LINK", link.name), section: link.section, field: field,
                                     reason: "link \(link.name) names node \(end), which is not defined")
            }
        }
        let sections = Set(m.crossSections.map(\.link))
        for c in m.conduits where !sections.contains(c.name) {
            throw SWMMInputError(line: line("LINK", c.name), section: "CONDUITS", field: "Name",
                                 reason: "conduit \(c.name) has no [XSECTIONS] entry")
        }
        for o in m.orifices where !sections.contains(o.name) {
            throw SWMMInputError(line: line("LINK", o.name), section: "ORIFICES", field: "Name", reason: "orifice \(o.name) has no [XSECTIONS] entry")
        }
        for w in m.weirs where !sections.contains(w.name) {
            throw SWMMInputError(line: line("LINK", w.name), section: "WEIRS", field: "Name", reason: "weir \(w.name) has no [XSECTIONS] entry")
        }
        for x in m.crossSections where !links.contains(x.link) {
            throw SWMMInputError(line: line("XSECT", x.link), section: "XSECTIONS", field: "Link", reason: "\(x.link) is not a link")
        }
        for i in m.inflows {
            if !nodes.contains(i.node) {
                throw SWMMInputError(line: line("INFLOW/" + i.node, i.constituent), section: "INFLOWS", field: "Node", reason: "\(i.node) is not a node")
            }
            if !i.timeseries.isEmpty, m.timeseries(named: i.timeseries) == nil {
                throw SWMMInputError(line: line("INFLOW/" + i.node, i.constituent), section: "INFLOWS", field: "TimeSeries",
                                     reason: "time series \(i.timeseries) is not defined")
            }
        }
        for d in m.dryWeatherFlows where !nodes.contains(d.node) {
            throw SWMMInputError(line: line("DWF/" + d.node, d.constituent), section: "DWF", field: "Node", reason: "\(d.node) is not a node")
        }
        try checkOutfallReach(m)
        try checkSequences(m)
    }

    /// SWMM's ordering rules: a simulation that ends before it starts (ERROR 191), curve x values
    /// that do not increase (ERROR 171), time series times that do not increase (ERROR 173).
    func checkSequences(_ m: SWMMModel) throws {
        if let start = m.startEpochSeconds,
           let end = SWMMModel.epochSeconds(date: m.option("END_DATE") ?? m.option("START_DATE"), time: m.option("END_TIME")), end < start {
            throw SWMMInputError(line: nil, section: "OPTIONS", field: "END_DATE",
                                 reason: "the simulation ends (\(m.option("END_DATE") ?? "") \(m.option("END_TIME") ?? "")) before it starts (SWMM's ERROR 191)")
        }
        for c in m.curves {
            for k in c.points.indices.dropFirst() where c.points[k].x <= c.points[k - 1].x {
                throw SWMMInputError(line: nil, section: "CURVES", field: "X-Value",
                                     reason: "curve \(c.name): x values must increase, found \(c.points[k].x) after \(c.points[k - 1].x) (SWMM's ERROR 171)")
            }
        }
        for t in m.timeseries where t.file == nil {
            var date: Double?
            var previous = -Double.infinity
            for p in t.points {
                if let d = p.date { date = SWMMModel.epochSeconds(date: d, time: nil) ?? date }
                let time = (date ?? 0) + p.hours * 3600
                if time <= previous {
                    throw SWMMInputError(line: nil, section: "TIMESERIES", field: "Time",
                                         reason: "time series \(t.name): times must increase, found \(p.date.map { $0 + " " } ?? "")\(p.hours) h after an equal or later time (SWMM's ERROR 173)")
                }
                previous = time
            }
        }
    }

    /// Every node must share a connected part of the network with an outfall (flow can reverse in
    /// dynamic-wave routing, so connection ignores link direction). A node without any way out
    /// would only fill and flood, which is almost always a typing error in the model.
    func checkOutfallReach(_ m: SWMMModel) throws {
        let names = m.nodeNames
        guard !names.isEmpty else { return }
        var index: [String: Int] = [:]
        for (k, n) in names.enumerated() { index[n] = k }
        var parent = Array(0..<names.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        for l in m.linkEnds {
            guard let a = index[l.from], let b = index[l.to] else { continue }
            let ra = find(a), rb = find(b)
            if ra != rb { parent[ra] = rb }
        }
        var drained = Set<Int>()
        for o in m.outfalls { if let k = index[o.name] { drained.insert(find(k)) } }
        for (k, n) in names.enumerated() where !drained.contains(find(k)) {
            let section = m.junctions.contains { $0.name == n } ? "JUNCTIONS" : m.storage.contains { $0.name == n } ? "STORAGE" : "DIVIDERS"
            throw SWMMInputError(line: definedAt["NODE/" + n], section: section, field: "Name",
                                 reason: "node \(n) cannot reach any outfall: no chain of links connects it to one")
        }
    }
}
