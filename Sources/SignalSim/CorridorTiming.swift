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

    enum CodingKeys: String, CodingKey {
        case demand = "intersection"
        case outboundApproach = "outbound_approach"
        case inboundApproach = "inbound_approach"
    }
}

/// A coordinated corridor plan: one common cycle, each intersection's stages split at it, and
/// offsets from the green wave.
public struct CorridorPlan: Sendable, Hashable, Codable {
    public var corridor: Corridor
    /// The common cycle (s): the longest Webster cycle of the corridor's intersections.
    public var cycle: Double
    /// The intersection that needs that cycle.
    public var criticalIntersection: String
    /// Each intersection's timing at the common cycle, its plan offset set from the wave.
    public var timings: [IntersectionTiming]
    public var wave: GreenWave

    enum CodingKeys: String, CodingKey {
        case corridor, timings, wave
        case cycle = "cycle_s"
        case criticalIntersection = "critical_intersection"
    }
}

/// 干线协调: times every intersection of a corridor at the common cycle and sets offsets for the
/// widest weighted two-way green band (`GreenWave.optimize`).
public enum CorridorTiming {
    /// - Parameters:
    ///   - links: `intersections.count − 1` links between consecutive intersections.
    ///   - inboundWeight: k of b + k·b̄; `nil` takes MAXBAND's ratio of inbound to outbound
    ///     through flow over the corridor.
    /// - Throws: `SignalTimingError` naming the field (a corridor of one signal, an approach the
    ///   intersection does not have, a bad link).
    public static func plan(id: String, intersections: [CorridorIntersection], links: [CorridorLink],
                            settings: SignalTimingSettings = SignalTimingSettings(), inboundWeight: Double? = nil) throws -> CorridorPlan {
        guard intersections.count >= 2 else {
            throw SignalTimingError(field: "intersections", "a corridor needs at least two signals to coordinate (got \(intersections.count))")
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
        let own = try intersections.map { try SignalTiming.webster($0.demand, settings: settings) }
        let critical = own.indices.max { own[$0].cycle < own[$1].cycle }!
        let cycle = own[critical].cycle
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
            let (os, og) = window(of: x.outboundApproach, in: plan)
            let (ins, ig) = window(of: x.inboundApproach, in: plan)
            signals.append(CorridorSignal(id: x.demand.id, outboundGreen: og, inboundGreen: ig, inboundGreenShift: ins - os))
            outboundStart.append(os)
        }
        let corridor = Corridor(id: id, signals: signals, links: links)
        let k = inboundWeight ?? {
            let out = intersections.reduce(0) { $0 + throughFlow(of: $1.outboundApproach, in: $1.demand) }
            let back = intersections.reduce(0) { $0 + throughFlow(of: $1.inboundApproach, in: $1.demand) }
            return out > 0 ? back / out : 1
        }()
        let wave = try GreenWave.optimize(corridor, cycle: cycle, inboundWeight: k)
        for i in timings.indices {
            // The plan's offset is the start of its first stage: outbound green start minus where it sits in the cycle.
            timings[i].plan.offset = mod(wave.offsets[i] - outboundStart[i], cycle)
        }
        return CorridorPlan(corridor: corridor, cycle: cycle, criticalIntersection: intersections[critical].demand.id,
                            timings: timings, wave: wave)
    }

    /// Start within the cycle (s after the first stage's green starts) and length of the displayed
    /// green that `approach` runs in.
    static func window(of approach: String, in plan: SignalPlan) -> (start: Double, green: Double) {
        var start = 0.0
        for stage in plan.stages {
            if stage.approaches.contains(approach) { return (start, stage.green) }
            start += stage.duration
        }
        return (0, 0)
    }

    static func throughFlow(of approach: String, in demand: IntersectionDemand) -> Double {
        demand.approaches.first { $0.id == approach }?.flows.through ?? 0
    }
}
