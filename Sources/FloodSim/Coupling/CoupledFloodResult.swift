import GeoCore

/// The continuity account of a coupled 1D–2D run over the whole system (subcatchments, pipe
/// network and street surface), every volume in m³ since the start.
///
/// Water moved between the parts (runoff into inlets, manhole spills onto the street, street
/// water draining back) is internal and cancels; what is left is
/// `rain + inflows − outfalls − losses − storage change`, which `error` reports. Each part's own
/// account is kept beside it (`runoff`, `routing`, `surface`) so a reader can see where a
/// discrepancy comes from.
public struct CoupledFloodBalance: Sendable, Equatable, CustomStringConvertible {
    /// Rain on subcatchments (runoff part).
    public var subcatchmentRain = 0.0
    /// Rain on the 2D grid (cells not routed by subcatchments).
    public var gridRain = 0.0
    /// External and dry-weather inflows given in the network (not runoff), as the engine counts them.
    public var networkInflow = 0.0
    /// Water let in by the surface boundary (inflow hydrographs, fixed-level cells below their stage).
    public var surfaceBoundaryInflow = 0.0
    /// Infiltration and evaporation on subcatchments.
    public var runoffLosses = 0.0
    /// Infiltration on the 2D grid.
    public var surfaceLosses = 0.0
    /// Water leaving the network through outfalls (and pump or seepage losses).
    public var outfallOutflow = 0.0
    /// Water leaving the surface through open edges and fixed-level cells.
    public var surfaceBoundaryOutflow = 0.0
    /// Overflow at nodes with no surface cell, lost as SWMM loses it.
    public var unlinkedFlooding = 0.0
    /// Water stored at the start (subcatchments, network, surface).
    public var initialStorage = 0.0
    /// Water stored at the end (subcatchments, network, surface, overflow in transit to the surface).
    public var finalStorage = 0.0
    /// Runoff delivered into the network's inlets (internal).
    public var runoffToNetwork = 0.0
    /// Water that left the pipes onto the street: manhole spills and node overflow (internal).
    public var pipeToSurface = 0.0
    /// Street water that drained back into the pipes (internal).
    public var surfaceToPipe = 0.0

    public init() {}

    /// All water that entered the system, m³.
    public var totalIn: Double { subcatchmentRain + gridRain + networkInflow + surfaceBoundaryInflow + initialStorage }
    /// All water that left or stayed, m³.
    public var totalOut: Double {
        runoffLosses + surfaceLosses + outfallOutflow + surfaceBoundaryOutflow + unlinkedFlooding + finalStorage
    }
    /// Water unaccounted for, m³ (positive: lost).
    public var error: Double { totalIn - totalOut }
    /// `error` in percent of `totalIn` (0 when nothing entered).
    public var errorPercent: Double { totalIn > 0 ? 100 * error / totalIn : 0 }

    public var description: String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        return "coupled continuity (m³): rain \(f(subcatchmentRain)) on subcatchments + \(f(gridRain)) on grid, inflow \(f(networkInflow + surfaceBoundaryInflow)), "
            + "losses \(f(runoffLosses + surfaceLosses)), outfalls \(f(outfallOutflow)), boundary out \(f(surfaceBoundaryOutflow)), "
            + "storage \(f(initialStorage)) → \(f(finalStorage)); pipe→street \(f(pipeToSurface)), street→pipe \(f(surfaceToPipe)); "
            + "error \(String(format: "%.3f", errorPercent)) %"
    }
}

/// What one manhole exchanged with the street over a coupled run.
public struct ManholeExchangeSummary: Sendable, Equatable {
    /// Node index in the network.
    public var node: Int
    /// Volume that left the pipes onto the street (spill and overflow), m³.
    public var spilled = 0.0
    /// Volume that drained from the street into the pipes, m³.
    public var drained = 0.0
    /// Largest discharge onto the street, m³/s.
    public var peakSpill = 0.0
    /// Largest discharge into the pipes, m³/s (positive).
    public var peakDrainage = 0.0
}

/// What a coupled run returns.
public struct CoupledFloodResult: Sendable {
    /// The surface run: final and maximum depth grids (metres), time of maximum, surface continuity.
    public var surface: SurfaceFlowResult
    /// Hours each cell spent deeper than `CoupledFlood.Settings.depthThreshold` (same geometry as the DEM).
    public var hoursAboveThreshold: Grid
    /// Node and link statistics and the engine's continuity.
    public var routing: RoutingResults
    /// Subcatchment runoff continuity (zero when the run had no subcatchments).
    public var runoff: RunoffContinuity
    /// One entry per linked manhole, in the order given.
    public var exchanges: [ManholeExchangeSummary]
    /// The whole system's continuity.
    public var balance: CoupledFloodBalance
    /// Simulated seconds.
    public var duration: Double
    /// Coupling intervals taken.
    public var intervals: Int
    /// The state at the output interval (`CoupledFlood.Settings.snapshotInterval`), in time
    /// order; empty when none was asked for.
    public var snapshots: [FloodSnapshot] = []
}

/// The flood at one output time of a coupled run.
public struct FloodSnapshot: Sendable {
    /// Simulated seconds since the start.
    public var time: Double
    /// Water depth on the street surface in metres (same geometry as the DEM; no no-data value:
    /// building and no-data cells are 0).
    public var depth: Grid
    /// Water depth above the invert of each network node in metres, by node index.
    public var nodeDepths: [Float]
}

