import Foundation
import GeoCore
import SignalSim
import TwinStore

/// The `signal_plans` layer: one feature per intersection and period, a new version each time a
/// plan is written.
public enum SignalPlanLayer {
    public static let layer = "signal_plans"
    /// The department that owns and approves signal plans (交警 within 公安局).
    public static let owner = "公安局"

    /// The feature id: one per intersection and period start.
    public static func featureID(intersection: String, period: TimeOfDayPeriod) -> String {
        period.name == "all-day" ? "SP-\(intersection)-ALL"
            : "SP-\(intersection)-\(TimeOfDayPeriod.clock(period.start).replacingOccurrences(of: ":", with: ""))"
    }

    /// The plan as a feature at the intersection, with what it was computed from. An approved
    /// plan names who approved it and when; a computed one is a proposal until then.
    public static func feature(for intersection: SignalizedIntersection, plan: TimeOfDayPlan, corridor: String? = nil,
                               method: String? = nil, approvedBy: String? = nil, approvedAt: String? = nil) -> Feature {
        let t = plan.timing
        let stages: [JSONValue] = t.plan.stages.map { s in
            ["lane_groups": .array(s.approaches.map { .string($0) }), "green_s": .number(s.green), "amber_s": .number(s.amber),
             "all_red_s": .number(s.allRed)]
        }
        let flows: [String: JSONValue] = Dictionary(plan.period.designFlows.map { id, f in
            (id, JSONValue.object(["through": .number(f.through), "left": .number(f.left), "right": .number(f.right)]))
        }, uniquingKeysWith: { a, _ in a })
        let worst = t.approaches.filter { $0.flow > 0 }.map(\.levelOfService).max() ?? .a
        let properties: [String: JSONValue] = [
            "intersection": .string(intersection.id), "period": .string(plan.period.name),
            "period_start": .string(TimeOfDayPeriod.clock(plan.period.start)), "period_end": .string(TimeOfDayPeriod.clock(plan.period.end)),
            "cycle_s": .number(t.cycle), "offset_s": .number(t.plan.offset), "stages": .array(stages), "method": .string(method ?? t.method),
            "flow_ratio_sum": .number((t.flowRatioSum * 1000).rounded() / 1000),
            "mean_delay_s": .number((t.meanControlDelay * 10).rounded() / 10), "los": .string(worst.rawValue),
            "warnings": .array(t.warnings.map { .string($0.description) }),
            "inputs": .object(["design_hour_start": .string(TimeOfDayPeriod.clock(plan.period.designHourStart)), "flows_veh_h": .object(flows)]),
            "corridor": corridor.map { .string($0) } ?? .null, "approved_by": approvedBy.map { .string($0) } ?? .null, "approved_at": approvedAt.map { .string($0) } ?? .null,
        ]
        return Feature(id: .string(featureID(intersection: intersection.id, period: plan.period)),
                       geometry: .point(Point(intersection.position)), properties: properties)
    }
}

extension SignalPlanLayer {
    /// The plan a `signal_plans` feature holds (stages with their lane groups, greens, ambers and
    /// all-reds; the offset) and the period it runs in (minutes after midnight, end exclusive).
    /// - Throws: `SignalTimingError` naming the feature's property that cannot be read.
    public static func plan(of feature: Feature) throws -> (plan: SignalPlan, start: Int, end: Int) {
        let p = feature.properties
        let fid = feature.id?.description ?? "?"
        func bad(_ property: String, _ reason: String) -> SignalTimingError {
            SignalTimingError(field: "\(layer)/\(fid).\(property)", reason)
        }
        guard let stages = p["stages"]?.arrayValue, !stages.isEmpty else { throw bad("stages", "is missing or empty") }
        let timed = try stages.enumerated().map { i, s -> StageTiming in
            // (A pedestrian-only stage names no lane group; the kernel checks a crossing is walked in it.)
            guard let o = s.objectValue, let groups = o["lane_groups"]?.arrayValue?.compactMap(\.stringValue),
                  let green = o["green_s"]?.doubleValue, let amber = o["amber_s"]?.doubleValue, let allRed = o["all_red_s"]?.doubleValue else {
                throw bad("stages[\(i)]", "needs lane_groups, green_s, amber_s and all_red_s")
            }
            return StageTiming(approaches: groups, green: green, amber: amber, allRed: allRed)
        }
        func minute(_ property: String, _ fallback: Int) throws -> Int {
            guard let text = p[property]?.stringValue else { return fallback }
            guard let minute = TimeOfDayPeriod.minute(ofClock: text) else { throw bad(property, "must be HH:MM (got \(text))") }
            return minute
        }
        return (SignalPlan(stages: timed, offset: p["offset_s"]?.doubleValue ?? 0), try minute("period_start", 0), try minute("period_end", 1440))
    }
}

extension SignalPlanLayer {
    /// One stored plan: its feature, the plan and its period (minutes after midnight, end exclusive).
    public typealias Stored = (feature: Feature, plan: SignalPlan, start: Int, end: Int)

    /// Every stored plan of `intersection`.
    public static func plans(of intersection: String, from store: any FeatureStore, by caller: Caller) async throws -> [Stored] {
        let filter = FilterExpression.comparison(.equal, "intersection", .literal(.string(intersection)))
        var out: [Stored] = []
        for try await feature in store.stream(layer: layer, FeatureQuery(filter: filter, limit: 100), by: caller) {
            let (plan, start, end) = try plan(of: feature)
            out.append((feature, plan, start, end))
        }
        return out
    }

    /// The plan among `plans` running at `minute` after midnight: the one whose period holds it
    /// (the shortest such period: a time-of-day plan before an all-day one), else the first.
    public static func running(at minute: Int, among plans: [Stored]) -> Stored? {
        plans.filter { $0.start <= minute && minute < $0.end }.min { ($0.end - $0.start) < ($1.end - $1.start) } ?? plans.first
    }
}
