import Foundation

/// Hourly flows of one approach by movement, in vehicles per hour (veh/h; passenger-car
/// equivalents if the counts were converted).
public struct MovementFlows: Sendable, Hashable, Codable {
    public var through: Double
    public var left: Double
    public var right: Double

    public init(through: Double = 0, left: Double = 0, right: Double = 0) {
        self.through = through
        self.left = left
        self.right = right
    }

    /// All movements together (veh/h).
    public var total: Double { through + left + right }

    /// The movements with flow, named as in the JSON (through, left, right).
    public var flowing: [String] {
        [("through", through), ("left", left), ("right", right)].filter { $0.1 > 0 }.map(\.0)
    }

    /// These flows multiplied by `factor` (e.g. 4 to turn a 15-minute count into an hourly rate).
    public func scaled(by factor: Double) -> MovementFlows {
        MovementFlows(through: through * factor, left: left * factor, right: right * factor)
    }

    public static func + (a: MovementFlows, b: MovementFlows) -> MovementFlows {
        MovementFlows(through: a.through + b.through, left: a.left + b.left, right: a.right + b.right)
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case through, left, right }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        through = try c.decodeIfPresent(Double.self, forKey: .through) ?? 0
        left = try c.decodeIfPresent(Double.self, forKey: .left) ?? 0
        right = try c.decodeIfPresent(Double.self, forKey: .right) ?? 0
    }
}

/// One approach (进口道) of a signalized intersection, timed as one lane group: its lanes, their
/// saturation flow and the flows arriving on it.
public struct ApproachDemand: Sendable, Hashable, Codable {
    /// The approach id the stages name, e.g. `N` or `RD-0153-W`.
    public var id: String
    /// Lanes at the stop line (≥ 1).
    public var lanes: Int
    /// What a lane of this group's through traffic discharges (veh/h/lane; GB 50647's basic
    /// saturation flow, HCM's s₀), measured or designed; `nil` takes the intersection's base.
    /// Its turns are discounted from it as from the base: left and right turn factors, and the
    /// permitted-left equivalent of the opposing flow in their stage (which changes with the
    /// period's flows, so no one measured figure of a shared lane could carry it).
    public var saturationPerLane: Double?
    public var flows: MovementFlows
    /// The compass arm (N, S, E or W) its traffic arrives from, when the id is not one: a left turn
    /// in the same stage as through or right traffic from the opposite arm is permitted (it turns
    /// through gaps in that traffic) and its saturation flow follows the opposing flow
    /// (`SaturationFlowDefaults.permittedLeftEquivalent`). `nil` with an id of N, S, E or W takes
    /// the id; any other arm is opposed by nothing.
    public var arm: String?
    /// The storage of a turn bay or short lane (m): how far back from the stop line its lanes run
    /// before they open from the road; `nil` when they run the whole approach. A plan warns
    /// (`queue-storage`) when the 95th-percentile back of queue is longer.
    public var storage: Double?
    /// What the site does to the group's saturation flow (lane width, grade, heavy vehicles, buses
    /// stopping): factors on its base, `nil` fields a factor of 1.
    public var conditions: LaneGroupConditions

    public init(id: String, lanes: Int, saturationPerLane: Double? = nil, flows: MovementFlows, arm: String? = nil,
                storage: Double? = nil, conditions: LaneGroupConditions = LaneGroupConditions()) {
        self.id = id
        self.lanes = lanes
        self.saturationPerLane = saturationPerLane
        self.flows = flows
        self.arm = arm
        self.storage = storage
        self.conditions = conditions
    }

