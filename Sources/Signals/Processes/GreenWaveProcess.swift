import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// `green-wave`: coordinates a stored corridor (`signal_corridors`, 干线协调): a common cycle set by
/// its critical intersection, Webster splits at that cycle, and the offsets that maximise the
/// weighted two-way bandwidth b + k·b̄ (exact for up to 12 signals) or, asked, that give the
/// corridor's lowest delay, with the time–space diagram.
///
/// Inputs: `corridor` (id, or a corridor as JSON as `citytwin signal corridor --input` reads it,
/// which reads no layer and so needs no token), `period` (HH:MM-HH:MM: flows from the busiest hour of each
/// intersection's counts in it; default the layer's peak-hour turning counts), `inboundWeight`
/// (k; default the inbound/outbound through-flow ratio), `cycleRange` ([shortest, longest] common
/// cycle searched; default the critical intersection's cycle), `cycleObjective` (the corridor's
/// delay, the default, or band efficiency), `offsetObjective` (the widest band, the default, or the
/// corridor's lowest delay), `compareOffsets` (the same plans at these offsets too), `write` and
/// the timing bounds. Outputs:
/// `plan` (as `citytwin signal corridor --json` prints it), `diagram` (SVG text) and `written`.
public struct GreenWaveProcess: LayerFreeTypedProcess {
    public let id = "green-wave"
    public let version = "1.0.0"
    public let title = "Corridor green wave"
    public let description = "Coordinates the signals of an arterial corridor (干线协调): a common cycle, stage greens and offsets maximising the weighted two-way green bandwidth over the corridor's distances and design speed (or, with offsetObjective delay, giving the corridor's lowest delay), with a time–space diagram; optionally written as signal_plans versions."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "plan": ProcessParameter(title: "Corridor plan", description: "corridor, cycle_s, critical_intersection, critical_cycle_s, cycle_range_s and cycle_objective (when searched), offset_objective (band or delay) and at_band_offsets (with delay: the widest band's cycle_s, bands and mean_control_delay_s), outbound_bandwidth_s, inbound_bandwidth_s, inbound_weight, progression (two-way, outbound-only, inbound-only, or none for delay offsets without a band), mean_control_delay_s (the corridor's through traffic with arrivals from the upstream signals under the offsets), directions (outbound and inbound: delay_s, isolated_delay_s, stops_per_vehicle and isolated_stops_per_vehicle (halts, as SUMO's waitingCount counts them) summed over the signals, and per signal intersection, approach, delay_s, isolated_delay_s, arrivals_on_green, stops_per_vehicle, isolated_stops_per_vehicle), at_compared_offsets (when compareOffsets was given: offsets_s, directions, mean_control_delay_s), warnings, at_critical_cycle (when a range chose a longer cycle) or two_way_alternative (for a one-way wave: the shortest longer cycle with a two-way band), each with cycle_s, both bands and mean_control_delay_s, and per intersection its timing (offset_s, stages, approaches with x, delay_s, los).",
                                     schema: ["type": "object"]),
            "diagram": ProcessParameter(title: "Time–space diagram", description: "SVG of two cycles with each signal's through greens and the outbound and inbound bands.",
                                        schema: ["type": "string", "contentMediaType": "image/svg+xml"]),
            "written": ProcessParameter(title: "Written plans", description: "Ids of the signal_plans features written (empty unless write is true).",
                                        schema: ["type": "array", "items": ["type": "string"]]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        if ProcessInputs.unwrap(inputs["corridor"])?.objectValue != nil { return ProcessLayers() }
        let write = (try? ProcessInputs.bool(inputs, "write")) ?? false
        let period = (try? SignalProcessInputs.period(inputs)) ?? nil
        return ProcessLayers(reads: [StoreSignalCorridor.layer, SignalizedIntersection.layer],
                             optionalReads: period == nil ? [] : [SignalizedIntersection.countsLayer],
                             writes: write ? [ProcessLayers.Write(SignalPlanLayer.layer, owner: SignalPlanLayer.owner)] : [])
    }

