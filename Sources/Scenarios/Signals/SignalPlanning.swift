import Foundation
import GeoCore
import CityModel
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
