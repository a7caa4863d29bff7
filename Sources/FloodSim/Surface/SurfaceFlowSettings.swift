import Foundation

/// Numerical settings of the local inertial surface scheme (flood.md §4).
public struct SurfaceFlowSettings: Sendable, Equatable {
    /// CFL factor α in Δt = α·Δx/√(g·h_max); 0.7 by default, 0.2–0.7 in use.
    public var cflFactor: Double = 0.7
    /// θ weighting of the momentum update (1 is Bates 2010; 0.8 is landlab's default, which
    /// damps the checkerboard oscillations of the plain scheme).
    public var theta: Double = 0.8
    /// Face flow depth (m) at or below which a face is dry and carries no flow.
    public var dryDepth: Double = 1e-4
    /// Longest time step in seconds (used while the grid is dry or very shallow).
    public var maxTimeStep: Double = 10
    /// Gravitational acceleration in m/s².
    public var gravity: Double = 9.80665
    /// Threads that sweep the grid in row bands (by default one per active core); 1 runs
    /// everything on the calling thread. Results are the same bits whatever the count.
    public var threads: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Steps between progress callbacks.
    public var progressInterval: Int = 100

    public init(cflFactor: Double = 0.7, theta: Double = 0.8, dryDepth: Double = 1e-4, maxTimeStep: Double = 10,
                gravity: Double = 9.80665, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                progressInterval: Int = 100) {
        self.cflFactor = cflFactor
        self.theta = theta
        self.dryDepth = dryDepth
        self.maxTimeStep = maxTimeStep
        self.gravity = gravity
        self.threads = threads
        self.progressInterval = progressInterval
    }
}
