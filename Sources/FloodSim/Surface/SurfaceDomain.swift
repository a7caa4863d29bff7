import GeoCore

/// The ground the 2D surface flow runs over: a DEM on square cells, Manning's n, buildings that
/// block flow, a loss (infiltration) rate per cell and the boundary conditions.
///
/// No-data cells of the elevation grid are outside the domain and behave like buildings: they
/// hold no water and exchange no flow. All inputs are checked once here.
public struct SurfaceDomain: Sendable {
    /// Ground elevation in metres, on square, north-up cells (a projected CRS such as EPSG:4547).
    public let elevation: Grid
    /// Cell side Δx in metres.
    public let cellSize: Double
    public let roughness: SurfaceRoughness
    /// Building footprint mask the size of `elevation`: valid non-zero cells are blocked.
    public let buildings: Grid?
    /// Loss (infiltration) rate in mm/h per cell, the size of `elevation`; no-data cells lose nothing.
    public let lossRate: Grid?
    public let boundary: SurfaceBoundary

    /// - Throws: `FloodInputError` naming the field and cell when the grid is
    ///   empty or its cells are not square and north-up, a companion grid has another size, a
    ///   Manning's n or loss rate is negative or not finite, or a boundary cell is outside the grid.
    public init(elevation: Grid, roughness: SurfaceRoughness = .uniform(0.03), buildings: Grid? = nil,
                lossRate: Grid? = nil, boundary: SurfaceBoundary = .closed) throws {
        guard !elevation.isEmpty else {
            throw FloodInputError("the surface needs a non-empty elevation grid", field: "elevation")
        }
        let t = elevation.geoTransform
        let dx = abs(t.pixelWidth), dy = abs(t.pixelHeight)
        guard dx > 0, dx.isFinite, t.rowRotation == 0, t.columnRotation == 0,
              abs(dx - dy) <= 1e-9 * dx else {
            throw FloodInputError(
                                "the surface needs square north-up cells, got \(t.pixelWidth) x \(t.pixelHeight) with rotation (\(t.rowRotation), \(t.columnRotation))",
                                field: "elevation.geoTransform")
        }
        func checkSize(_ grid: Grid, _ name: String) throws {
            guard grid.width == elevation.width, grid.height == elevation.height else {
                throw FloodInputError(
                                    "\(name) is \(grid.width) x \(grid.height) but the elevation grid is \(elevation.width) x \(elevation.height)",
                                    field: name)
            }
        }
        func checkNonNegative(_ grid: Grid, _ name: String) throws {
            for (i, v) in grid.values.enumerated() where grid.isValid(v) && !(v >= 0 && v.isFinite) {
                throw FloodInputError("\(name) must be finite and ≥ 0, got \(v)",
                                    field: "\(name) cell (\(i % grid.width), \(i / grid.width))")
            }
        }
        switch roughness {
        case .uniform(let n):
            guard n >= 0, n.isFinite else {
                throw FloodInputError("Manning's n must be finite and ≥ 0, got \(n)", field: "roughness")
            }
        case .perCell(let grid, let fallback):
            try checkSize(grid, "roughness")
            try checkNonNegative(grid, "roughness")
            guard fallback >= 0, fallback.isFinite else {
                throw FloodInputError("Manning's n must be finite and ≥ 0, got \(fallback)", field: "roughness.fallback")
            }
        case .landUse(let grid, let table):
            try checkSize(grid, "landUse")
            for (code, n) in table.manningN where !(n >= 0 && n.isFinite) {
                throw FloodInputError("Manning's n must be finite and ≥ 0, got \(n)", field: "land-use class \(code)")
            }
            guard table.fallback >= 0, table.fallback.isFinite else {
                throw FloodInputError("Manning's n must be finite and ≥ 0, got \(table.fallback)", field: "land-use fallback")
            }
        }
        if let buildings { try checkSize(buildings, "buildings") }
        if let lossRate {
            try checkSize(lossRate, "lossRate")
            try checkNonNegative(lossRate, "lossRate")
        }
        func checkCell(_ cell: SurfaceCell, _ name: String) throws {
            guard cell.column >= 0, cell.column < elevation.width, cell.row >= 0, cell.row < elevation.height else {
                throw FloodInputError(
                                    "\(cell) is outside the \(elevation.width) x \(elevation.height) grid", field: name)
            }
        }
        for (i, inflow) in boundary.inflows.enumerated() {
            try checkCell(inflow.cell, "boundary.inflows[\(i)]")
            if let bad = inflow.discharge.values.firstIndex(where: { $0 < 0 }) {
                throw FloodInputError("an inflow hydrograph must be ≥ 0 m³/s (use a point source for a sink)",
                                    field: "boundary.inflows[\(i)] breakpoint \(bad)")
            }
        }
        for (i, level) in boundary.fixedLevels.enumerated() {
            for cell in level.cells { try checkCell(cell, "boundary.fixedLevels[\(i)]") }
        }
        self.elevation = elevation
        self.cellSize = dx
        self.roughness = roughness
        self.buildings = buildings
        self.lossRate = lossRate
        self.boundary = boundary
    }

    /// Number of columns.
    public var width: Int { elevation.width }
    /// Number of rows.
    public var height: Int { elevation.height }

    /// Whether `cell` holds no water and exchanges no flow (a building or a no-data cell).
    public func isBlocked(_ cell: SurfaceCell) -> Bool {
        isBlocked(index: cell.row * width + cell.column)
    }

    func isBlocked(index i: Int) -> Bool {
        if !elevation.isValid(elevation.values[i]) { return true }
        if let buildings {
            let b = buildings.values[i]
            if buildings.isValid(b) && b != 0 { return true }
        }
        return false
    }

    /// Manning's n of cell index `i` (row-major).
    func manningN(index i: Int) -> Double {
        switch roughness {
        case .uniform(let n): return n
        case .perCell(let grid, let fallback):
            let v = grid.values[i]
            return grid.isValid(v) ? Double(v) : fallback
        case .landUse(let grid, let table):
            let v = grid.values[i]
            return grid.isValid(v) ? table.manningN(forClass: v) : table.fallback
        }
    }

    /// Loss rate of cell index `i` in m/s.
    func lossRate(index i: Int) -> Double {
        guard let lossRate else { return 0 }
        let v = lossRate.values[i]
        return lossRate.isValid(v) ? Double(v) / 3_600_000 : 0
    }
}
