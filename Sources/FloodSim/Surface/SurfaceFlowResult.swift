import GeoCore

/// What a surface run leaves behind: final and maximum depth, when the maximum happened, and
/// the continuity account.
public struct SurfaceFlowResult: Sendable {
    /// Depth in metres at the end of the run, on the elevation grid's cells (no-data 0 on blocked cells).
    public var depth: Grid
    /// Greatest depth each cell reached, in metres.
    public var maxDepth: Grid
    /// Time in seconds from the start at which each cell reached its greatest depth (0 where it stayed dry).
    public var timeOfMaxDepth: Grid
    /// Simulated time at the end, in seconds.
    public var time: Double
    /// Time steps taken.
    public var steps: Int
    public var volumeBalance: SurfaceVolumeBalance
}

