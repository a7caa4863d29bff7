import GeoCore

/// Manning's n for the surface grid, in s/m^(1/3).
public enum SurfaceRoughness: Sendable {
    /// One n for every cell.
    case uniform(Double)
    /// n per cell, a grid the size of the elevation grid (no-data cells fall back to `fallback`).
    case perCell(Grid, fallback: Double)
    /// n looked up from a land-use class grid (class codes stored as whole numbers) in `table`.
    case landUse(Grid, LandUseRoughness)
}

/// Manning's n per land-use class code (s/m^(1/3)), with a value for codes not in the table.
///
/// Typical urban values: asphalt and concrete 0.013–0.016, bare soil 0.02–0.03, short grass
/// 0.03–0.04, dense vegetation 0.06–0.1. Parameter sets belong in `Models/` as data.
public struct LandUseRoughness: Sendable, Equatable {
    /// Manning's n by land-use class code.
    public var manningN: [Int: Double]
    /// Manning's n for a class not in `manningN`, and for no-data cells.
    public var fallback: Double

    public init(manningN: [Int: Double], fallback: Double = 0.03) {
        self.manningN = manningN
        self.fallback = fallback
    }

    /// Manning's n of a class code read from a land-use grid cell.
    public func manningN(forClass value: Float) -> Double {
        guard value.isFinite else { return fallback }
        return manningN[Int(value.rounded())] ?? fallback
    }
}