    /// `arm`, or the id when that is a compass arm.
    public var compassArm: String? { arm ?? (["N", "S", "E", "W"].contains(id) ? id : nil) }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, lanes, arm
        case saturationPerLane = "saturation_veh_h_lane"
        case flows = "flows_veh_h"
        case storage = "storage_m"
        case laneWidth = "lane_width_m"
        case grade = "grade_pct"
        case heavyVehicles = "heavy_vehicles_pct"
        case busesStopping = "buses_stopping_veh_h"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        lanes = try c.decode(Int.self, forKey: .lanes)
        saturationPerLane = try c.decodeIfPresent(Double.self, forKey: .saturationPerLane)
        flows = try c.decode(MovementFlows.self, forKey: .flows)
        arm = try c.decodeIfPresent(String.self, forKey: .arm)
        storage = try c.decodeIfPresent(Double.self, forKey: .storage)
        conditions = LaneGroupConditions(laneWidth: try c.decodeIfPresent(Double.self, forKey: .laneWidth),
                                         grade: try c.decodeIfPresent(Double.self, forKey: .grade),
                                         heavyVehicles: try c.decodeIfPresent(Double.self, forKey: .heavyVehicles),
                                         busesStopping: try c.decodeIfPresent(Double.self, forKey: .busesStopping))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(lanes, forKey: .lanes)
        try c.encodeIfPresent(saturationPerLane, forKey: .saturationPerLane)
        try c.encode(flows, forKey: .flows)
        try c.encodeIfPresent(arm, forKey: .arm)
        try c.encodeIfPresent(storage, forKey: .storage)
        try c.encodeIfPresent(conditions.laneWidth, forKey: .laneWidth)
        try c.encodeIfPresent(conditions.grade, forKey: .grade)
        try c.encodeIfPresent(conditions.heavyVehicles, forKey: .heavyVehicles)
        try c.encodeIfPresent(conditions.busesStopping, forKey: .busesStopping)
    }
}

/// The site conditions of a lane group that lower its saturation flow below the base of a
/// through lane, each a factor on it (HCM 2000's s = s₀·N·f_w·f_HV·f_g·f_bb·…, GB 50647
/// Appendix B's corrections); a condition not given is a factor of 1. Leave them out where the
/// group's `saturation_veh_h_lane` was measured on its own lanes: that figure already has them.
public struct LaneGroupConditions: Sendable, Hashable {
    /// Mean lane width (m). GB 50647's correction: 1 for lanes of 3.0–3.5 m (the design lane the
    /// base describes), 0.4·(W − 0.5) from 2.7 m up to 3.0 m, 0.05·(W + 16.5) above 3.5 m.
    public var laneWidth: Double?
    /// Grade of the approach (%; uphill positive). HCM 2000: f_g = 1 − G/200.
    public var grade: Double?
    /// Heavy vehicles (trucks, buses) in the group's traffic (% of vehicles). HCM 2000:
    /// f_HV = 100/(100 + P_HV·(E_T − 1)) with a heavy vehicle worth E_T = 2 cars.
    public var heavyVehicles: Double?
    /// Buses stopping at a stop within 75 m of the stop line, on either side (buses/h). HCM 2000:
    /// f_bb = (N − 14.4·N_B/3600)/N over the group's N lanes, each bus blocking a lane 14.4 s.
    public var busesStopping: Double?

    public init(laneWidth: Double? = nil, grade: Double? = nil, heavyVehicles: Double? = nil, busesStopping: Double? = nil) {
        self.laneWidth = laneWidth
        self.grade = grade
        self.heavyVehicles = heavyVehicles
        self.busesStopping = busesStopping
    }

    /// The narrowest and widest lanes the width correction covers (m): narrower is no design lane,
    /// and wider is used as two at the stop line (give it as two lanes).
    public static let laneWidths = 2.7...4.5
    /// HCM 2000's range of the grade factor (%).
    public static let grades = -6.0...10.0
    /// HCM 2000's range of the bus blockage factor (buses/h).
    public static let mostBusesStopping = 250.0
    /// Seconds a stopping bus blocks its lane (HCM 2000).
    public static let busBlockage = 14.4
    public static let leastBusBlockageFactor = 0.05
    /// Cars a heavy vehicle is worth (HCM 2000's E_T).
    public static let heavyVehicleEquivalent = 2.0

    /// GB 50647's lane-width correction.
    public var laneWidthFactor: Double {
        guard let w = laneWidth else { return 1 }
        if w < 3.0 { return 0.4 * (w - 0.5) }
        if w > 3.5 { return 0.05 * (w + 16.5) }
        return 1
    }

    public var gradeFactor: Double { 1 - (grade ?? 0) / 200 }

    public var heavyVehicleFactor: Double { 100 / (100 + (heavyVehicles ?? 0) * (Self.heavyVehicleEquivalent - 1)) }

