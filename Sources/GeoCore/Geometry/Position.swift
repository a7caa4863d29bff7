/// One coordinate tuple: `x`/`y` are longitude/latitude in degrees for geographic CRSs and
/// easting/northing in metres for projected ones (CityTwin's internal axis order, whatever the
/// authority says; see `CoordinateReferenceSystem`). `z` is a height in metres when present.
public struct Position: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double?

    @inlinable
    public init(x: Double, y: Double, z: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double? = nil) {
        self.init(x: x, y: y, z: z)
    }

    /// Whether both horizontal ordinates (and `z`, if present) are finite numbers.
    @inlinable
    public var isFinite: Bool {
        x.isFinite && y.isFinite && (z?.isFinite ?? true)
    }

    /// The same horizontal position without a height.
    @inlinable
    public var xy: Position { Position(x: x, y: y) }
}
