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

    public init() {}

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
    }
}
