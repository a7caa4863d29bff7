// What a hydraulic routing run reports: per-node and per-link summaries and the routing
// continuity (mass balance), as SWMM 5.2 prints them, in SI units.

/// Summary of one node over a run (SWMM's Node Depth and Node Flooding summaries).
public struct NodeStatistics: Sendable, Hashable {
    /// Largest water depth above the invert, metres.
    public var maxDepth: Double = 0
    /// Time of `maxDepth`, seconds from the start.
    public var timeOfMaxDepth: Double = 0
    /// Largest hydraulic head (invert + depth), metres.
    public var maxHead: Double = 0
    /// Largest total inflow (lateral + from links), m³/s.
    public var maxTotalInflow: Double = 0
    /// Time the node was flooded (overflowing or ponded), hours.
    public var hoursFlooded: Double = 0
    /// Time the water surface was at or above the crown of the highest connected conduit, hours.
    public var hoursSurcharged: Double = 0
    /// Largest overflow rate, m³/s.
    public var maxFloodRate: Double = 0
    /// Time of `maxFloodRate`, seconds from the start.
    public var timeOfMaxFlooding: Double = 0
    /// Total volume that overflowed the node, m³.
    public var floodVolume: Double = 0
    /// Largest ponded volume above the rim, m³.
    public var maxPondedVolume: Double = 0
    /// Total volume that left the network through this node if it is an outfall, m³.
    public var outfallVolume: Double = 0
    /// A storage unit's stored volume: the mean over the routing steps and the largest, m³
    /// (SWMM's Storage Volume Summary; 0 for other nodes).
    public var averageVolume: Double = 0
    public var maxVolume: Double = 0
    /// A storage unit's evaporation and seepage (exfiltration) losses over the run, m³.
    public var evaporationLoss: Double = 0
    public var exfiltrationLoss: Double = 0

    public init() {}
}

/// Summary of one link over a run (SWMM's Link Flow summary).
public struct LinkStatistics: Sendable, Hashable {
    /// Largest absolute flow, m³/s (signed as it occurred).
    public var maxFlow: Double = 0
    /// Time of `maxFlow`, seconds from the start.
    public var timeOfMaxFlow: Double = 0
    /// Largest absolute velocity, m/s.
    public var maxVelocity: Double = 0
    /// Largest flow depth over full depth (0–1).
    public var maxFilling: Double = 0
    /// Time a conduit was full at both ends, hours.
    public var hoursFull: Double = 0
    /// Time a conduit was capacity limited, hours.
    public var hoursCapacityLimited: Double = 0

    public init() {}
}

/// The routing continuity (SWMM's Flow Routing Continuity table), cubic metres.
public struct RoutingContinuity: Sendable, Hashable {
    /// Dry-weather inflow volume.
    public var dryWeatherInflow: Double = 0
    /// Inflow set by the caller each step (runoff, 2D exchange), positive part.
    public var lateralInflow: Double = 0
    /// External (time-series and baseline) inflow volume.
    public var externalInflow: Double = 0
    /// Rainfall-dependent infiltration/inflow volume (SWMM's "RDII Inflow").
    public var rdiiInflow: Double = 0
    /// Volume lost through flooding at nodes (SWMM's "Flooding Loss").
    public var flooding: Double = 0
    /// Volume leaving through outfalls.
    public var externalOutflow: Double = 0
    /// Volume withdrawn by negative lateral inflow (e.g. water returning to a 2D surface).
    public var withdrawal: Double = 0
    /// Seepage from storage units into the soil (SWMM's "Exfiltration Loss").
    public var seepageLoss: Double = 0
    /// Evaporation from storage units' water surfaces (SWMM's "Evaporation Loss").
    public var evaporationLoss: Double = 0
    /// Volume stored in nodes and links at the start.
    public var initialStorage: Double = 0
    /// Volume stored in nodes and links at the end.
    public var finalStorage: Double = 0

    public init() {}

    /// Total inflow volume.
    public var totalInflow: Double { dryWeatherInflow + lateralInflow + externalInflow + rdiiInflow }
    /// Total outflow volume (flooding, outfalls, withdrawals, evaporation and seepage).
    public var totalOutflow: Double { flooding + externalOutflow + withdrawal + seepageLoss + evaporationLoss }

    /// Continuity error in percent: 100·(1 − (out + final storage)/(in + initial storage)).
    public var errorPercent: Double {
        let input = totalInflow + initialStorage
        guard input > 0 else { return 0 }
        return 100 * (1 - (totalOutflow + finalStorage) / input)
    }
}

/// Everything a run of the hydraulic engine returns.
public struct RoutingResults: Sendable, Hashable {
    /// Node summaries, indexed like `HydraulicNetwork.nodes`.
    public var nodes: [NodeStatistics]
    /// Link summaries, indexed like `HydraulicNetwork.links`.
    public var links: [LinkStatistics]
    /// The routing mass balance.
    public var continuity: RoutingContinuity
    /// Number of routing steps taken.
    public var steps: Int
    /// Mean Picard iterations per step.
    public var averageIterations: Double
    /// Percent of steps that did not converge within the trial limit.
    public var nonConvergingPercent: Double

    public init(nodes: [NodeStatistics], links: [LinkStatistics], continuity: RoutingContinuity, steps: Int,
                averageIterations: Double, nonConvergingPercent: Double) {
        self.nodes = nodes
        self.links = links
        self.continuity = continuity
        self.steps = steps
        self.averageIterations = averageIterations
        self.nonConvergingPercent = nonConvergingPercent
    }

    /// Total flooding volume over all nodes, m³.
    public var totalFloodVolume: Double { nodes.reduce(0) { $0 + $1.floodVolume } }
}

