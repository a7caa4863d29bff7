import CityModel
import Foundation
import GeoCore
import SignalSim

/// An intersection described as `citytwin signal plan --input` reads it, rather than stored: built in
/// SUMO under its own Webster plan at its own flows (`signal evaluate --input`, `signal export-sumo
/// --input`, the `signal-evaluate` process's intersection given as JSON).
extension SumoExport {
    /// Where an intersection given inline is built (central Wuhan, in the district's CRS zone).
    public static let inlinePosition = Position(x: 114.3055, y: 30.5928)

    /// The intersection's Webster plan as a `signal_plans` feature (not stored: its id, SP-<id>-ALL,
    /// only names SUMO's program), the plan that feature holds, and its own flows as an all-day period.
    /// - Throws: `SignalTimingError` naming what no plan can be made from.
    public static func inlinePlan(_ intersection: SignalizedIntersection, settings: SignalTimingSettings) throws
        -> (feature: Feature, plan: SignalPlan, period: TimeOfDayPeriod) {
        let period = TimeOfDayPeriod(name: "all-day", start: 0, end: 1440, designFlows: intersection.demand.flowsByApproach, designHourStart: 0)
        let timing = try SignalTiming.webster(intersection.demand, settings: settings)
        let feature = SignalPlanLayer.feature(for: intersection, plan: TimeOfDayPlan(period: period, timing: timing))
        return (feature, try SignalPlanLayer.plan(of: feature).plan, period)
    }

    /// The export of an intersection given inline over `period` (minutes after midnight), its flows
    /// arriving at their hourly rates all through it under its Webster plan.
    /// - Throws: `SignalTimingError` naming the field (an approach without a compass arm, input no plan
    ///   can be made from).
    public static func inline(_ demand: IntersectionDemand, period: (start: Int, end: Int), control: Control = .fixed,
                              settings: SignalTimingSettings = SignalTimingSettings()) throws -> SumoExport {
        let intersection = try SignalizedIntersection(demand: demand, at: inlinePosition)
        let (feature, plan, flows) = try inlinePlan(intersection, settings: settings)
        let minutes = period.end - period.start
        let volumes = flows.designFlows.mapValues { $0.scaled(by: Double(minutes) / 60) }
        let signal = Signal(intersection: intersection, plans: [(feature, plan, 0, 1440)],
                            counts: [IntervalCount(start: period.start, volumes: volumes)], intervalMinutes: minutes)
        return try SumoExport(signals: [signal], period: period, control: control)
    }
}