    public struct Input: ProcessInput {
        /// A stored corridor's id, or the corridor given inline.
        var corridor: Either
        enum Either: Sendable { case stored(String), inline(CorridorInput) }
        var period: (start: Int, end: Int)?
        var inboundWeight: Double?
        var cycleRange: ClosedRange<Double>?
        var cycleObjective: CycleObjective
        var offsetObjective: OffsetObjective
        var comparedOffsets: [Double]?
        var settings: SignalTimingSettings
        var write: Bool

        public init(from r: ProcessInputReader) throws {
            settings = try SignalProcessInputs.settings(r)
            let corridorValue = r.value("corridor", Self.Shaped.corridor)
            period = try SignalProcessInputs.period(r)
            inboundWeight = try r.number("inboundWeight", title: "Inbound weight", description: "k in b + k·b̄: the weight of the inbound band (0…10); default the ratio of inbound to outbound through flow.",
                                         in: CorridorTiming.inboundWeights)
            cycleRange = try GreenWaveProcess.cycleRange(r.value("cycleRange", Self.Shaped.cycleRange))
            cycleObjective = try GreenWaveProcess.cycleObjective(r.value("cycleObjective", Self.Shaped.cycleObjective),
                                                                 searching: cycleRange != nil || r.isDescribing)
            offsetObjective = try GreenWaveProcess.offsetObjective(r.value("offsetObjective", Self.Shaped.offsetObjective))
            comparedOffsets = try GreenWaveProcess.comparedOffsets(r.value("compareOffsets", Self.Shaped.compareOffsets))
            write = try r.value("write", SignalProcessInputs.writeParameter).map { try ProcessInputs.bool(["write": $0], "write") } ?? false
            if r.isDescribing {
                corridor = .stored("")
            } else if let inline = try SignalProcessInputs.document(CorridorInput.self, corridorValue, "corridor", orID: true) {
                if let other = ["period", "write"].first(where: r.isGiven) {
                    throw ProcessInputError(other, "applies to a stored corridor, not to one given inline")
                }
                corridor = .inline(inline)
            } else if let id = try corridorValue.flatMap({ try ProcessInputs.string(["corridor": $0], "corridor") }) {
                corridor = .stored(id)
            } else {
                throw ProcessInputError("corridor", "is required: a signal_corridors id or a corridor as JSON")
            }
        }

        /// The inputs whose shape the reader's typed reads do not cover.
        enum Shaped {
            static let corridor = ProcessParameter(title: "Corridor", description: "Id of a signal_corridors feature, e.g. SC-001; or a corridor described inline, as `citytwin signal corridor --input` reads it: {id, intersections: [{intersection: {…as signal-timing's intersection…}, outbound_approach, inbound_approach}], links: [{length_m, outbound_speed_m_s, inbound_speed_m_s}], inbound_weight} (a field not listed is refused, naming it), which reads no layer and so needs no token; period and write apply to a stored corridor only.",
                                         schema: ["oneOf": [["type": "string"], ["type": "object", "required": ["id", "intersections", "links"]]]])
            static let cycleRange = ProcessParameter(title: "Cycle range", description: "[shortest, longest] common cycle (s) to search, in whole seconds from the critical intersection's own cycle up, for cycleObjective. Default: the critical intersection's cycle, and a one-way wave's plan names the shortest cycle that carries both directions.",
                                           schema: ["type": "array", "items": ["type": "number", "minimum": 10, "maximum": 300], "minItems": 2, "maxItems": 2], minOccurs: 0)
            static let cycleObjective = ProcessParameter(title: "Cycle objective", description: "What cycleRange is searched for: delay (the default: the corridor's lowest mean control delay, its through traffic arriving from the upstream signals under each cycle's wave) or band (MAXBAND's band efficiency (b + k·b̄)/C).",
                                               schema: ["type": "string", "enum": ["delay", "band"], "default": .string(CycleObjective.standard.rawValue)], minOccurs: 0)
            static let offsetObjective = ProcessParameter(title: "Offset objective", description: "What the offsets are set for: band (the default: the widest weighted two-way band b + k·b̄, MAXBAND, exact) or delay (the corridor's lowest mean control delay, its through traffic arriving from the upstream signals: TRANSYT's hill climb from the band's offsets; plan.at_band_offsets gives the band's figures beside it).",
                                                schema: ["type": "string", "enum": ["band", "delay"], "default": .string(OffsetObjective.standard.rawValue)], minOccurs: 0)
            static let compareOffsets = ProcessParameter(title: "Offsets to compare", description: "One offset per signal of the corridor (s, the first stage's green start), e.g. the ones the signals run now: the same plans are evaluated at them too (plan.at_compared_offsets), each direction's delay beside the wave's.",
                                               schema: ["type": "array", "items": ["type": "number"], "minItems": 2], minOccurs: 0)
        }
    }

