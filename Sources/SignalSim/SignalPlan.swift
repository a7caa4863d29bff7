/// One stage (相位阶段) of a plan as a controller runs it: displayed green, then amber, then
/// all-red (seconds).
public struct StageTiming: Sendable, Hashable, Codable {
    /// The approaches that have green in this stage.
    public var approaches: [String]
    public var green: Double
    public var amber: Double
    public var allRed: Double

    public init(approaches: [String], green: Double, amber: Double, allRed: Double) {
        self.approaches = approaches
        self.green = green
        self.amber = amber
        self.allRed = allRed
    }

    /// Green + amber + all-red (s).
    public var duration: Double { green + amber + allRed }

    enum CodingKeys: String, CodingKey {
        case approaches
        case green = "green_s"
        case amber = "amber_s"
        case allRed = "all_red_s"
    }
}

/// A fixed-time signal plan (配时方案): the stage chain with its times and the offset (相位差) of
/// the first stage's green start against the corridor or system reference (s).
public struct SignalPlan: Sendable, Hashable, Codable {
    public var stages: [StageTiming]
    public var offset: Double

    public init(stages: [StageTiming], offset: Double = 0) {
        self.stages = stages
        self.offset = offset
    }

    /// The cycle (周期), Σ(green + amber + all-red) (s).
    public var cycle: Double { stages.reduce(0) { $0 + $1.duration } }

    enum CodingKeys: String, CodingKey {
        case stages
        case offset = "offset_s"
    }
}

/// Level of service by control delay (HCM): A ≤ 10, B ≤ 20, C ≤ 35, D ≤ 55, E ≤ 80 s/veh,
/// F above 80 s/veh or a degree of saturation above 1.
public enum LevelOfService: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case a = "A", b = "B", c = "C", d = "D", e = "E", f = "F"

    public init(controlDelay: Double, degreeOfSaturation: Double) {
        if degreeOfSaturation > 1 || !(controlDelay <= 80) { self = .f }
        else if controlDelay <= 10 { self = .a }
        else if controlDelay <= 20 { self = .b }
        else if controlDelay <= 35 { self = .c }
        else if controlDelay <= 55 { self = .d }
        else { self = .e }
    }

    /// Pedestrians' level of service at a signalised crossing by their mean delay (HCM 2000
    /// Exhibit 18-9): A < 10, B ≤ 20, C ≤ 30, D ≤ 40, E ≤ 60, F beyond (s/ped). From D on,
    /// pedestrians grow likely to cross against the signal.
    public init(pedestrianDelay d: Double) {
        if !(d <= 60) { self = .f }
        else if d < 10 { self = .a }
        else if d <= 20 { self = .b }
        else if d <= 30 { self = .c }
        else if d <= 40 { self = .d }
        else { self = .e }
    }

    public static func < (l: LevelOfService, r: LevelOfService) -> Bool { l.rawValue < r.rawValue }
}

/// How pedestrians fare at one crossing under a plan (HCM 2000 ch. 18): arriving at random, they
/// wait through the red of the stage they walk in.
public struct CrossingPerformance: Sendable, Hashable, Codable {
    public var id: String
    /// The stage (0-based) it is walked in.
    public var stage: Int
    /// The pedestrians' green: their stage's displayed green (s).
    public var green: Double
    /// Mean delay to start walking, d_p = (C − g)² / (2C) (s/ped).
    public var delay: Double
    /// The longest wait at the kerb, a whole red C − g (s).
    public var longestWait: Double
    /// With a refuge island and a green too short to walk the whole crossing: the red a pedestrian
    /// who starts late waits on the island before walking the rest (s); nil otherwise.
    public var islandWait: Double?
    /// Pedestrians' level of service by `delay`.
    public var levelOfService: LevelOfService
}

/// How one approach performs under a plan.
public struct ApproachPerformance: Sendable, Hashable, Codable {
    public var id: String
    /// Arriving flow q (veh/h).
    public var flow: Double
    /// Saturation flow s of the whole approach (veh/h).
    public var saturationFlow: Double
    /// y = q/s.
    public var flowRatio: Double
    /// Effective green g = G + A − Ls (s).
    public var effectiveGreen: Double
    /// Capacity c = s·g/C (veh/h).
    public var capacity: Double
    /// Degree of saturation x = q/c (饱和度).
    public var degreeOfSaturation: Double
    /// Webster's average delay (s/veh); `nil` at x ≥ 1, where the formula does not hold.
    public var websterDelay: Double?
    /// HCM 2000 uniform delay d₁ (s/veh).
    public var uniformDelay: Double
    /// HCM 2000 incremental delay d₂ (s/veh) over the analysis period.
    public var incrementalDelay: Double
    /// Control delay d₁ + d₂ (s/veh): what the level of service is read from.
    public var controlDelay: Double
    /// Back of queue at the end of red, uniform part plus Akçelik's overflow queue (veh, whole approach).
    public var queue: Double
    /// Lanes the group's flow shares.
    public var lanes: Int
    /// The group's storage (m, a turn bay's length) when its demand gives one.
    public var storage: Double? = nil
    /// The site factors its saturation flow was lowered by, each given condition's
    /// (`LaneGroupConditions.factors`: lane_width, grade, heavy_vehicles, buses_stopping).
    public var saturationFactors: [String: Double]? = nil
    /// `true` for a free right turn (in no stage) or an approach green in every stage (`StageChain.alwaysGreen`):
    /// its figures are those of a movement the signal never stops.
    public var uncontrolled: Bool? = nil
    /// Stops per arriving vehicle (Akçelik, 0.9 for partial stops); `nil` when y ≥ 1.
    public var stopsPerVehicle: Double?
    public var levelOfService: LevelOfService

