import Foundation
import SWMMFormat

/// `[HYDROGRAPHS]` and `[RDII]` read as SWMM 5.2 reads them (rdii.c), checked as it checks them
/// (ERROR 151, 153, 203, 205, 209, 211), converted to SI for `RDIIGeneration`.
extension SWMMModel {
    /// The unit hydrograph groups by name, in SI (depths in mm), and the gauge each names.
    /// - Throws: `SWMMInputError` naming the hydrograph for what SWMM rejects while reading.
    func unitHydrographs() throws -> (groups: [UnitHydrographGroup], names: [String]) {
        let lines = rawSections.filter { $0.name == "HYDROGRAPHS" }.flatMap(\.lines)
        let gageIndex = Dictionary(rainGages.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        let depth = units.rainDepth * 1000
        var names: [String] = []
        var gauges: [Int?] = []
        var months: [[[RTKUnitHydrograph]]] = []
        let blank = [[RTKUnitHydrograph]](repeating: [RTKUnitHydrograph](repeating: RTKUnitHydrograph(), count: 3), count: 12)
        for t in lines {
            let name = t.first ?? "?"
            func fail(_ field: String, _ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "HYDROGRAPHS", field: field, reason: "unit hydrograph \(name): \(why)")
            }
            let j: Int
            if let k = names.firstIndex(of: name) { j = k } else {
                names.append(name); gauges.append(nil); months.append(blank)
                j = names.count - 1
            }
            if t.count == 2 {
                guard let g = gageIndex[t[1]] else { throw fail("RainGage", "rain gage \(t[1]) is not in [RAINGAGES] (SWMM's ERROR 209)") }
                gauges[j] = g
                continue
            }
            guard t.count >= 6 else { throw fail("Month", "expected a rain gage, or a month, a response and R, T, K, got \(t.count - 1) items (SWMM's ERROR 203)") }
            let monthWord = t[1].uppercased()
            let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
            let month = monthNames.firstIndex { monthWord.hasPrefix($0) }.map { $0 + 1 } ?? 0
            if month == 0 && !monthWord.hasPrefix("ALL") {
                throw fail("Month", "\(t[1]) is not a month (JAN … DEC) or ALL (SWMM's ERROR 205)")
            }
            func number(_ k: Int, _ field: String) throws -> Double {
                guard k < t.count else { return 0 }
                guard let x = Double(t[k]), x.isFinite else { throw fail(field, "\(field) \(t[k]) is not a number (SWMM's ERROR 211)") }
                return x
            }
            let range = month == 0 ? 0..<12 : (month - 1)..<month
            let typeWord = t[2].uppercased()
            if let k = ["SHORT", "MEDIUM", "LONG"].firstIndex(where: { typeWord.hasPrefix($0) }) {
                let uh = RTKUnitHydrograph(r: try number(3, "R"), tHours: try number(4, "T"), k: try number(5, "K"),
                                           maxAbstraction: try number(6, "Dmax") * depth, recoveryRate: try number(7, "Drec") * depth,
                                           initialAbstractionUsed: try number(8, "Do") * depth)
                for m in range { months[j][m][k] = uh }
            } else {
                // SWMM 5.0's line: R, T, K of the three responses, then one Dmax, Drec, Do.
                guard t.count >= 11 else {
                    throw fail("Response", "\(t[2]) is not SHORT, MEDIUM or LONG, and the line is not SWMM 5.0's nine R, T, K values (SWMM's ERROR 203)")
                }
                let p = try (0..<9).map { try number($0 + 2, ["R", "T", "K"][$0 % 3]) }
                let ia = try (0..<3).map { try number($0 + 11, ["Dmax", "Drec", "Do"][$0]) * depth }
                for k in 0..<3 {
                    let uh = RTKUnitHydrograph(r: p[3 * k], tHours: p[3 * k + 1], k: p[3 * k + 2], maxAbstraction: ia[0],
                                               recoveryRate: ia[1], initialAbstractionUsed: ia[2])
                    for m in range { months[j][m][k] = uh }
                }
            }
        }
        var groups: [UnitHydrographGroup] = []
        for (j, name) in names.enumerated() {
            guard let g = gauges[j] else {
                throw SWMMInputError(line: nil, section: "HYDROGRAPHS", field: "RainGage",
                                     reason: "unit hydrograph \(name) names no rain gage (a line `\(name) <gage>`): the rain that drives it is unknown")
            }
            groups.append(UnitHydrographGroup(name: name, gauge: g, months: months[j]))
        }
        return (groups, names)
    }