    /// The bus blockage factor of a group of `lanes` lanes, at least HCM's 0.05 (250 buses an hour
    /// would otherwise close a one-lane group).
    public func busBlockageFactor(lanes: Int) -> Double {
        let n = Double(max(1, lanes))
        return max(Self.leastBusBlockageFactor, (n - Self.busBlockage * (busesStopping ?? 0) / 3600) / n)
    }

    /// All factors together for a group of `lanes` lanes, multiplied in their one order, so a plan
    /// is the same to the last bit on every run (a dictionary's order is not).
    public func factor(lanes: Int) -> Double {
        orderedFactors(lanes: lanes).reduce(1) { $0 * $1.factor }
    }

    /// The factors given, by name (lane_width, grade, heavy_vehicles, buses_stopping), for a report.
    public func factors(lanes: Int) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: orderedFactors(lanes: lanes))
    }

    /// The factors given, by name, in one order: width, grade, heavy vehicles, buses.
    func orderedFactors(lanes: Int) -> [(name: String, factor: Double)] {
        [laneWidth.map { _ in ("lane_width", laneWidthFactor) }, grade.map { _ in ("grade", gradeFactor) },
         heavyVehicles.map { _ in ("heavy_vehicles", heavyVehicleFactor) },
         busesStopping.map { _ in ("buses_stopping", busBlockageFactor(lanes: lanes)) }].compactMap { $0 }
    }

    /// Checks each given condition is in its range; `path` names the lane group (e.g. `approaches[2]`).
    public func validate(_ path: String) throws {
        if let w = laneWidth, !(w.isFinite && Self.laneWidths.contains(w)) {
            throw SignalTimingError(field: path + ".lane_width_m", "must be \(Self.laneWidths.lowerBound) to \(Self.laneWidths.upperBound) m (got \(w)): GB 50647's correction covers those; a wider lane is used as two at the stop line, so give it as two lanes")
        }
        if let g = grade, !(g.isFinite && Self.grades.contains(g)) {
            throw SignalTimingError(field: path + ".grade_pct", "must be \(Int(Self.grades.lowerBound)) to \(Int(Self.grades.upperBound)) % (uphill positive; got \(g)), the range of HCM's grade factor")
        }
        if let p = heavyVehicles, !(p.isFinite && p >= 0 && p <= 100) {
            throw SignalTimingError(field: path + ".heavy_vehicles_pct", "must be a share of the vehicles from 0 to 100 % (got \(p))")
        }
        if let b = busesStopping, !(b.isFinite && b >= 0 && b <= Self.mostBusesStopping) {
            throw SignalTimingError(field: path + ".buses_stopping_veh_h", "must be 0 to \(Int(Self.mostBusesStopping)) buses an hour (got \(b)), the range of HCM's bus blockage factor")
        }
    }
}

/// A pedestrian crossing (人行横道) walked during one stage.
public struct PedestrianCrossing: Sendable, Hashable, Codable {
    public var id: String
    /// Kerb-to-kerb length (m).
    public var length: Double
    /// A refuge island splits the crossing in two, walked in separate greens: the minimum green
    /// then covers half the length.
    public var refugeIsland: Bool
    /// The index (0-based) of the stage in `IntersectionDemand.stages` during which it is walked.
    public var stage: Int

    public init(id: String, length: Double, refugeIsland: Bool = false, stage: Int) {
        self.id = id
        self.length = length
        self.refugeIsland = refugeIsland
        self.stage = stage
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, stage
        case length = "length_m"
        case refugeIsland = "refuge_island"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        length = try c.decode(Double.self, forKey: .length)
        refugeIsland = try c.decodeIfPresent(Bool.self, forKey: .refugeIsland) ?? false
        stage = try c.decode(Int.self, forKey: .stage)
    }
}

