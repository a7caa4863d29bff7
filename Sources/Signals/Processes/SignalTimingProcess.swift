import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// `signal-timing`: Webster plans for stored intersections from their counts — one plan per
/// time-of-day period segmented from the latest ended day of 15-minute counts (`traffic_counts`), or one
/// for a given period — with HCM delay, queue and LOS per lane group, written as `signal_plans`
/// versions when asked.
///
/// Adaptive re-timing (`method` webster-retiming or saturation-balancing) instead takes one
/// bounded step (`maximumCycleChange`, `maximumGreenChange`) of the stored plan running at `at`
/// from the hour of counts before it, written as a new version of that plan.
///
/// Inputs: `intersections` (ids; default every one), `period` (HH:MM-HH:MM), `write`, `method`,
/// `at`, the step limits and the timing bounds; or `intersection`, one intersection as JSON as
/// `citytwin signal plan --input` reads it, timed from its own flows (it reads no layer, so it needs
/// no token). Outputs: `plans` (per intersection and period: the feature id it is written
/// under, the period, the flows' design hour and the timing as `citytwin signal plan --json`
/// prints it) and `written` (feature ids). An intersection without counts the caller may read is
/// timed from its layer's peak-hour turning counts, and the answer says so (`partial`).
public struct SignalTimingProcess: LayerFreeTypedProcess {
    public let id = "signal-timing"
    public let version = "1.0.0"
    public let title = "Signal timing from counts"
    public let description = "Times signalised intersections from their traffic counts (Webster optimum cycle and splits, pedestrian and vehicle minimum greens; where the minimums leave an approach above x = 0.9 at Webster's cycle, the shortest cycle within 0.5 s/veh of the least mean Webster delay; GB 50647 checks): one plan per time-of-day period (AM peak, off-peak, PM peak, night) or for a given period, with HCM 2000 delay, queue, stops and LOS per lane group; optionally written as signal_plans versions."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "plans": ProcessParameter(title: "Plans", description: "Per intersection and period: feature_id (in signal_plans), intersection, period {name, start, end, design_hour_start}, counts (traffic_counts or turning_counts) and timing {cycle_s, Y, lost_time_s, warnings [{code, message, approach (the lane group it is about), affects (other lane groups whose figures its blocking changes)}], stages, approaches {x, delay_s, queue_veh, queue_95_veh_lane, queue_95_m, storage_m, queue_storage_ratio, los, …}, crossings {stage, green_s, delay_s (pedestrians), longest_wait_s, island_wait_s, los}}.",
                                      schema: ["type": "array"]),
            "written": ProcessParameter(title: "Written plans", description: "Ids of the signal_plans features written (empty unless write is true).",
                                        schema: ["type": "array", "items": ["type": "string"]]),
            "skipped": ProcessParameter(title: "Plans not stepped", description: "With once: the intersections whose running plan was already re-timed from the same counted interval: intersection, plan, retimed_at.",
                                        schema: ["type": "array"]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        // `intersection` is only ever a document (an id is refused by name): it reads no layer.
        if ProcessInputs.unwrap(inputs["intersection"]) != nil { return ProcessLayers() }
        let write = (try? ProcessInputs.bool(inputs, "write")) ?? false
        return ProcessLayers(reads: [SignalizedIntersection.layer], optionalReads: [SignalizedIntersection.countsLayer],
                             writes: write ? [ProcessLayers.Write(SignalPlanLayer.layer, owner: SignalPlanLayer.owner)] : [])
    }

    public struct Input: ProcessInput {
        /// An intersection given inline (`intersection`): timed from its own flows.
        var inline: IntersectionDemand?
        var ids: [String]?
        var period: (start: Int, end: Int)?
        var settings: SignalTimingSettings
        var write: Bool
        /// nil: Webster plans per period; else one adaptive step.
        var retiming: SignalPlanning.Retiming?
        var at: Int?
        var limits: RetimingLimits
        /// Re-timing: skip plans already re-timed from the same counted interval.
        var once: Bool

