import Foundation

/// A treatment expression at a node (SWMM `[TREATMENT]`, treatmnt.c): the fraction of a pollutant
/// removed (`R = …`) or the concentration leaving (`C = …`), as a function of the pollutants'
/// concentrations (a removal-type line reads its inflow's, a concentration-type line the node's),
/// other pollutants' removals (`R_name`), and the node's FLOW (model flow units), DEPTH (model
/// length units), AREA (surface area, square model lengths), DT (seconds) and HRT (hours).
public struct NodeTreatment: Sendable {
    public enum Kind: Sendable { case removal, concentration }
    /// The pollutant treated, by index.
    public var pollutant: Int
    public var kind: Kind
    /// The expression's text (after the `=`), for messages.
    public var text: String
    let expression: ControlExpression

    /// Variable codes: the process variables, then each pollutant's concentration, then each
    /// pollutant's removal (SWMM's getVariableIndex).
    static let processVariables = ["HRT", "DT", "FLOW", "DEPTH", "AREA"]

    /// Parses `R = expression` or `C = expression` for pollutant `pollutant` of `pollutantNames`.
    /// - Throws: `ExpressionError` with the reason a line does not read.
    static func parse(_ line: String, pollutant: Int, pollutantNames: [String]) throws -> NodeTreatment {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let kind: Kind
        switch trimmed.uppercased().first {
        case "R": kind = .removal
        case "C": kind = .concentration
        default: throw ControlExpression.ExpressionError("a treatment starts with R (removal) or C (concentration) (SWMM's ERROR 205)")
        }
        guard let eq = trimmed.firstIndex(of: "=") else { throw ControlExpression.ExpressionError("a treatment needs `=` and an expression (SWMM's ERROR 205)") }
        let text = String(trimmed[trimmed.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
        let names = pollutantNames.map { $0.uppercased() }
        let np = names.count
        let e = try ControlExpression.parse(text) { name in
            if let k = processVariables.firstIndex(where: { name.hasPrefix($0) }) { return k }
            if let k = names.firstIndex(of: name) { return processVariables.count + k }
            if name.hasPrefix("R_"), let k = names.firstIndex(of: String(name.dropFirst(2))) { return processVariables.count + np + k }
            return nil
        }
        return NodeTreatment(pollutant: pollutant, kind: kind, text: text, expression: e)
    }

    /// The pollutants whose removal (`R_name`) the expression reads.
    func removalsRead(pollutantCount np: Int) -> Set<Int> {
        var out = Set<Int>()
        func walk(_ e: ControlExpression) {
            switch e {
            case .number: break
            case .variable(let k): if k >= Self.processVariables.count + np { out.insert(k - Self.processVariables.count - np) }
            case .negate(let a), .function(_, let a): walk(a)
            case .binary(_, let a, let b): walk(a); walk(b)
            }
        }
        walk(expression)
        return out
    }
}

extension QualityState {
    /// Applies node `i`'s treatments after its mixing (SWMM's treatmnt_treat): `cin` are the inflow
    /// concentrations (mass unit per m³), `q` the inflow (m³/s, ≥ 0), `dt` the step (s).
    mutating func treat(_ i: Int, _ list: [NodeTreatment?], cin: [Double], q: Double, _ s: inout HydraulicState, _ dt: Double) {
        let np = pollutants.count
        var removal = [Double](repeating: -1, count: np)
        let pv = NodeTreatment.processVariables.count
        func value(_ k: Int) -> Double {
            switch k {
            case 0: return s.nodeKind[i] == .storage ? hrt[i] / 3600 : 0
            case 1: return dt
            case 2: return q / treatmentUnits.flow
            case 3: return (s.oldDepth[i] + s.newDepth[i]) / 2 / treatmentUnits.length
            case 4:
                let a = s.nodeKind[i] == .storage ? (s.storageArea(i, s.oldDepth[i]) + s.storageArea(i, s.newDepth[i])) / 2 : 0
                return a / (treatmentUnits.length * treatmentUnits.length)
            case pv..<(pv + np):
                let p = k - pv
                // A pollutant without a removal-type line of its own reads its inflow too (SWMM's default type).
                let inflowSide = list[p].map { $0.kind == .removal } ?? true
                return (inflowSide ? cin[p] : nodeNew[p, i]) / 1000
            default:
                let p = k - pv - np
                return p < np ? removalOf(p) : 0
            }
        }
        func removalOf(_ p: Int) -> Double {
            if removal[p] > 1 { return 0 }   // a cycle; refused when the model is read
            if removal[p] >= 0 { return removal[p] }
            removal[p] = 10
            let c0 = nodeNew[p, i] / 1000
            guard c0 != 0, let t = list[p] else { removal[p] = 0; return 0 }
            var r = max(0, t.expression.evaluate { value($0) } ?? 0)
            if t.kind == .removal {
                r = min(1, r)
                removal[p] = r
            } else {
                r = min(c0, r)
                removal[p] = 1 - r / c0
            }
            return removal[p]
        }
        for p in 0..<np {
            guard let t = list[p] else { removal[p] = 0; continue }
            if t.kind == .removal && q <= Self.zero { removal[p] = 0 } else { _ = removalOf(p) }
        }
        for p in 0..<np where removal[p] != 0 {
            guard let t = list[p] else { continue }
            var out: Double
            if t.kind == .removal {
                out = cin[p] == 0 ? nodeNew[p, i] : (1 - removal[p]) * cin[p]
                out = min(out, nodeNew[p, i])
            } else {
                out = (1 - removal[p]) * nodeNew[p, i]
            }
            let lost = (cin[p] * q * dt + nodeOld[p, i] * s.oldVolume[i] - out * (q * dt + s.oldVolume[i])) / dt
            rates[p].reacted += max(0, lost)
            nodeNew[p, i] = out
        }
    }
}