/// What a signal plan is computed from: an intersection's approaches with their flows, the stage
/// chain (相位阶段链: each stage lists the approaches that run together) and the intergreen
/// timings. All times in seconds, flows in veh/h.
///
/// GB 50647-2011 §8.5.2: the lost time of a cycle is L = Σ(Ls + I − A) over its intergreens, with
/// the intergreen I = amber A + all-red; so each stage loses `startupLost + allRed` and
/// the effective green of a stage is g = G + A − Ls for a displayed green G.
public struct IntersectionDemand: Sendable, Hashable, Codable {
    public var id: String
    /// Amber (黄灯) after each stage (s); GB 50647 normally 3 s.
    public var amber: Double
    /// All-red (全红) after each amber (s).
    public var allRed: Double
    /// Start-up lost time Ls per stage (s); GB 50647: 3 s when not measured.
    public var startupLost: Double
    public var approaches: [ApproachDemand]
    /// The stage chain: each stage names the approaches that have green together. An approach runs
    /// in one stage, or keeps its green through consecutive ones (搭接, e.g. a leading left: N and NL,
    /// then N and S), the last stage running on into the first (`StageChain`).
    public var stages: [[String]]
    public var crossings: [PedestrianCrossing]
    /// Critical gap and follow-up time (s) of left turns permitted through opposing traffic, as
    /// measured at this intersection; `nil` takes `SaturationFlowDefaults`' (HCM's 4.5 and 2.5 s).
    public var permittedLeftCriticalGap: Double?
    public var permittedLeftFollowUp: Double?
    /// HCM's incremental delay factor k for the random part of the delay, as calibrated where this
    /// intersection's delay was measured; `nil`: HCM's 0.5 for pretimed control.
    public var incrementalDelayFactor: Double?
    /// This intersection's base saturation flow of a through lane (veh/h/lane) and the factors of
    /// its protected left and right turns, as designed or measured here; `nil` takes
    /// `SaturationFlowDefaults`' (1800, 0.95, 0.85). A lane group's own `saturationPerLane`
    /// replaces the base for its lanes; the factors apply to it too.
    public var saturationFlow: Double?
    public var leftTurnFactor: Double?
    public var rightTurnFactor: Double?

    public init(id: String, amber: Double = 3, allRed: Double = 2, startupLost: Double = 3,
                approaches: [ApproachDemand], stages: [[String]], crossings: [PedestrianCrossing] = [],
                permittedLeftCriticalGap: Double? = nil, permittedLeftFollowUp: Double? = nil,
                incrementalDelayFactor: Double? = nil, saturationFlow: Double? = nil,
                leftTurnFactor: Double? = nil, rightTurnFactor: Double? = nil) {
        self.id = id
        self.amber = amber
        self.allRed = allRed
        self.startupLost = startupLost
        self.approaches = approaches
        self.stages = stages
        self.crossings = crossings
        self.permittedLeftCriticalGap = permittedLeftCriticalGap
        self.permittedLeftFollowUp = permittedLeftFollowUp
        self.incrementalDelayFactor = incrementalDelayFactor
        self.saturationFlow = saturationFlow
        self.leftTurnFactor = leftTurnFactor
        self.rightTurnFactor = rightTurnFactor
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, approaches, stages, crossings
        case amber = "amber_s"
        case allRed = "all_red_s"
        case startupLost = "startup_lost_s"
        case permittedLeftCriticalGap = "permitted_left_critical_gap_s"
        case permittedLeftFollowUp = "permitted_left_follow_up_s"
        case incrementalDelayFactor = "incremental_delay_factor"
        case saturationFlow = "saturation_flow_pcu_h"
        case leftTurnFactor = "left_turn_factor"
        case rightTurnFactor = "right_turn_factor"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        amber = try c.decodeIfPresent(Double.self, forKey: .amber) ?? 3
        allRed = try c.decodeIfPresent(Double.self, forKey: .allRed) ?? 2
        startupLost = try c.decodeIfPresent(Double.self, forKey: .startupLost) ?? 3
        approaches = try c.decode([ApproachDemand].self, forKey: .approaches)
        stages = try c.decode([[String]].self, forKey: .stages)
        crossings = try c.decodeIfPresent([PedestrianCrossing].self, forKey: .crossings) ?? []
        permittedLeftCriticalGap = try c.decodeIfPresent(Double.self, forKey: .permittedLeftCriticalGap)
        permittedLeftFollowUp = try c.decodeIfPresent(Double.self, forKey: .permittedLeftFollowUp)
        incrementalDelayFactor = try c.decodeIfPresent(Double.self, forKey: .incrementalDelayFactor)
        saturationFlow = try c.decodeIfPresent(Double.self, forKey: .saturationFlow)
        leftTurnFactor = try c.decodeIfPresent(Double.self, forKey: .leftTurnFactor)
        rightTurnFactor = try c.decodeIfPresent(Double.self, forKey: .rightTurnFactor)
    }

    /// Lost time of one stage change, Ls + I − A = Ls + all-red (s).
    public var lostTimePerStage: Double { startupLost + allRed }

