import Foundation

/// The continuity account of a surface run, all volumes in m³ since the start. Every run
/// reports it, as SWMM reports its continuity error.
public struct SurfaceVolumeBalance: Sendable, Equatable, CustomStringConvertible {
    /// Water on the grid at the start.
    public var initialStorage = 0.0
    /// Water on the grid now.
    public var storage = 0.0
    /// Rain that fell on open (non-building) cells.
    public var rain = 0.0
    /// Water lost to infiltration and other cell losses.
    public var losses = 0.0
    /// Water that entered through inflow hydrographs and fixed-level cells.
    public var boundaryInflow = 0.0
    /// Water that left through open edges and fixed-level cells.
    public var boundaryOutflow = 0.0
    /// Water added by point sources (e.g. manholes surcharging onto the street).
    public var sourceInflow = 0.0
    /// Water removed by point sinks (e.g. inlets draining into pipes), after limiting to what the cell held.
    public var sourceOutflow = 0.0
    /// The part of `boundaryInflow` that fixed-level cells took in (refilled to their stage).
    public var stageInflow = 0.0
    /// The part of `boundaryOutflow` that fixed-level cells gave off (lowered to their stage).
    public var stageOutflow = 0.0
    /// The most water the fixed levels can explain letting onto the grid (m³): every open cell
    /// below the highest stage filled up to it, and the held cells raised by as much as their stage
    /// rises above its start (a bathtub flood to the river's highest level, connected or not).
    /// 0 without fixed levels. See `stageInflowExcess`.
    public var stageFillCapacity = 0.0

    public init() {}

    /// The share of the given water a net stage inflow may exceed `stageFillCapacity` by before
    /// it is implausible: rounding, never a river.
    public static let stageInflowTolerance = 0.01

    /// The net stage inflow a run cannot explain, in m³, or nil when it is plausible.
    ///
    /// The rule: a river or sea held at a flat stage can put on the grid and keep there at most
    /// the water that fills every cell below its highest stage up to it (`stageFillCapacity`).
    /// What it lets in and takes back (water sloshing at the bank, rain on the river) nets out;
    /// a net inflow beyond the capacity has gone on through the grid (over an edge, into a sink)
    /// as a river flowing through the district, which a held stage does not model. Above the
    /// capacity (and 10⁻⁶ of it for rounding) plus `stageInflowTolerance` of the water the run was
    /// given (rain, inflow hydrographs, point sources, the network's inflows) the stage's term is
    /// blown up, whatever the continuity error says: the water that came in also went out, so the
    /// error stays ~0.
    /// - Parameters:
    ///   - netStageInflow: water the fixed levels let in less what they took back, m³.
    ///   - capacity: `stageFillCapacity`, m³.
    ///   - givenWater: the water the run was given from its inputs, m³.
    public static func stageInflowExcess(netStageInflow: Double, capacity: Double, givenWater: Double) -> Double? {
        let allowed = capacity * (1 + 1e-6) + stageInflowTolerance * Swift.max(0, givenWater)
        return netStageInflow > allowed ? netStageInflow - capacity : nil
    }

    /// `stageInflowExcess` of this surface run (the given water: rain, inflow hydrographs and sources).
    public var unexplainedStageInflow: Double? {
        Self.stageInflowExcess(netStageInflow: stageInflow - stageOutflow, capacity: stageFillCapacity,
                               givenWater: rain + (boundaryInflow - stageInflow) + sourceInflow)
    }

    /// All water that entered: initial storage, rain, boundary and source inflow.
    public var totalIn: Double { initialStorage + rain + boundaryInflow + sourceInflow }

    /// Water unaccounted for: in − out − storage, in m³ (positive means water was lost).
    public var error: Double {
        totalIn - (storage + losses + boundaryOutflow + sourceOutflow)
    }

    /// `error` as a fraction of all water that entered (0 when none did).
    public var relativeError: Double {
        totalIn > 0 ? error / totalIn : 0
    }

    public var description: String {
        func f(_ v: Double) -> String { String(format: "%.3f", v) }
        return "surface continuity (m³): initial \(f(initialStorage)) + rain \(f(rain)) + boundary in \(f(boundaryInflow)) + sources in \(f(sourceInflow)) = final \(f(storage)) + losses \(f(losses)) + boundary out \(f(boundaryOutflow)) + sinks \(f(sourceOutflow)); continuity error \(String(format: "%.4f", relativeError * 100)) %"
            + (unexplainedStageInflow.map { "; IMPLAUSIBLE: the fixed levels let in \(f(stageInflow)) m³ and took back \(f(stageOutflow)) m³, \(f($0)) m³ more than filling every cell below the stage would take" } ?? "")
    }
}
