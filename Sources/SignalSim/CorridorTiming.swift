/// A signalized intersection of a corridor: its demand and which of its approaches carry the
/// corridor's through traffic in each direction.
public struct CorridorIntersection: Sendable, Hashable, Codable {
    public var demand: IntersectionDemand
    /// The approach that outbound traffic (first signal → last) arrives on.
    public var outboundApproach: String
    /// The approach that inbound traffic arrives on.
    public var inboundApproach: String

    public init(demand: IntersectionDemand, outboundApproach: String, inboundApproach: String) {
        self.demand = demand
        self.outboundApproach = outboundApproach
        self.inboundApproach = inboundApproach
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case demand = "intersection"
        case outboundApproach = "outbound_approach"
        case inboundApproach = "inbound_approach"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        demand = try c.decode(IntersectionDemand.self, forKey: .demand)
        outboundApproach = try c.decode(String.self, forKey: .outboundApproach)
        inboundApproach = try c.decode(String.self, forKey: .inboundApproach)
    }
}

/// What a range of common cycles is searched for.
public enum CycleObjective: String, Sendable, Hashable, Codable, CaseIterable {
    /// MAXBAND's band efficiency (b + k·b̄)/C (Little, Kelson & Gartner 1981).
    case band
    /// The lowest mean control delay over the corridor's lane groups, its through traffic arriving
    /// from the upstream signals under each cycle's wave (`CorridorPlan.meanControlDelay`).
    case delay

    /// What a range is searched for when the caller does not say.
    public static let standard = CycleObjective.delay
}

/// How a corridor's offsets are set.
public enum OffsetObjective: String, Sendable, Hashable, Codable, CaseIterable {
    /// MAXBAND's widest weighted two-way band b + k·b̄ (`GreenWave.optimize`, exact).
    case band
    /// The lowest mean control delay over the corridor's lane groups (`CorridorPlan.meanControlDelay`),
    /// TRANSYT's hill climb from the band's offsets.
    case delay

    /// How offsets are set when the caller does not say: the widest band, as the issue and GB 50647's
    /// 干线协调 ask, drawn as a band a planner can check on the time–space diagram.
    public static let standard = OffsetObjective.band
}

/// A coordinated corridor plan: one common cycle, each intersection's stages split at it, and
/// offsets from the green wave.
public struct CorridorPlan: Sendable, Hashable, Codable {
    public var corridor: Corridor
    /// The common cycle (s): the longest Webster cycle of the corridor's intersections, or the
    /// cycle a searched range chose (`cycleObjective`).
    public var cycle: Double
    /// The intersection that needs the longest cycle.
    public var criticalIntersection: String
    /// That intersection's own Webster cycle (s): the shortest the corridor may run.
    public var criticalCycle: Double
    /// The range of common cycles searched (s), `nil` when the common cycle is the critical one.
    public var cycleRange: ClosedRange<Double>?
    /// What the range was searched for (`nil` without a range).
    public var cycleObjective: CycleObjective?
    /// What the offsets were set for; `wave` is the band they give either way.
    public var offsetObjective: OffsetObjective
    /// With offsets set for delay: the widest band's wave at the same cycle and the corridor's mean
    /// control delay under it, for the planner to weigh.
    public var atBandOffsets: Alternative?
    /// When a range chose a longer cycle than the critical one: the wave and the corridor's mean
    /// control delay at the critical cycle, for the planner to weigh against the chosen ones.
    public var atCriticalCycle: Alternative?
    /// When the wave is one-way and no range was searched: the wave at the shortest longer cycle
    /// (up to the maximum cycle) that carries both directions, for the planner to weigh.
    public var twoWayAlternative: Alternative?
    /// Each intersection's timing at the common cycle, its plan offset set from the wave.
    public var timings: [IntersectionTiming]
    public var wave: GreenWave
    /// What the corridor's through traffic waits at its signals in each direction (outbound,
    /// inbound) under these offsets, arrivals carried down from the upstream signal.
    public var directions: [DirectionDelay]
    /// The same plans run at offsets the caller gave (the ones the signals run now, or another
    /// tool's), for the wave to be weighed against; `nil` when none were given.
    public var atComparedOffsets: OffsetComparison?

    /// The corridor's plans evaluated at other offsets: what each direction and the whole corridor wait.
    public struct OffsetComparison: Sendable, Hashable, Codable {
        /// One offset per signal (s, the first stage's green start), as given.
        public var offsets: [Double]
        public var directions: [DirectionDelay]
        /// As `CorridorPlan.meanControlDelay`, at these offsets (s/veh).
        public var meanControlDelay: Double

