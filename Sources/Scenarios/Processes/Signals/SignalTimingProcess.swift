import Foundation
import CityModel
import GeoCore
import SignalSim
import TwinStore

/// `signal-timing`: Webster plans for stored intersections from their counts — one plan per
/// time-of-day period segmented from the latest day of 15-minute counts (`traffic_counts`), or one
/// for a given period — with HCM delay, queue and LOS per lane group, written as `signal_plans`
/// versions when asked.
///
/// Inputs: `intersections` (ids; default every one), `period` (HH:MM-HH:MM), `write`, and the
/// timing bounds. Outputs: `plans` (per intersection and period: the feature id it is written
/// under, the period, the flows' design hour and the timing as `citytwin signal plan --json`
/// prints it) and `written` (feature ids). An intersection without counts the caller may read is
/// timed from its layer's peak-hour turning counts, and the answer says so (`partial`).
public struct SignalTimingProcess: OGCProcess {
    public let id = "signal-timing"
    public let version = "1.0.0"
    public let title = "Signal timing from counts"
    public let description = "Times signalised intersections from their traffic counts (Webster optimum cycle and splits, pedestrian and vehicle minimum greens, GB 50647 checks): one plan per time-of-day period (AM peak, off-peak, PM peak, night) or for a given period, with HCM 2000 delay, queue, stops and LOS per lane group; optionally written as signal_plans versions."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var inputs: [String: ProcessParameter] {
        SignalProcessInputs.settingsParameters.merging([
            "intersections": ProcessParameter(title: "Intersections", description: "Ids of signalized_intersections features to time (default: every one).",
                                              schema: ["type": "array", "items": ["type": "string"], "minItems": 1], minOccurs: 0),
            "period": SignalProcessInputs.periodParameter,
            "write": SignalProcessInputs.writeParameter,
        ]) { a, _ in a }
    }

    public var outputs: [String: ProcessParameter] {
        [
            "plans": ProcessParameter(title: "Plans", description: "Per intersection and period: feature_id (in signal_plans), intersection, period {name, start, end, design_hour_start}, counts (traffic_counts or turning_counts) and timing {cycle_s, Y, lost_time_s, warnings, stages, approaches {x, delay_s, queue_veh, los, …}}.",
                                      schema: ["type": "array"]),
            "written": ProcessParameter(title: "Written plans", description: "Ids of the signal_plans features written (empty unless write is true).",
                                        schema: ["type": "array", "items": ["type": "string"]]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        let write = (try? EmergencyProcessInputs.bool(inputs, "write")) ?? false
        return ProcessLayers(reads: [SignalizedIntersection.layer], optionalReads: [SignalizedIntersection.countsLayer],
                             writes: write ? [ProcessLayers.Write(SignalPlanLayer.layer, owner: SignalPlanLayer.owner)] : [])
    }

    struct Request {
        var ids: [String]?
        var period: (start: Int, end: Int)?
        var settings: SignalTimingSettings
        var write: Bool
    }

    func request(_ inputs: [String: JSONValue]) throws -> Request {
        let ids = try EmergencyProcessInputs.strings(inputs, "intersections")
        if let ids, ids.isEmpty { throw ProcessInputError("intersections", "must name at least one intersection") }
        return Request(ids: ids, period: try SignalProcessInputs.period(inputs), settings: try SignalProcessInputs.settings(inputs),
                       write: try EmergencyProcessInputs.bool(inputs, "write"))
    }

    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        let r = try request(inputs)
        for id in r.ids ?? [] {
            _ = try await SignalProcessInputs.intersection(id, "intersections", store: store, caller: caller)
        }
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        let r = try request(inputs)
        return try await SignalProcessInputs.mapped {
            var intersections: [SignalizedIntersection] = []
            if let ids = r.ids {
                for id in ids { intersections.append(try await SignalProcessInputs.intersection(id, "intersections", store: store, caller: caller)) }
            } else {
                intersections = try await SignalizedIntersection.all(from: store, by: caller)
            }
            var plans: [JSONValue] = []
            var features: [Feature] = []
            for (i, intersection) in intersections.enumerated() {
                try await progress.report(100 * Double(i) / Double(max(1, intersections.count)))
                let (counts, minutes) = try await intersection.countsIfReadable(from: store, by: caller)
                let timed = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes,
                                                     period: r.period, settings: r.settings)
                for plan in timed {
                    let feature = SignalPlanLayer.feature(for: intersection, plan: plan)
                    features.append(feature)
                    plans.append([
                        "feature_id": .string(feature.id?.description ?? ""), "intersection": .string(intersection.id),
                        "period": SignalProcessInputs.json(plan.period),
                        "counts": .string(counts.isEmpty ? "turning_counts" : SignalizedIntersection.countsLayer),
                        "timing": try SignalProcessInputs.json(IntersectionTimingReport(plan.timing)),
                    ])
                }
            }
            if r.write, !features.isEmpty {
                try await store.upsert(layer: SignalPlanLayer.layer, features: features, by: caller, at: nil)
            }
            try await progress.report(100)
            return ["plans": .array(plans),
                    "written": .array(r.write ? features.compactMap { $0.id.map { .string($0.description) } } : [])]
        }
    }
}
