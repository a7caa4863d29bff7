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

    /// These flows multiplied by `factor` (e.g. 4 to turn a 15-minute count into an hourly rate).
    public func scaled(by factor: Double) -> MovementFlows {
        MovementFlows(through: through * factor, left: left * factor, right: right * factor)
    }

    public static func + (a: MovementFlows, b: MovementFlows) -> MovementFlows {
        MovementFlows(through: a.through + b.through, left: a.left + b.left, right: a.right + b.right)
    }

    enum CodingKeys: String, CodingKey { case through, left, right }

    public init(from decoder: any Decoder) throws {
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
    /// Saturation flow per lane (veh/h/lane) when measured or designed; `nil` takes
    /// `SaturationFlowDefaults` for the approach's movement mix.
    public var saturationPerLane: Double?
    public var flows: MovementFlows

    public init(id: String, lanes: Int, saturationPerLane: Double? = nil, flows: MovementFlows) {
        self.id = id
        self.lanes = lanes
        self.saturationPerLane = saturationPerLane
        self.flows = flows
    }

    enum CodingKeys: String, CodingKey {
        case id, lanes
        case saturationPerLane = "saturation_veh_h_lane"
        case flows = "flows_veh_h"
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

    enum CodingKeys: String, CodingKey {
        case id, stage
        case length = "length_m"
        case refugeIsland = "refuge_island"
    }

    public init(from decoder: any Decoder) throws {
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
    /// The stage chain: each stage names the approaches that have green together. Each approach
    /// runs in exactly one stage.
    public var stages: [[String]]
    public var crossings: [PedestrianCrossing]

    public init(id: String, amber: Double = 3, allRed: Double = 2, startupLost: Double = 3,
                approaches: [ApproachDemand], stages: [[String]], crossings: [PedestrianCrossing] = []) {
        self.id = id
        self.amber = amber
        self.allRed = allRed
        self.startupLost = startupLost
        self.approaches = approaches
        self.stages = stages
        self.crossings = crossings
    }

    enum CodingKeys: String, CodingKey {
        case id, approaches, stages, crossings
        case amber = "amber_s"
        case allRed = "all_red_s"
        case startupLost = "startup_lost_s"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        amber = try c.decodeIfPresent(Double.self, forKey: .amber) ?? 3
        allRed = try c.decodeIfPresent(Double.self, forKey: .allRed) ?? 2
        startupLost = try c.decodeIfPresent(Double.self, forKey: .startupLost) ?? 3
        approaches = try c.decode([ApproachDemand].self, forKey: .approaches)
        stages = try c.decode([[String]].self, forKey: .stages)
        crossings = try c.decodeIfPresent([PedestrianCrossing].self, forKey: .crossings) ?? []
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
/// an approach's saturation flow is the through value divided by the flow-weighted turning
/// equivalents, s = s₀ / Σ(pₘ / fₘ).
public struct SaturationFlowDefaults: Sendable, Hashable, Codable {
    /// Through lane (veh/h/lane).
    public var through: Double
    /// Factor for left-turning vehicles (protected).
    public var leftFactor: Double
    /// Factor for right-turning vehicles.
    public var rightFactor: Double

    public init(through: Double = 1800, leftFactor: Double = 0.95, rightFactor: Double = 0.85) {
        self.through = through
        self.leftFactor = leftFactor
        self.rightFactor = rightFactor
    }

    /// Saturation flow of one lane carrying `flows` (veh/h/lane).
    public func perLane(for flows: MovementFlows) -> Double {
        let total = flows.total
        guard total > 0 else { return through }
        let equivalents = (flows.through + flows.left / leftFactor + flows.right / rightFactor) / total
        return through / equivalents
    }
}