        enum CodingKeys: String, CodingKey {
            case offsets = "offsets_s"
            case directions
            case meanControlDelay = "mean_control_delay_s"
        }
    }

    /// Another common cycle's wave and what the corridor's traffic would wait at it.
    public struct Alternative: Sendable, Hashable, Codable {
        public var wave: GreenWave
        /// Flow-weighted control delay over every lane group of the corridor (s/veh), as
        /// `CorridorPlan.meanControlDelay`.
        public var meanControlDelay: Double

        enum CodingKeys: String, CodingKey {
            case wave
            case meanControlDelay = "mean_control_delay_s"
        }
    }

    /// Flow-weighted control delay over every lane group of the corridor's intersections (s/veh):
    /// HCM's with random arrivals, except where the corridor's through traffic arrives from an
    /// upstream signal, whose delay under the offsets `directions` gives.
    public var meanControlDelay: Double { Self.meanControlDelay(timings, directions: directions) }

    static func meanControlDelay(_ timings: [IntersectionTiming], directions: [DirectionDelay]) -> Double {
        var progressed: [String: [String: Double]] = [:]
        for signal in directions.flatMap(\.signals) { progressed[signal.intersection, default: [:]][signal.approach] = signal.delay }
        var flow = 0.0, total = 0.0
        for timing in timings {
            for a in timing.approaches {
                flow += a.flow
                total += a.flow * (progressed[timing.intersection]?[a.id] ?? a.controlDelay)
            }
        }
        return flow > 0 ? total / flow : 0
    }

    /// What a planner should know before using the wave: a longer cycle's cost, one-way
    /// progression, and where a two-way one would be found.
    public var warnings: [String] {
        var warnings: [String] = []
        if let critical = atCriticalCycle, cycleObjective == .delay {
            warnings.append(String(format: "the common cycle of %.0f s is the shortest within %.1f s/veh of the lowest mean control delay of the range, %.1f s/veh against %.1f at the %.0f s %@ needs (bands %.0f s + %.0f s against %.0f s + %.0f s)",
                                   cycle, SignalTiming.cycleDelayTolerance, meanControlDelay, critical.meanControlDelay, criticalCycle, criticalIntersection,
                                   wave.outboundBandwidth, wave.inboundBandwidth, critical.wave.outboundBandwidth, critical.wave.inboundBandwidth))
        } else if let critical = atCriticalCycle {
            warnings.append(String(format: "the common cycle of %.0f s, the most efficient band of the range ((b + k·b̄)/C = %.3f against %.3f at the %.0f s %@ needs), raises the corridor's mean control delay from %.1f to %.1f s/veh (HCM, the corridor's through traffic arriving from the upstream signals under each wave's offsets)",
                                   cycle, wave.objective / cycle, critical.wave.objective / criticalCycle, criticalCycle, criticalIntersection,
                                   critical.meanControlDelay, meanControlDelay))
        }
        if let band = atBandOffsets {
            warnings.append(band.meanControlDelay - meanControlDelay < 0.05
                ? String(format: "offsets set for the corridor's lowest delay gain less than 0.05 s/veh over the widest band's (%.1f s/veh, bands %.0f s + %.0f s there): the band's offsets serve as well",
                         band.meanControlDelay, band.wave.outboundBandwidth, band.wave.inboundBandwidth)
                : String(format: "offsets set for the corridor's lowest delay: %.1f s/veh against %.1f s/veh at the widest band's offsets (bands %.0f s + %.0f s here against %.0f s + %.0f s)",
                         meanControlDelay, band.meanControlDelay, wave.outboundBandwidth, wave.inboundBandwidth,
                         band.wave.outboundBandwidth, band.wave.inboundBandwidth))
        }
        guard offsetObjective == .band, let note = wave.oneWayNote else { return warnings }
        warnings.append(note)
        guard let alternative = twoWayAlternative else { return warnings }
        return warnings + [String(format: "a two-way band first opens at a common cycle of %.0f s (outbound %.0f s, inbound %.0f s, against %.0f s + %.0f s at %.0f s), where the corridor's mean control delay would be %.1f s/veh against %.1f; a cycle range from %.0f s lets the corridor choose its cycle",
                             alternative.wave.cycle, alternative.wave.outboundBandwidth, alternative.wave.inboundBandwidth,
                             wave.outboundBandwidth, wave.inboundBandwidth, cycle, alternative.meanControlDelay, meanControlDelay, criticalCycle)]
    }