        public init(from r: ProcessInputReader) throws {
            settings = try SignalProcessInputs.settings(r)
            inline = try SignalProcessInputs.document(IntersectionDemand.self, r.value("intersection", Self.intersectionParameter),
                                                      "intersection", orID: false)
            ids = try r.strings("intersections", title: "Intersections", description: "Ids of signalized_intersections features to time (default: every one).",
                                schema: ["type": "array", "items": ["type": "string"], "minItems": 1])
            period = try SignalProcessInputs.period(r)
            write = try r.value("write", SignalProcessInputs.writeParameter).map { try ProcessInputs.bool(["write": $0], "write") } ?? false
            let method = try r.choice("method", title: "Method", description: "webster (default): new plans per period from the counts; webster-retiming or saturation-balancing: adaptive re-timing (自适应配时), one bounded step of the stored plan running at 'at', from the hour of counts before it.",
                                      among: ["webster", "webster-retiming", "saturation-balancing"], default: "webster") {
                "must be webster, webster-retiming or saturation-balancing (got '\($0)')"
            }
            retiming = SignalPlanning.Retiming(rawValue: method)
            at = try r.optionalString("at", title: "Re-timing time", description: "HH:MM: when the re-timing step is taken (default: the end of the last counted interval of the latest day).",
                                      schema: ["type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"]).map { text in
                guard let minute = TimeOfDayPeriod.minute(ofClock: text), minute < 1440 else {
                    throw ProcessInputError("at", "must be a time of day HH:MM (got '\(text)')")
                }
                return minute
            }
            once = try r.bool("once", title: "Once per counted interval", description: "Re-timing only: skip an intersection whose running plan was already re-timed from the same counted interval (its inputs.retimed_at), so a scheduler run again before new counts arrive, or a reading sent again, takes no second step (default false: every run takes a step). The step is written only if the plan it stepped from is still stored as read; otherwise it is taken again from the plan now stored.")
            let base = RetimingLimits()
            limits = RetimingLimits(
                maximumCycleChange: try r.number("maximumCycleChange", title: "Largest cycle change", description: "How far one re-timing step may move the cycle (s, default 10).",
                                                 in: 0...60, default: base.maximumCycleChange),
                maximumGreenChange: try r.number("maximumGreenChange", title: "Largest green change", description: "How far one re-timing step may move any stage's green (s, default 5).",
                                                 in: 0...60, default: base.maximumGreenChange))
            guard !r.isDescribing else { return }
            if inline != nil {
                if let other = ["intersections", "period", "method", "at", "write", "once"].first(where: r.isGiven) {
                    throw ProcessInputError(other, "applies to stored intersections, not to one given as 'intersection'")
                }
            }
            if let ids, ids.isEmpty { throw ProcessInputError("intersections", "must name at least one intersection") }
            if retiming == nil, at != nil { throw ProcessInputError("at", "applies to the re-timing methods only") }
            if retiming == nil, once { throw ProcessInputError("once", "applies to the re-timing methods only") }
            if retiming != nil, period != nil { throw ProcessInputError("period", "re-timing steps the plan running at 'at'; give 'at' instead") }
        }

        static let intersectionParameter = ProcessParameter(title: "Intersection as JSON", description: "One intersection described inline instead of stored ones, as `citytwin signal plan --input` reads it: {id, amber_s, all_red_s, startup_lost_s, approaches: [{id, lanes, saturation_veh_h_lane, flows_veh_h: {through, left, right}, arm, storage_m, lane_width_m, grade_pct, heavy_vehicles_pct, buses_stopping_veh_h}], stages: [[approach ids], …] (an approach named in consecutive stages keeps its green through the change between them, 搭接, also from the last stage into the first; one named in every stage of two or more is never stopped, 常绿), crossings: [{id, length_m, refuge_island, stage}]} (an approach's saturation_veh_h_lane is what a lane of its through traffic discharges; its turns are discounted from it as from the intersection's base; its lane width, grade, heavy vehicles and buses stopping, each optional, are factors on it: GB 50647's lane width correction, HCM 2000's others), optionally as measured at the site saturation_flow_pcu_h, left_turn_factor, right_turn_factor, permitted_left_critical_gap_s, permitted_left_follow_up_s and incremental_delay_factor; a field not listed is refused, naming it. Timed from its own flows (plans[0] has intersection and timing); it reads no layer, so it needs no token. Not with intersections, period, method, at or write.",
                                             schema: ["type": "object", "required": ["id", "approaches", "stages"]], minOccurs: 0)
    }

    public func check(_ r: Input, store: any FeatureStore, caller: Caller) async throws {
        if r.inline != nil { return try await check(r, caller: caller) }
        for id in r.ids ?? [] {
            _ = try await SignalProcessInputs.intersection(id, "intersections", store: store, caller: caller)
        }
    }

    /// An intersection given inline reads no layer: it is timed without a store.
    public func check(_ r: Input, caller: Caller) async throws {
        guard let demand = r.inline else { throw SignalProcessInputs.storeNeeded("intersections", "stored intersections") }
        _ = try SignalProcessInputs.blaming("intersection") { try SignalTiming.webster(demand, settings: r.settings) }
    }