    static func cycleRange(_ value: JSONValue?) throws -> ClosedRange<Double>? {
        guard let value else { return nil }
        guard let pair = value.arrayValue, pair.count == 2, let lower = pair[0].doubleValue, let upper = pair[1].doubleValue,
              lower.isFinite, upper.isFinite else {
            throw ProcessInputError("cycleRange", "must be [shortest, longest] common cycle in seconds, e.g. [80, 110]")
        }
        guard (10...300).contains(lower), (10...300).contains(upper), lower <= upper else {
            throw ProcessInputError("cycleRange", "must be two cycles between 10 and 300 s, the shorter first (got [\(lower), \(upper)])")
        }
        return lower...upper
    }

    static func cycleObjective(_ value: JSONValue?, searching: Bool) throws -> CycleObjective {
        guard let value else { return .standard }
        guard let name = value.stringValue, let objective = CycleObjective(rawValue: name) else {
            throw ProcessInputError("cycleObjective", "must be delay or band")
        }
        guard searching else {
            throw ProcessInputError("cycleObjective", "needs a cycleRange to search")
        }
        return objective
    }

    static func offsetObjective(_ value: JSONValue?) throws -> OffsetObjective {
        guard let value else { return .standard }
        guard let name = value.stringValue, let objective = OffsetObjective(rawValue: name) else {
            throw ProcessInputError("offsetObjective", "must be band or delay")
        }
        return objective
    }

    static func comparedOffsets(_ value: JSONValue?) throws -> [Double]? {
        guard let value else { return nil }
        guard let list = value.arrayValue, case let offsets = list.compactMap(\.doubleValue), offsets.count == list.count,
              offsets.allSatisfy(\.isFinite) else {
            throw ProcessInputError("compareOffsets", "must be an array of offsets in seconds, one per signal, e.g. [0, 25.7, 51.4, 77.1]")
        }
        return offsets
    }

    public func check(_ r: Input, store: any FeatureStore, caller: Caller) async throws {
        guard case .stored(let id) = r.corridor else { return }
        _ = try await ProcessInputs.mapped { try await StoreSignalCorridor.load(id: id, from: store, by: caller) }
    }

    /// A corridor given inline reads no layer: it is coordinated without a store.
    public func check(_ r: Input, caller: Caller) async throws {
        guard case .inline = r.corridor else { throw SignalProcessInputs.storeNeeded("corridor", "stored corridors") }
    }