    enum CodingKeys: String, CodingKey {
        case corridor, timings, wave
        case cycle = "cycle_s"
        case criticalIntersection = "critical_intersection"
        case criticalCycle = "critical_cycle_s"
        case cycleRange = "cycle_range_s"
        case cycleObjective = "cycle_objective"
        case offsetObjective = "offset_objective"
        case atBandOffsets = "at_band_offsets"
        case twoWayAlternative = "two_way_alternative"
        case atCriticalCycle = "at_critical_cycle"
        case directions
        case atComparedOffsets = "at_compared_offsets"
    }
}

/// 干线协调: times every intersection of a corridor at the common cycle and sets offsets for the
/// widest weighted two-way green band (`GreenWave.optimize`) or for the corridor's lowest delay.
public enum CorridorTiming {
    /// The most signals one corridor coordinates: the band is exact up to 12 and its search beyond
    /// grows fast (2026-11-25, debug build: 24 signals 0.25 s, 32 signals 2.9 s, 64 signals 11 s; the
    /// delay offsets 11 s, 42 s and 131 s), and an arterial that long is coordinated in sections.
    public static let mostSignals = 32
    /// The weights k of b + k·b̄ a corridor may give its inbound band: 0 coordinates the outbound
    /// direction alone, 10 all but the inbound alone (a larger k changes no optimum over these bands).
    public static let inboundWeights: ClosedRange<Double> = 0...10

