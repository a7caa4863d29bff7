import Foundation
import SWMMFormat

/// `[TREATMENT]` read as SWMM 5.2 reads it (treatmnt.c), checked as it checks it (ERROR 161, 203,
/// 205, 209, 233), for `QualityRouting.treatments`.
extension SWMMModel {
    /// The treatment expressions by node index of `network`, one entry per pollutant; empty when
    /// the model has none or does not simulate quality.
    /// - Throws: `SWMMInputError` naming the node and pollutant for what SWMM rejects.
    public func treatments(network: HydraulicNetwork) throws -> [Int: [NodeTreatment?]] {
        let lines = rawSections.filter { $0.name == "TREATMENT" }.flatMap(\.lines)
        guard !lines.isEmpty, simulatesQuality else { return [:] }
        let names = try pollutants().map(\.name)
        let upper = names.map { $0.uppercased() }
        let nodes = Set(nodeNames)
        var byNode: [String: [NodeTreatment?]] = [:]
        for t in lines {
            let node = t.first ?? "?", pollutant = t.count > 1 ? t[1] : "?"
            func fail(_ field: String, _ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "TREATMENT", field: field, reason: "node \(node), pollutant \(pollutant): \(why)")
            }
            guard t.count >= 3 else { throw fail("Result", "expected a node, a pollutant and an expression (SWMM's ERROR 203)") }
            guard nodes.contains(node) else { throw fail("Node", "node \(node) is not in the model (SWMM's ERROR 209)") }
            guard let p = upper.firstIndex(of: pollutant.uppercased()) else {
                throw fail("Pollutant", "\(pollutant) is not a pollutant of [POLLUTANTS] (SWMM's ERROR 209)")
            }
            let text = t[2...].joined(separator: " ")
            do {
                var list = byNode[node] ?? [NodeTreatment?](repeating: nil, count: names.count)
                list[p] = try NodeTreatment.parse(text, pollutant: p, pollutantNames: names)
                byNode[node] = list
            } catch let e as ControlExpression.ExpressionError {
                let code = e.reason.contains("SWMM's ERROR") ? "" : " (SWMM's ERROR 233)"
                throw fail("Result", "treatment `\(text)` does not read: \(e.reason)\(code)")
            }
        }
        var out: [Int: [NodeTreatment?]] = [:]
        for (node, list) in byNode {
            // Removals that read each other in a circle cannot be evaluated (SWMM's ERROR 161).
            for p in list.indices where list[p] != nil {
                var seen: Set<Int> = [], stack = [p]
                while let q = stack.popLast() {
                    for r in list[q]?.removalsRead(pollutantCount: names.count) ?? [] {
                        if r == p {
                            throw SWMMInputError(line: nil, section: "TREATMENT", field: "Result",
                                                 reason: "node \(node), pollutant \(names[p]): its treatment depends on its own removal through R_ terms (SWMM's ERROR 161, cyclic treatment)")
                        }
                        if seen.insert(r).inserted { stack.append(r) }
                    }
                }
            }
            if let k = network.nodeIndex(node) { out[k] = list }
        }
        return out
    }
}
