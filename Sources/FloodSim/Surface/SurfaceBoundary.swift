/// How water leaves or enters the surface grid other than by rain, loss and point sources.
public struct SurfaceBoundary: Sendable {
    /// What happens at one edge of the grid.
    public enum Edge: Sendable, Equatable {
        /// A wall: no flow crosses the edge.
        case closed
        /// Free outflow: water leaves with the friction-limited discharge of the edge cell's depth
        /// under the outward bed or water-surface slope (whichever is steeper, none if both rise
        /// outward). Never lets water in.
        case open
    }

    /// An inflow hydrograph (m³/s, ≥ 0) delivered into one cell, e.g. a culvert or a catchment outlet.
    public struct Inflow: Sendable {
        public var cell: SurfaceCell
        /// Discharge in m³/s against time in seconds.
        public var discharge: SurfaceTimeSeries
        public init(cell: SurfaceCell, discharge: SurfaceTimeSeries) {
            self.cell = cell
            self.discharge = discharge
        }
    }

    /// Cells whose water level is held at a stage (a river or a sea level): after every step
    /// their depth is set to `max(0, stage − ground)`, and the water this adds or removes is
    /// counted as boundary inflow or outflow (`SurfaceVolumeBalance.stageInflow`/`stageOutflow`).
    /// An open edge lets nothing out of a held cell: the water beyond it is the same water body
    /// at the same stage. Held cells trade water only with the grid's other cells.
    public struct FixedLevel: Sendable {
        public var cells: [SurfaceCell]
        /// Water-surface elevation in metres (the elevation grid's datum) against time in seconds.
        public var stage: SurfaceTimeSeries
        public init(cells: [SurfaceCell], stage: SurfaceTimeSeries) {
            self.cells = cells
            self.stage = stage
        }
    }

    public var north: Edge
    public var south: Edge
    public var west: Edge
    public var east: Edge
    public var inflows: [Inflow]
    public var fixedLevels: [FixedLevel]

    /// Every edge the same (closed walls by default), no inflows, no fixed levels.
    public init(edges: Edge = .closed, inflows: [Inflow] = [], fixedLevels: [FixedLevel] = []) {
        north = edges
        south = edges
        west = edges
        east = edges
        self.inflows = inflows
        self.fixedLevels = fixedLevels
    }

    /// Closed walls all round.
    public static let closed = SurfaceBoundary()
}