    /// Each approach's flows by approach id.
    public var flowsByApproach: [String: MovementFlows] {
        Dictionary(approaches.map { ($0.id, $0.flows) }, uniquingKeysWith: { a, _ in a })
    }

    /// The same intersection with other flows (veh/h by approach id); approaches not in `flows`
    /// keep theirs.
    public func with(flows: [String: MovementFlows]) -> IntersectionDemand {
        var copy = self
        for i in copy.approaches.indices {
            if let f = flows[copy.approaches[i].id] { copy.approaches[i].flows = f }
        }
        return copy
    }
}

/// Saturation flow defaults per lane when an approach gives none (GB 50647 Appendix B style
/// design values; common practice 1800–1900 pcu/h/lane). Turning vehicles discharge more slowly:
/// an approach's saturation flow is the through value divided by the flow-weighted through-car
/// equivalents of its movements, s = s₀ / Σ(pₘ·Eₘ), with Eₘ = 1/fₘ for a protected movement.
///
/// A permitted left turn (one that runs while through or right traffic from the opposite arm
/// has green) turns only through gaps in that opposing flow v₀: its equivalent is HCM 2000's
/// E_L1 = s₀ / s_lt with the gap-acceptance saturation flow of a permitted left
/// s_lt = v₀·e^(−v₀·t_c/3600) / (1 − e^(−v₀·t_f/3600)) (HCM 2010 ch. 31: critical gap t_c 4.5 s,
/// follow-up t_f 2.5 s), never less than the protected equivalent 1/f_L. In a lane
/// group that shares lanes with through traffic the equivalents weigh the lefts' share, as
/// HCM's shared-lane factor f = 1/(1 + P_L(E_L1 − 1)) does.
public struct SaturationFlowDefaults: Sendable, Hashable, Codable {
    /// Through lane (veh/h/lane).
    public var through: Double
    /// Factor for left-turning vehicles (protected).
    public var leftFactor: Double
    /// Factor for right-turning vehicles.
    public var rightFactor: Double
    /// Critical gap t_c and follow-up time t_f (s) of a left turn permitted through opposing
    /// traffic (HCM 2010 ch. 31: 4.5 s and 2.5 s); measure them where the defaults do not hold.
    public var permittedLeftCriticalGap: Double
    public var permittedLeftFollowUp: Double

    public init(through: Double = 1800, leftFactor: Double = 0.95, rightFactor: Double = 0.85,
                permittedLeftCriticalGap: Double = 4.5, permittedLeftFollowUp: Double = 2.5) {
        self.through = through
        self.leftFactor = leftFactor
        self.rightFactor = rightFactor
        self.permittedLeftCriticalGap = permittedLeftCriticalGap
        self.permittedLeftFollowUp = permittedLeftFollowUp
    }

    /// Saturation flow of one lane carrying `flows` (veh/h/lane), its left turns permitted
    /// against `opposingFlow` (veh/h of through and right traffic from the opposite arm in the
    /// same stage; 0: protected or unopposed).
    public func perLane(for flows: MovementFlows, opposingFlow: Double = 0) -> Double {
        let total = flows.total
        guard total > 0 else { return through }
        let equivalents = (flows.through + flows.left * leftEquivalent(opposingFlow: opposingFlow) + flows.right / rightFactor) / total
        return through / equivalents
    }

    /// Through-car equivalent of one left turn: 1/f_L when protected or unopposed, HCM 2000's
    /// E_L1 = s₀/s_lt when permitted against `opposingFlow` veh/h.
    public func leftEquivalent(opposingFlow v: Double) -> Double {
        let protected = 1 / leftFactor
        guard v > 0, v.isFinite else { return protected }
        let tc = permittedLeftCriticalGap, tf = permittedLeftFollowUp
        let arriving: Double = v * exp(-v * tc / 3600)
        let permitted: Double = arriving / (1 - exp(-v * tf / 3600))
        // Against traffic that leaves no gaps a left is as good as unserved; the cap keeps the figures
        // finite (x stays far above 1, and over-capacity says so).
        return min(Self.mostLeftEquivalent, max(protected, through / permitted))
    }

    /// The largest through-car equivalent a permitted left is given.
    public static let mostLeftEquivalent = 100.0
}