    /// The sewersheds of `[RDII]` (the last line for a node wins, as in SWMM), by node name.
    /// - Throws: `SWMMInputError` naming the node for what SWMM rejects while reading.
    func rdiiSewersheds(hydrographs: [String]) throws -> [(node: String, group: Int, area: Double)] {
        let nodes = Set(nodeNames)
        var out: [(node: String, group: Int, area: Double)] = []
        for t in rawSections.filter({ $0.name == "RDII" }).flatMap(\.lines) {
            let node = t.first ?? "?"
            func fail(_ field: String, _ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "RDII", field: field, reason: "node \(node): \(why)")
            }
            guard t.count >= 3 else { throw fail("UnitHydrograph", "expected a node, a unit hydrograph and a sewershed area (SWMM's ERROR 203)") }
            guard nodes.contains(node) else { throw fail("Node", "not a node of the model (SWMM's ERROR 209)") }
            guard let g = hydrographs.firstIndex(of: t[1]) else {
                throw fail("UnitHydrograph", "unit hydrograph \(t[1]) is not in [HYDROGRAPHS] (SWMM's ERROR 209)")
            }
            guard let a = Double(t[2]), a.isFinite, a >= 0 else { throw fail("SewerArea", "sewershed area \(t[2]) is not a number ≥ 0 (SWMM's ERROR 211)") }
            out.removeAll { $0.node == node }
            out.append((node, g, a * units.landArea))
        }
        return out
    }

    /// Checks `[HYDROGRAPHS]` and `[RDII]` as SWMM reads and validates them (checkSimulated).
    func checkRDII() throws {
        let uh = try unitHydrographs()
        let sheds = try rdiiSewersheds(hydrographs: uh.names)
        guard !sheds.isEmpty, !isSwitchedOff("IGNORE_RDII") else { return }
        for g in uh.groups {
            for (m, month) in g.months.enumerated() {
                var sum = 0.0
                for (k, h) in month.enumerated() where h.baseTime != 0 {
                    let which = ["short", "medium", "long"][k]
                    if h.timeToPeak < 0 {
                        throw SWMMInputError(line: nil, section: "HYDROGRAPHS", field: "T",
                                             reason: "unit hydrograph \(g.name): the \(which)-term time to peak of month \(m + 1) is negative (SWMM's ERROR 151)")
                    }
                    if h.responseRatio < 0 {
                        throw SWMMInputError(line: nil, section: "HYDROGRAPHS", field: "R",
                                             reason: "unit hydrograph \(g.name): the \(which)-term response ratio of month \(m + 1) is negative (SWMM's ERROR 153)")
                    }
                    sum += h.responseRatio
                }
                if sum > 1.01 {
                    throw SWMMInputError(line: nil, section: "HYDROGRAPHS", field: "R",
                                         reason: "unit hydrograph \(g.name): the response ratios of month \(m + 1) add up to \(sum), more than 1 (SWMM's ERROR 153)")
                }
            }
            if case .file = rainGages[g.gauge].source {
                throw SWMMInputError(line: nil, section: "HYDROGRAPHS", field: "RainGage",
                                     reason: "unit hydrograph \(g.name): rain gage \(rainGages[g.gauge].name) reads a rainfall FILE, which is not read yet")
            }
        }
    }

    /// The RDII of the model's `[RDII]` nodes for `network`, or nil when it has none or sets
    /// `IGNORE_RDII YES`.
    /// - Throws: `SWMMInputError` as `checkRDII`, and when a gauge's rain cannot be read.
    public func rdii(network: HydraulicNetwork, baseDirectory: URL? = nil) throws -> RDIIResult? {
        guard !isSwitchedOff("IGNORE_RDII") else { return nil }
        try checkRDII()
        let uh = try unitHydrographs()
        let sheds = try rdiiSewersheds(hydrographs: uh.names)
        guard !sheds.isEmpty else { return nil }
        var sewersheds: [RDIISewershed] = []
        for s in sheds {
            guard let k = network.nodeIndex(s.node) else { continue }
            sewersheds.append(RDIISewershed(node: k, group: s.group, area: s.area))
        }
        // Sewersheds in node order, as SWMM lists its RDII nodes.
        sewersheds.sort { $0.node < $1.node }
        // Gauges SWMM uses (by subcatchments or hydrographs); a used gauge reading the same
        // series as an earlier used one shares its rain; a used gauge recording more often than
        // the wet step shortens the step (SWMM's gage_validate).
        var usedGauges = Set(uh.groups.map(\.gauge))
        for s in subcatchments { if let g = rainGages.firstIndex(where: { $0.name == s.rainGage }) { usedGauges.insert(g) } }
        var shared = Array(rainGages.indices)
        var step = Int(max(1, min(1e9, stepSeconds("WET_STEP", default: 300))))
        func series(_ g: Int) -> String? { if case .timeseries(let s) = rainGages[g].source { return s } else { return nil } }
        for g in rainGages.indices where usedGauges.contains(g) {
            guard let name = series(g) else { continue }
            if let first = rainGages.indices.first(where: { $0 < g && usedGauges.contains($0) && series($0) == name }) {
                shared[g] = first
                continue
            }
            step = min(step, Int(max(1, min(1e9, (rainGages[g].intervalHours * 3600).rounded()))))
        }
        let driving = Set(uh.groups.map { shared[$0.gauge] })
        let gauges = try rainGages.indices.map { g -> Hyetograph in
            driving.contains(g) ? try hyetograph(gage: rainGages[g], baseDirectory: baseDirectory) : Hyetograph(starts: [], intensities: [], lastInterval: 0)
        }
        let epoch = Self.epochSeconds(date: option("START_DATE"), time: option("START_TIME")) ?? 0
        let days = (epoch / 86_400).rounded(.down)
        let startDate = (days + 25_569) + (epoch - days * 86_400).rounded() / 86_400
        let setup = RDIISetup(groups: uh.groups, sewersheds: sewersheds, gauges: gauges, sharedGauge: shared,
                              step: max(1, step), startDate: startDate, duration: durationSeconds)
        return RDIIGeneration.run(setup)
    }
}
