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
    /// The part of `surfaceBoundaryInflow` that the river stage let in (fixed-level cells refilled).
    public var stageInflow = 0.0
    /// The part of `surfaceBoundaryOutflow` that went into the river at its stage (fixed-level cells).
    public var stageOutflow = 0.0
    /// The most water the stage can explain letting in (`SurfaceVolumeBalance.stageFillCapacity`), m³.
    public var stageFillCapacity = 0.0

    public init() {}

    /// Water the run was given by its inputs, m³: rain on subcatchments and grid, the network's
    /// inflows and the surface's inflow hydrographs (not the stage's inflow, which the model makes).
    public var givenWater: Double {
        subcatchmentRain + gridRain + networkInflow + (surfaceBoundaryInflow - stageInflow)
    }

    /// The stage inflow the run cannot explain (`SurfaceVolumeBalance.stageInflowExcess`), m³,
    /// or nil when every term is plausible.
    public var unexplainedStageInflow: Double? {
        SurfaceVolumeBalance.stageInflowExcess(netStageInflow: stageInflow - stageOutflow, capacity: stageFillCapacity, givenWater: givenWater)
    }

    /// One term of the account: its volume and its share of all water that entered (`totalIn`),
    /// so a term that dwarfs the storm shows even when the continuity error is 0.
    public struct Term: Sendable, Equatable, Encodable {
        /// `in`, `out` or `stored`.
        public var side: String
        public var name: String
        /// m³.
        public var volume: Double
        /// Percent of `totalIn`.
        public var percentOfInflow: Double
    }

    /// Every non-zero term (and the storage at both ends), inflows first, with its share of `totalIn`.
    public var terms: [Term] {
        let all: [(String, String, Double)] = [
            ("in", "rain on subcatchments", subcatchmentRain), ("in", "rain on the grid", gridRain),
            ("in", "network inflows", networkInflow), ("in", "river stage inflow", stageInflow),
            ("in", "inflow hydrographs", surfaceBoundaryInflow - stageInflow), ("stored", "storage at the start", initialStorage),
            ("out", "losses (infiltration, evaporation)", runoffLosses + surfaceLosses), ("out", "outfalls", outfallOutflow),
            ("out", "into the river at its stage", stageOutflow), ("out", "over open edges", surfaceBoundaryOutflow - stageOutflow),
            ("out", "overflow at unlinked nodes", unlinkedFlooding), ("stored", "storage at the end", finalStorage),
        ]
        return all.filter { $0.0 == "stored" || abs($0.2) > 1e-9 }.map {
            Term(side: $0.0, name: $0.1, volume: $0.2, percentOfInflow: totalIn > 0 ? 100 * $0.2 / totalIn : 0)
        }
    }

    /// Why the account is not to be believed, or nil: the river stage let in more than it can
    /// explain (`unexplainedStageInflow`), so its inflow and the outflow that carried it off again
    /// are a blown-up pair that cancels in `error`.
    public var implausibility: String? {
        guard let excess = unexplainedStageInflow else { return nil }
        func f(_ v: Double) -> String { String(format: "%.0f", v) }
        let rain = subcatchmentRain + gridRain
        return "the river stage let \(f(stageInflow)) m³ onto the surface (\(String(format: "%.1f", totalIn > 0 ? 100 * stageInflow / totalIn : 0)) % of all water in"
            + (rain > 0 ? ", \(String(format: "%.3g", stageInflow / rain)) × the storm's rain of \(f(rain)) m³" : "")
            + ") and took back \(f(stageOutflow)) m³: \(f(excess)) m³ more than filling every cell below the stage could take (\(f(stageFillCapacity)) m³); "
            + "it left the grid again (over open edges \(f(surfaceBoundaryOutflow - stageOutflow)) m³), "
            + "so the continuity error of \(String(format: "%.3f", errorPercent)) % hides it"
    }

    /// The terms as text: `in: rain on subcatchments 305378 m³ (46.1 %), …; out: …`.
    public var termsDescription: String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func list(_ side: String) -> String {
            terms.filter { $0.side == side }.map { "\($0.name) \(f($0.volume)) m³ (\(f($0.percentOfInflow)) %)" }.joined(separator: ", ")
        }
        return "in: \(list("in")); out: \(list("out")); stored: \(list("stored")) (shares of all water in, \(f(totalIn)) m³)"
    }

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
            + (implausibility.map { "; IMPLAUSIBLE: " + $0 } ?? "")
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

