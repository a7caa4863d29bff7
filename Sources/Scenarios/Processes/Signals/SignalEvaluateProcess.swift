import Foundation
import CityModel
import GeoCore
import SignalSim
import TwinStore

/// `signal-evaluate`: how a stored plan (`signal_plans`) performs for an intersection's counts —
/// degree of saturation, Webster and HCM 2000 delay, queue, stops and LOS per lane group — so an
/// engineer sees what the controller's current plan does in a period before re-timing it.
///
/// Inputs: `intersection` (id), `plan` (a signal_plans feature id of that intersection; default
/// the stored plan whose period holds the period's start, else its all-day plan), `period`
/// (HH:MM-HH:MM: flows from the busiest hour of the counts in it; default the plan's own period).
/// Outputs: `evaluation` (as `citytwin signal plan --json` prints a timing), `plan_id`, `period`
/// and `counts` (where the flows came from).
public struct SignalEvaluateProcess: OGCProcess {
    public let id = "signal-evaluate"
    public let version = "1.0.0"
    public let title = "Evaluate a signal plan"
    public let description = "Evaluates a stored signal plan against an intersection's counts for a period: degree of saturation, Webster and HCM 2000 control delay, queue, stops and level of service per lane group, with GB 50647 warnings."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var inputs: [String: ProcessParameter] {
        SignalProcessInputs.settingsParameters.merging([
            "intersection": ProcessParameter(title: "Intersection", description: "Id of a signalized_intersections feature, e.g. SI-006.", schema: ["type": "string"]),
            "plan": ProcessParameter(title: "Plan", description: "Id of a signal_plans feature of the intersection (default: the stored plan whose period holds the period's start, else its all-day plan).",
                                     schema: ["type": "string"], minOccurs: 0),
            "period": SignalProcessInputs.periodParameter,
        ]) { a, _ in a }
    }

    public var outputs: [String: ProcessParameter] {
        [
            "evaluation": ProcessParameter(title: "Evaluation", description: "cycle_s, Y, lost_time_s, mean_delay_s, warnings, stages and approaches {x, delay_s, webster_delay_s, queue_veh, stops_per_veh, los} of the plan under the period's flows.",
                                           schema: ["type": "object"]),
            "plan_id": ProcessParameter(title: "Plan evaluated", description: "The signal_plans feature id.", schema: ["type": "string"]),
            "period": ProcessParameter(title: "Period", description: "The period whose flows were used: name, start, end, design_hour_start.", schema: ["type": "object"]),
            "counts": ProcessParameter(title: "Flows from", description: "traffic_counts (15-minute counts) or turning_counts (the layer's peak hour).", schema: ["type": "string"]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: [SignalizedIntersection.layer, SignalPlanLayer.layer], optionalReads: [SignalizedIntersection.countsLayer])
    }

    struct Request {
        var intersection: String
        var plan: String?
        var period: (start: Int, end: Int)?
        var settings: SignalTimingSettings
    }

    func request(_ inputs: [String: JSONValue]) throws -> Request {
        guard let id = try ProcessInputs.string(inputs, "intersection") else { throw ProcessInputError("intersection", "is required") }
        return Request(intersection: id, plan: try ProcessInputs.string(inputs, "plan"),
                       period: try SignalProcessInputs.period(inputs), settings: try SignalProcessInputs.settings(inputs))
    }

    /// The stored plan to evaluate: the one asked for, else the one whose period holds `start`
    /// (a time-of-day plan before the all-day one).
    func storedPlan(_ r: Request, store: any FeatureStore, caller: Caller) async throws -> Feature {
        if let id = r.plan {
            guard let feature = try await store.feature(layer: SignalPlanLayer.layer, id: id, by: caller) else {
                throw ProcessInputError("plan", "no plan '\(id)' in \(SignalPlanLayer.layer)")
            }
            guard feature.properties["intersection"]?.stringValue == r.intersection else {
                throw ProcessInputError("plan", "plan '\(id)' belongs to \(feature.properties["intersection"]?.stringValue ?? "another intersection"), not \(r.intersection)")
            }
            return feature
        }
        let stored = try await SignalPlanLayer.plans(of: r.intersection, from: store, by: caller)
        guard let running = SignalPlanLayer.running(at: r.period?.start ?? 0, among: stored) else {
            throw ProcessInputError("plan", "intersection \(r.intersection) has no plan in \(SignalPlanLayer.layer): run signal-timing with write=true first")
        }
        return running.feature
    }

    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        let r = try request(inputs)
        _ = try await SignalProcessInputs.intersection(r.intersection, "intersection", store: store, caller: caller)
        _ = try await SignalProcessInputs.mapped { try await storedPlan(r, store: store, caller: caller) }
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        let r = try request(inputs)
        return try await SignalProcessInputs.mapped {
            let intersection = try await SignalProcessInputs.intersection(r.intersection, "intersection", store: store, caller: caller)
            let feature = try await storedPlan(r, store: store, caller: caller)
            let stored = try SignalPlanLayer.plan(of: feature)
            let (counts, minutes) = try await intersection.countsIfReadable(from: store, by: caller)
            let range = r.period ?? (stored.start, stored.end)
            // Flows of the busiest hour in the period (an all-day plan meets the day's busiest hour);
            // without readable counts, the layer's peak-hour turning counts.
            var period = TimeOfDayPeriod(name: "all-day", start: 0, end: 1440, designFlows: intersection.demand.flowsByApproach, designHourStart: 0)
            if !counts.isEmpty {
                let name = period.name
                period = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: range,
                                                  settings: r.settings)[0].period
                if r.period == nil, range == (0, 1440) { period.name = name }
            }
            let timing = try SignalTiming.evaluate(stored.plan, for: intersection.demand.with(flows: period.designFlows),
                                                   settings: r.settings, method: feature.properties["method"]?.stringValue ?? "evaluated")
            return ["evaluation": try SignalProcessInputs.json(IntersectionTimingReport(timing)),
                    "plan_id": .string(feature.id?.description ?? ""), "period": SignalProcessInputs.json(period),
                    "counts": .string(counts.isEmpty ? "turning_counts" : SignalizedIntersection.countsLayer)]
        }
    }
}