    public func run(_ r: Input, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        guard let demand = r.inline else { throw SignalProcessInputs.storeNeeded("intersections", "stored intersections") }
        let timing = try SignalProcessInputs.blaming("intersection") { try SignalTiming.webster(demand, settings: r.settings) }
        try await progress.report(100)
        return ["plans": [["intersection": .string(demand.id), "timing": try SignalProcessInputs.json(IntersectionTimingReport(timing))]],
                "written": []]
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        if r.inline != nil { return try await run(r, caller: caller, progress: progress) }
        // A re-timing step is written only if the plans it stepped from are still stored as read;
        // if another writer (another server process, a planner) wrote one in between, the step is
        // taken again from what is stored now.
        return try await StoreError.retryingChangedVersions {
            try await timePlans(r, store: store, caller: caller, progress: progress)
        }
    }

    private func timePlans(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await SignalProcessInputs.mapped {
            var intersections: [SignalizedIntersection] = []
            if let ids = r.ids {
                for id in ids { intersections.append(try await SignalProcessInputs.intersection(id, "intersections", store: store, caller: caller)) }
            } else {
                intersections = try await SignalizedIntersection.all(from: store, by: caller)
            }
            var plans: [JSONValue] = []
            var features: [Feature] = []
            /// The running plans re-timing steps were taken from, as read.
            var basis: [String: Feature?] = [:]
            var skipped: [JSONValue] = []
            for (i, intersection) in intersections.enumerated() {
                try await progress.report(100 * Double(i) / Double(max(1, intersections.count)))
                let read = try await intersection.countsIfReadable(from: store, day: r.retiming == nil ? .latestEnded : .latest, by: caller)
                let (counts, minutes) = (read.intervals, read.minutes)
                var timed: [TimeOfDayPlan]
                var from: String?
                /// A re-timing step's counted day and time (`2026-11-24T08:15`), kept in the plan's inputs.
                var retimedAt: String?
                if let method = r.retiming {
                    guard !counts.isEmpty else {
                        throw ProcessInputError("method", "re-timing needs 15-minute counts (\(SignalizedIntersection.countsLayer)) of \(intersection.id) the caller may read")
                    }
                    let at = r.at ?? (counts.map(\.start).max() ?? 0) + minutes
                    let stored = try await SignalPlanLayer.plans(of: intersection.id, from: store, by: caller)
                    guard let running = SignalPlanLayer.running(at: at, among: stored) else {
                        throw ProcessInputError("method", "\(intersection.id) has no stored plan to re-time: write one first (method webster, write true)")
                    }
                    from = running.feature.id?.description
                    retimedAt = read.day.map { "\($0)T\(TimeOfDayPeriod.clock(at))" }
                    if r.once, let retimedAt, running.feature.properties["inputs"]?["retimed_at"]?.stringValue == retimedAt {
                        skipped.append(["intersection": .string(intersection.id), "plan": from.map(JSONValue.string) ?? .null,
                                        "retimed_at": .string(retimedAt)])
                        continue
                    }
                    if let from { basis[from] = running.feature }
                    timed = [try SignalPlanning.retime(intersection, running: running, counts: counts, intervalMinutes: minutes, at: at,
                                                        method: method, settings: r.settings, limits: r.limits)]
                } else {
                    timed = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: r.period, settings: r.settings)
                }
                for k in timed.indices { read.mark(&timed[k].timing) }
                for plan in timed {
                    // A re-timing step is a new version of the plan it stepped from.
                    var feature = SignalPlanLayer.feature(for: intersection, plan: plan)
                    if let from { feature.id = .string(from) }
                    if let retimedAt, case .object(var inputs)? = feature.properties["inputs"] {
                        inputs["retimed_at"] = .string(retimedAt)
                        feature.properties["inputs"] = .object(inputs)
                    }
                    features.append(feature)
                    plans.append([
                        "feature_id": .string(feature.id?.description ?? ""), "intersection": .string(intersection.id),
                        "from_plan": from.map(JSONValue.string) ?? .null,
                        "period": SignalProcessInputs.json(plan.period),
                        "counts": .string(counts.isEmpty ? "turning_counts" : SignalizedIntersection.countsLayer),
                        "timing": try SignalProcessInputs.json(IntersectionTimingReport(plan.timing)),
                    ])
                }
            }
            if r.write, !features.isEmpty {
                try await store.write(FeatureChanges(upserts: features), layer: SignalPlanLayer.layer, basedOn: basis, by: caller)
            }
            try await progress.report(100)
            var output: [String: JSONValue] = [
                "plans": .array(plans),
                "written": .array(r.write ? features.compactMap { $0.id.map { .string($0.description) } } : []),
            ]
            if r.once { output["skipped"] = .array(skipped) }
            return .object(output)
        }
    }
}
