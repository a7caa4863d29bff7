import Foundation
import GeoCore
import SignalSim

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