    /// - Parameters:
    ///   - links: `intersections.count − 1` links between consecutive intersections.
    ///   - inboundWeight: k of b + k·b̄, in `inboundWeights`; `nil` takes MAXBAND's ratio of inbound
    ///     to outbound through flow over the corridor (clamped to the same range).
    ///   - comparedOffsets: offsets (s, one per intersection) to evaluate the same plans at beside the
    ///     wave's, e.g. the ones the signals run now (`atComparedOffsets`).
    ///   - cycleRange: whole-second common cycles to search (from the critical intersection's
    ///     cycle at the least) for `cycleObjective`; `nil` runs the critical intersection's cycle.
    ///   - cycleObjective: what the range is searched for: the corridor's mean control delay under
    ///     each cycle's wave, the shortest cycle within `SignalTiming.cycleDelayTolerance` of the
    ///     lowest (the default; band efficiency chose cycles SUMO measured 3-5 s/veh worse,
    ///     Benchmarks/signals/corridor_cycle_objective.py), or band efficiency, ties to the shorter cycle.
    ///   - offsetObjective: the widest band (MAXBAND), or the lowest mean control delay found by
    ///     TRANSYT's hill climb from the band's offsets (`lowestDelayOffsets`).
    ///   - progress: called after each cycle of `cycleRange` is coordinated, with the cycles done
    ///     and their number (a range of 150 cycles with offsets for delay takes minutes on 12
    ///     signals); what it throws (a cancelled job) ends the search.
    /// - Throws: `SignalTimingError` naming the field (a corridor of one signal, an approach the
    ///   intersection does not have, a bad link, a cycle range below the critical cycle, a range
    ///   searched for the band's efficiency with offsets set for delay, which would not keep that band).
    public static func plan(id: String, intersections: [CorridorIntersection], links: [CorridorLink],
                            settings: SignalTimingSettings = SignalTimingSettings(), inboundWeight: Double? = nil,
                            cycleRange: ClosedRange<Double>? = nil, cycleObjective: CycleObjective = .standard,
                            offsetObjective: OffsetObjective = .standard, comparedOffsets: [Double]? = nil,
                            progress: ((_ cyclesDone: Int, _ cycles: Int) throws -> Void)? = nil) throws -> CorridorPlan {
        guard intersections.count >= 2 else {
            throw SignalTimingError(field: "intersections", "a corridor needs at least two signals to coordinate (got \(intersections.count))")
        }
        guard intersections.count <= mostSignals else {
            throw SignalTimingError(field: "intersections", "a corridor has at most \(mostSignals) signals (got \(intersections.count)); coordinate a longer arterial as consecutive corridors")
        }
        for (i, x) in intersections.enumerated() {
            let ids = Set(x.demand.approaches.map(\.id))
            guard ids.contains(x.outboundApproach) else {
                throw SignalTimingError(field: "intersections[\(i)].outbound_approach", "intersection \(x.demand.id) has no approach '\(x.outboundApproach)'")
            }
            guard ids.contains(x.inboundApproach) else {
                throw SignalTimingError(field: "intersections[\(i)].inbound_approach", "intersection \(x.demand.id) has no approach '\(x.inboundApproach)'")
            }
        }
        if let inboundWeight, !(inboundWeight.isFinite && inboundWeights.contains(inboundWeight)) {
            throw SignalTimingError(field: "inbound_weight", "must be a number from \(Int(inboundWeights.lowerBound)) to \(Int(inboundWeights.upperBound)) (got \(inboundWeight))")
        }
        if cycleRange != nil, cycleObjective == .band, offsetObjective == .delay {
            throw SignalTimingError(field: "cycle_objective", "band chooses the cycle whose widest band is the most efficient, but offsets set for delay do not keep that band: search the range for delay (the default), or keep the band's offsets")
        }
        if let comparedOffsets {
            guard comparedOffsets.count == intersections.count else {
                throw SignalTimingError(field: "compared_offsets_s", "needs one offset per signal (\(intersections.count)), got \(comparedOffsets.count)")
            }
            if let bad = comparedOffsets.firstIndex(where: { !$0.isFinite }) {
                throw SignalTimingError(field: "compared_offsets_s[\(bad)]", "must be a number of seconds")
            }
        }
        let own = try intersections.map { try SignalTiming.webster($0.demand, settings: settings) }
        let critical = own.indices.max { own[$0].cycle < own[$1].cycle }!
        let criticalCycle = own[critical].cycle
        let k = inboundWeight ?? {
            let out = intersections.reduce(0) { $0 + throughFlow(of: $1.outboundApproach, in: $1.demand) }
            let back = intersections.reduce(0) { $0 + throughFlow(of: $1.inboundApproach, in: $1.demand) }
            return out > 0 ? min(back / out, inboundWeights.upperBound) : 1
        }()
        typealias Coordinated = (timings: [IntersectionTiming], corridor: Corridor, wave: GreenWave, directions: [DirectionDelay],
                                 atBand: CorridorPlan.Alternative?)
        func coordinated(at cycle: Double) throws -> Coordinated {
            var fixed = settings
            fixed.minimumCycle = cycle
            fixed.maximumCycle = cycle
            var timings = try intersections.map { x -> IntersectionTiming in
                var t = try SignalTiming.webster(x.demand, settings: fixed)
                t.warnings.removeAll { $0.code == .cycleAtMaximum }
                return t
            }
            // The corridor as the wave sees it: through greens and where each starts in the cycle.
            var signals: [CorridorSignal] = []
            var outboundStart: [Double] = []
            for (i, x) in intersections.enumerated() {
                let plan = timings[i].plan
                let (os, og) = plan.greenWindow(of: x.outboundApproach)
                let (ins, ig) = plan.greenWindow(of: x.inboundApproach)
                signals.append(CorridorSignal(id: x.demand.id, outboundGreen: og, inboundGreen: ig, inboundGreenShift: ins - os))
                outboundStart.append(os)
            }
            let corridor = Corridor(id: id, signals: signals, links: links)
            let wave = try GreenWave.optimize(corridor, cycle: cycle, inboundWeight: k)
            for i in timings.indices {
                // The plan's offset is the start of its first stage: outbound green start minus where it sits in the cycle.
                timings[i].plan.offset = mod(wave.offsets[i] - outboundStart[i], cycle)
            }
            let directions = progression(intersections: intersections, links: links, timings: timings)
            guard offsetObjective == .delay else { return (timings, corridor, wave, directions, nil) }
            let band = CorridorPlan.Alternative(wave: wave, meanControlDelay: CorridorPlan.meanControlDelay(timings, directions: directions))
            let lowest = lowestDelayOffsets(intersections: intersections, links: links, timings: timings)
            let at = try GreenWave.at(corridor, cycle: cycle, inboundWeight: k,
                                      offsets: lowest.timings.indices.map { lowest.timings[$0].plan.offset + outboundStart[$0] })
            return (lowest.timings, corridor, at, lowest.directions, band)
        }
        let chosen: Coordinated
        var twoWayAlternative: CorridorPlan.Alternative?
        var atCriticalCycle: CorridorPlan.Alternative?
        if let range = cycleRange {
            guard range.lowerBound.isFinite, range.upperBound.isFinite, range.lowerBound > 0 else {
                throw SignalTimingError(field: "cycle_range_s", "must be two positive numbers of seconds, the shorter first")
            }
            guard range.upperBound >= criticalCycle else {
                throw SignalTimingError(field: "cycle_range_s", String(format: "ends at %.0f s, below the %.0f s that %@ needs (its own Webster cycle); the common cycle cannot be shorter",
                                                                     range.upperBound, criticalCycle, intersections[critical].demand.id))
            }
            guard range.upperBound <= settings.maximumCycle else {
                throw SignalTimingError(field: "cycle_range_s", String(format: "ends at %.0f s, above the maximum cycle of %.0f s", range.upperBound, settings.maximumCycle))
            }
            // Each candidate is coordinated once, shortest first; the chosen one (and the critical
            // cycle, if it was one) is kept.
            var candidates: [(result: Coordinated, score: Double)] = []
            var atCritical: Coordinated?
            var c = max(range.lowerBound.rounded(.up), criticalCycle)
            let count = max(0, Int((range.upperBound - c).rounded(.down)) + 1)
            while c <= range.upperBound {
                try progress?(candidates.count, count)
                let candidate = try coordinated(at: c)
                if c == criticalCycle { atCritical = candidate }
                let score = switch cycleObjective {
                case .band: candidate.wave.objective / c
                case .delay: -CorridorPlan.meanControlDelay(candidate.timings, directions: candidate.directions)
                }
                candidates.append((candidate, score))
                c += 1
            }
            try progress?(candidates.count, count)
            // Band: the most efficient, ties to the shorter. Delay: the shortest cycle within the
            // tolerance of the lowest, so a longer cycle is run only for a gain the model can tell.
            let top = candidates.map(\.score).max() ?? 0
            let slack = cycleObjective == .delay ? SignalTiming.cycleDelayTolerance : 1e-9
            chosen = try candidates.first { $0.score >= top - slack }?.result ?? coordinated(at: criticalCycle)
            if chosen.wave.cycle != criticalCycle {
                let critical = try atCritical ?? coordinated(at: criticalCycle)
                atCriticalCycle = .init(wave: critical.wave, meanControlDelay: CorridorPlan.meanControlDelay(critical.timings, directions: critical.directions))
            }
        } else {
            chosen = try coordinated(at: criticalCycle)
        }
        if cycleRange == nil, offsetObjective == .band, chosen.wave.progression != .twoWay {
            var c = chosen.wave.cycle + 1
            while c <= settings.maximumCycle, twoWayAlternative == nil {
                let candidate = try coordinated(at: c)
                if candidate.wave.progression == .twoWay {
                    twoWayAlternative = .init(wave: candidate.wave, meanControlDelay: CorridorPlan.meanControlDelay(candidate.timings, directions: candidate.directions))
                }
                c += 1
            }
        }
        let compared = comparedOffsets.map { offsets -> CorridorPlan.OffsetComparison in
            var timings = chosen.timings
            for i in timings.indices { timings[i].plan.offset = mod(offsets[i], chosen.wave.cycle) }
            let directions = progression(intersections: intersections, links: links, timings: timings)
            return .init(offsets: offsets, directions: directions,
                         meanControlDelay: CorridorPlan.meanControlDelay(timings, directions: directions))
        }
        return CorridorPlan(corridor: chosen.corridor, cycle: chosen.wave.cycle, criticalIntersection: intersections[critical].demand.id,
                            criticalCycle: criticalCycle, cycleRange: cycleRange, cycleObjective: cycleRange == nil ? nil : cycleObjective,
                            offsetObjective: offsetObjective, atBandOffsets: chosen.atBand, atCriticalCycle: atCriticalCycle,
                            twoWayAlternative: twoWayAlternative,
                            timings: chosen.timings, wave: chosen.wave, directions: chosen.directions, atComparedOffsets: compared)
    }

    static func throughFlow(of approach: String, in demand: IntersectionDemand) -> Double {
        demand.approaches.first { $0.id == approach }?.flows.through ?? 0
    }
}

/// A corridor as JSON: the intersections in order with their coordinated approaches and the links.
public struct CorridorInput: Sendable, Hashable, Decodable {
    public var id: String
    public var intersections: [CorridorIntersection]
    public var links: [CorridorLink]
    public var inboundWeight: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, intersections, links
        case inboundWeight = "inbound_weight"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        intersections = try c.decode([CorridorIntersection].self, forKey: .intersections)
        links = try c.decode([CorridorLink].self, forKey: .links)
        inboundWeight = try c.decodeIfPresent(Double.self, forKey: .inboundWeight)
    }
}