    public func run(_ r: Input, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        guard case .inline(let corridor) = r.corridor else { throw SignalProcessInputs.storeNeeded("corridor", "stored corridors") }
        let plan = try await SignalProcessInputs.blaming("corridor") {
            try await Self.plan(r, id: corridor.id, intersections: corridor.intersections, links: corridor.links,
                                inboundWeight: r.inboundWeight ?? corridor.inboundWeight, progress: progress)
        }
        try await progress.report(100)
        return try Self.answer(plan, written: [])
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        guard case .stored(let id) = r.corridor else { return try await run(r, caller: caller, progress: progress) }
        return try await SignalProcessInputs.mapped {
            let corridor = try await StoreSignalCorridor.load(id: id, from: store, by: caller)
            // Each intersection's flows and the period they stand for.
            var demands: [IntersectionDemand] = []
            var periods: [TimeOfDayPeriod] = []
            var reads: [SignalizedIntersection.Counts] = []
            for intersection in corridor.intersections {
                guard let range = r.period else {
                    demands.append(intersection.demand)
                    periods.append(TimeOfDayPeriod(name: "all-day", start: 0, end: 1440,
                                                   designFlows: intersection.demand.flowsByApproach, designHourStart: 0))
                    continue
                }
                let read = try await intersection.countsIfReadable(from: store, by: caller)
                let (counts, minutes) = (read.intervals, read.minutes)
                reads.append(read)
                let found = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: range,
                                                     settings: r.settings)[0]
                periods.append(found.period)
                demands.append(intersection.demand.with(flows: found.period.designFlows))
            }
            var plan = try await Self.plan(r, id: corridor.id, intersections: try corridor.coordinated(demands), links: corridor.links,
                                           inboundWeight: r.inboundWeight, progress: progress)
            for (i, read) in reads.enumerated() { read.mark(&plan.timings[i]) }
            var written: [JSONValue] = []
            if r.write {
                let features = corridor.intersections.indices.map { i in
                    SignalPlanLayer.feature(for: corridor.intersections[i], plan: TimeOfDayPlan(period: periods[i], timing: plan.timings[i]),
                                            corridor: corridor.id, method: r.offsetObjective == .delay ? "green-wave-delay" : "green-wave")
                }
                try await store.upsert(layer: SignalPlanLayer.layer, features: features, by: caller, at: nil)
                written = features.compactMap { $0.id.map { .string($0.description) } }
            }
            try await progress.report(100)
            return try Self.answer(plan, written: written)
        }
    }

    static func answer(_ plan: CorridorPlan, written: [JSONValue]) throws -> JSONValue {
        ["plan": try SignalProcessInputs.json(CorridorPlanReport(plan)),
         "diagram": .string(TimeSpaceDiagram.svg(corridor: plan.corridor, wave: plan.wave)), "written": .array(written)]
    }

    /// The corridor's plan under the request's objectives; an error about an input names it.
    static func plan(_ r: Input, id: String, intersections: [CorridorIntersection], links: [CorridorLink],
                     inboundWeight: Double?, progress: JobProgress) async throws -> CorridorPlan {
        do {
            // A searched range reports each cycle coordinated (a job's status; a dismissed job stops the search).
            return try await LatestProgress.run(reporting: progress) { report in
                try CorridorTiming.plan(id: id, intersections: intersections, links: links,
                                        settings: r.settings, inboundWeight: inboundWeight, cycleRange: r.cycleRange, cycleObjective: r.cycleObjective,
                                        offsetObjective: r.offsetObjective, comparedOffsets: r.comparedOffsets) { done, count in
                    try Task.checkCancellation()
                    report(WorkProgress(stage: "coordinated", completed: Double(done), total: Double(count), unit: "cycles").within(0.3...0.95))
                }
            }
        } catch let e as SignalTimingError where e.field == "cycle_range_s" {
            throw ProcessInputError("cycleRange", e.reason)
        } catch let e as SignalTimingError where e.field == "cycle_objective" {
            throw ProcessInputError("cycleObjective", e.reason)
        } catch let e as SignalTimingError where e.field.hasPrefix("compared_offsets_s") {
            throw ProcessInputError("compareOffsets", e.reason)
        }
    }
}