    /// The 95th percentile of a cycle's back of queue in one lane (veh/lane): the vehicles that stop
    /// before the queue clears (`SignalTiming.backOfQueuePercentile`, the group's queue shared by its
    /// lanes), the design figure for a lane's storage. `nil` at x ≥ 1, where the queue does not clear
    /// (the `over-capacity` warning says so). Computed when read: plans are searched without it.
    public var backOfQueue95: Double? {
        guard degreeOfSaturation < 1 else { return nil }
        return SignalTiming.backOfQueuePercentile(0.95, startingQueue: queuePerLane, flowRatio: flowRatio)
    }

    /// The probability that a cycle's back of queue in one lane exceeds `vehicles` (the distribution
    /// of `backOfQueue95`); `nil` at x ≥ 1.
    public func backOfQueueExceedance(_ vehicles: Int) -> Double? {
        guard degreeOfSaturation < 1 else { return nil }
        return SignalTiming.backOfQueueExceedance(vehicles, startingQueue: queuePerLane, flowRatio: flowRatio)
    }

    /// `queue` shared by the group's lanes.
    var queuePerLane: Double { queue / Double(max(1, lanes)) }
}

/// A warning that comes with a plan: the plan is still the best one for the input, but an
/// engineer must look at it.
public struct SignalTimingWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// Y > 0.9: GB 50647-2011 §8.5.4 asks for the approach lanes or the phasing to be redesigned.
        case redesign
        /// Y ≥ 1: no cycle can serve the flows; the plan runs at the maximum cycle.
        case oversaturated
        /// Webster's cycle was above the maximum and was clamped to it.
        case cycleAtMaximum = "cycle-at-maximum"
        /// A minimum green (vehicle or pedestrian) set a stage's green above its flow share.
        case minimumGreen = "minimum-green"
        /// An approach with flow > 0 runs above capacity (x > 1) under this plan.
        case overCapacity = "over-capacity"
        /// An approach turns left through opposing traffic in its stage: the delay predicted for it
        /// is known to run well below what simulation measures (a marked answer, not a confident one).
        /// Lefts protected in another of their stages (保护-许可左转) are marked too, with what SUMO
        /// measured of those, which is much closer.
        case permittedLeft = "permitted-left"
        /// A lane group's 95th-percentile back of queue is longer than its storage (`storage_m`, a
        /// turn bay's length): the queue spills back past the bay and blocks the lanes beside it.
        case queueStorage = "queue-storage"
        /// The queue of a lane group beside a turn bay reaches past where the bay opens: the bay's
        /// vehicles cannot reach it and wait in the other group's lanes.
        case bayBlocked = "bay-blocked"
        /// An approach turns left in a stage it shares with traffic from an approach whose arm (or
        /// its own) is not known: whether the lefts cross that traffic cannot be told, and they are
        /// timed as unopposed (a marked answer).
        case armUnknown = "arm-unknown"
        /// An approach's movement leaves by the same arm as the traffic of an approach that is green
        /// in every stage (常绿) and never stops: it merges into that traffic and yields to it, and the
        /// wait is not in its delay (a marked answer).
        case mergesIntoAlwaysGreen = "merges-into-always-green"
        /// Intervals of the day of counts the plan was timed from were left out because some approach
        /// was not counted in them (a detector that sent nothing): the plan covers the other intervals.
        case countsIncomplete = "counts-incomplete"
    }

    public var code: Code
    public var message: String
    /// The approach (lane group) the warning is about, when it is about one (`over-capacity`,
    /// `permitted-left`, `queue-storage`, `bay-blocked`: the bay): a client can mark that approach's figures without reading the message.
    public var approach: String?
    /// Other lane groups whose figures the warning's blocking changes, which their own delay leaves
    /// out: for `queue-storage`, the lanes beside the bay its queue spills into; for `bay-blocked`,
    /// the group whose lanes the bay's vehicles wait in. `nil` when there are none.
    public var affects: [String]?

    public init(_ code: Code, _ message: String, approach: String? = nil, affects: [String]? = nil) {
        self.code = code
        self.message = message
        self.approach = approach
        self.affects = affects.flatMap { $0.isEmpty ? nil : $0 }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// A plan with everything it was computed from and how it performs: the report a traffic
/// engineer checks before approving it (its own check: Y, x and delay per approach).
public struct IntersectionTiming: Sendable, Hashable, Codable {
    public var intersection: String
    /// `webster`, `evaluated` (a given plan), `webster-retiming` or `saturation-balancing`.
    public var method: String
    public var plan: SignalPlan
    /// Total lost time L = Σ(Ls + all-red) (s).
    public var lostTime: Double
    /// Y = Σ critical flow ratios.
    public var flowRatioSum: Double
    /// Webster's optimum cycle C₀ = (1.5L + 5)/(1 − Y) before bounds and rounding; `nil` when Y ≥ 1.
    public var websterCycle: Double?
    /// The approach that sets each stage's flow ratio, by stage.
    public var criticalApproaches: [String]
    public var approaches: [ApproachPerformance]
    /// Pedestrian delay at each crossing, in `IntersectionDemand.crossings` order.
    public var crossings: [CrossingPerformance] = []
    public var warnings: [SignalTimingWarning]

    /// The cycle the plan runs (s).
    public var cycle: Double { plan.cycle }

    /// Flow-weighted mean control delay over all approaches (s/veh).
    public var meanControlDelay: Double {
        let flow = approaches.reduce(0) { $0 + $1.flow }
        guard flow > 0 else { return 0 }
        return approaches.reduce(0) { $0 + $1.controlDelay * $1.flow } / flow
    }
}
