import Foundation
import GeoCore
import CityModel
import ProcessRuntime
import SignalSim
import TwinStore

/// Plans for a stored intersection from its counts: what `signal-timing` and
/// `citytwin signal plan --intersection` answer.
public enum SignalPlanning {
    /// One plan per period:
    /// - with `period` (minutes after midnight, end exclusive): the busiest hour of the counts in it;
    /// - without: one per time-of-day period segmented from the counts (`TimeOfDayPlanning`);
    /// - with no counts at all: one all-day plan from the layer's peak-hour `turning_counts`.
    /// - Throws: `ScenarioError` `.invalidArgument` (field `period`) for a period with no counts,
    ///   `SignalTimingError` from the kernel.
    public static func plans(for intersection: SignalizedIntersection, counts: [IntervalCount], intervalMinutes: Int,
                             period: (start: Int, end: Int)?, settings: SignalTimingSettings) throws -> [TimeOfDayPlan] {
        if counts.isEmpty {
            if period != nil {
                throw ScenarioError(.invalidArgument, "\(intersection.id) has no counts in \(SignalizedIntersection.countsLayer) to time a period from", field: "period")
            }
            let allDay = TimeOfDayPeriod(name: "all-day", start: 0, end: 1440, designFlows: intersection.demand.flowsByApproach, designHourStart: 0)
            return [TimeOfDayPlan(period: allDay, timing: try SignalTiming.webster(intersection.demand, settings: settings))]
        }
        guard let period else {
            return try TimeOfDayPlanning.plans(for: intersection.demand, counts: counts, intervalMinutes: intervalMinutes, settings: settings)
        }
        let inside = counts.filter { $0.start >= period.start && $0.start < period.end }
        guard !inside.isEmpty else {
            throw ScenarioError(.invalidArgument, "\(intersection.id) has no counts between \(TimeOfDayPeriod.clock(period.start)) and \(TimeOfDayPeriod.clock(period.end))", field: "period")
        }
        var found = try TimeOfDayPlanning.plans(for: intersection.demand, counts: inside, intervalMinutes: intervalMinutes,
                                                periods: 1, settings: settings)
        found[0].period.name = "period"
        found[0].period.start = period.start
        found[0].period.end = period.end
        return found
    }
}

extension SignalPlanning {
    /// How a running plan is re-timed from the latest counts (`AdaptiveRetiming`).
    public enum Retiming: String, Sendable, CaseIterable {
        /// Periodic Webster re-timing toward the measured hour's optimum.
        case webster = "webster-retiming"
        /// SCATS-style degree-of-saturation balancing.
        case saturationBalancing = "saturation-balancing"
    }

    /// One bounded re-timing step of the plan `running` at `minute` after midnight, from the hour
    /// of counts before it (vehicles per interval scaled to veh/h).
    /// - Throws: `ScenarioError` `.invalidArgument` (field `at`) when the counts hold nothing in
    ///   that hour; `SignalTimingError` from the kernel.
    public static func retime(_ intersection: SignalizedIntersection, running: SignalPlanLayer.Stored, counts: [IntervalCount],
                              intervalMinutes: Int, at minute: Int, method: Retiming, settings: SignalTimingSettings,
                              limits: RetimingLimits) throws -> TimeOfDayPlan {
        let window = counts.filter { $0.start >= minute - 60 && $0.start < minute }
        guard !window.isEmpty else {
            throw ScenarioError(.invalidArgument, "\(intersection.id) has no counts in the hour before \(TimeOfDayPeriod.clock(minute))", field: "at")
        }
        var flows = intersection.demand.flowsByApproach.mapValues { _ in MovementFlows() }
        for c in window {
            for (id, f) in c.volumes { flows[id] = (flows[id] ?? MovementFlows()) + f }
        }
        let perHour = 60 / Double(window.count * intervalMinutes)
        flows = flows.mapValues { $0.scaled(by: perHour) }
        let demand = intersection.demand.with(flows: flows)
        let timing = switch method {
        case .webster: try AdaptiveRetiming.webster(current: running.plan, demand: demand, settings: settings, limits: limits)
        case .saturationBalancing: try AdaptiveRetiming.balanceSaturation(current: running.plan, demand: demand, settings: settings, limits: limits)
        }
        let name = running.feature.properties["period"]?.stringValue ?? "period"
        return TimeOfDayPlan(period: TimeOfDayPeriod(name: name, start: running.start, end: running.end, designFlows: flows,
                                                     designHourStart: max(0, minute - 60)),
                             timing: timing)
    }
}
