import Foundation
import SWMMFormat

extension SWMMModel {
    /// The `[CONTROLS]` lines, or nil when the model has none.
    var controlLines: [[String]]? {
        guard let s = rawSections.first(where: { $0.name.uppercased() == "CONTROLS" }), !s.lines.isEmpty else { return nil }
        return s.lines
    }

    /// The model's control rules resolved against `network` (built from this model), or nil when
    /// it has none. `RULE_STEP` sets how often they are evaluated.
    /// - Throws: `SWMMInputError` naming the rule and clause SWMM would reject or this engine does
    ///   not simulate.
    public func controlRules(network: HydraulicNetwork, baseDirectory: URL? = nil) throws -> ControlRules? {
        guard let lines = controlLines else { return nil }
        var nodes: [String: Int] = [:], links: [String: (index: Int, kind: LinkKindCode)] = [:]
        for (i, n) in network.nodes.enumerated() { nodes[n.id] = i }
        for (j, l) in network.links.enumerated() {
            let kind: LinkKindCode
            switch l.kind {
            case .conduit: kind = .conduit
            case .pump: kind = .pump
            case .orifice: kind = .orifice
            case .weir: kind = .weir
            case .outlet: kind = .outlet
            }
            links[l.id] = (j, kind)
        }
        let gages = try rainGages.map { g -> Hyetograph in
            // SWMM reads 0 from a gage no subcatchment uses.
            guard subcatchments.contains(where: { $0.rainGage == g.name }) else { return Hyetograph(starts: [], intensities: [], lastInterval: 0) }
            return try hyetograph(gage: g, baseDirectory: baseDirectory)
        }
        return try parseControls(lines, nodes: nodes, links: links, gages: gages) { name in
            guard timeseries(named: name) != nil else { return nil }
            var s = try seriesSeconds(name, baseDirectory: baseDirectory, section: "CONTROLS")
            s.holdsLastValue = true
            return s
        }
    }

    /// Checks `[CONTROLS]` against the model's own names without building a network (for
    /// `checkSimulated`): every clause must read and be simulated.
    func checkControls() throws {
        guard let lines = controlLines else { return }
        var nodes: [String: Int] = [:], links: [String: (index: Int, kind: LinkKindCode)] = [:]
        for (i, n) in nodeNames.enumerated() { nodes[n] = i }
        let kinds: [String: LinkKindCode] = ["CONDUITS": .conduit, "PUMPS": .pump, "ORIFICES": .orifice, "WEIRS": .weir, "OUTLETS": .outlet]
        for (j, l) in linkEnds.enumerated() { links[l.name] = (j, kinds[l.section] ?? .conduit) }
        let gages = rainGages.map { _ in Hyetograph(starts: [], intensities: [], lastInterval: 0) }
        _ = try parseControls(lines, nodes: nodes, links: links, gages: gages) { name in
            timeseries(named: name) == nil ? nil : TimeSeries(times: [], values: [])
        }
    }

    private func parseControls(_ lines: [[String]], nodes: [String: Int], links: [String: (index: Int, kind: LinkKindCode)],
                               gages: [Hyetograph], series: @escaping (String) throws -> TimeSeries?) throws -> ControlRules {
        var gageIndex: [String: Int] = [:]
        for (k, g) in rainGages.enumerated() { gageIndex[g.name] = k }
        var curves: [String: SWMMCurve] = [:]
        for c in self.curves where curves[c.name] == nil { curves[c.name] = c }
        let names = ControlRules.Names(nodes: nodes, links: links, gages: gageIndex, curves: curves, series: series)
        let ruleStep = stepSeconds("RULE_STEP", default: 0)
        return try ControlRules.parse(lines: lines, names: names, ruleStep: ruleStep, units: units,
                                      start: startEpochSeconds ?? 0, gages: gages)
    }
}
