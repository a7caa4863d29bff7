import GeoCore

/// One road centre line as the roads layer stores it, in a projected CRS whose units are metres
/// (the store's EPSG:4490 lon/lat is reprojected to CGCS2000 Gauss-Krüger, e.g. EPSG:4547, by the
/// adapter before it reaches this kernel: planar lengths in metres are then exact enough for
/// travel times and cheap to compute, and GEOS buffers for service areas work in metres).
public struct RoadLine: Sendable, Hashable {
    /// The feature id in the roads layer, carried into routes for reporting.
    public var id: String?
    /// Vertices in digitised order (easting, northing in metres); at least two.
    public var coordinates: [Position]
    /// Free-flow speed in km/h (the layer's `speed_kmh`); must be positive.
    public var speedKmh: Double
    /// True when vehicles may only follow the digitised direction (walkers ignore it).
    public var oneway: Bool
    /// CJJ 37 class (`快速路`, `主干路`, `次干路`, `支路`), when known. Walkers may not use `快速路`.
    public var roadClass: String?

    /// A road centre line.
    public init(id: String? = nil, coordinates: [Position], speedKmh: Double, oneway: Bool = false,
                roadClass: String? = nil) {
        self.id = id
        self.coordinates = coordinates
        self.speedKmh = speedKmh
        self.oneway = oneway
        self.roadClass = roadClass
    }
}

/// A piece of a road line between two graph nodes: the unit that routes traverse, snapping
/// lands on, closures close and service areas cover.
public struct RoadPiece: Sendable, Hashable {
    /// Node at the first vertex.
    public var from: Int32
    /// Node at the last vertex.
    public var to: Int32
    /// Index of the `RoadLine` this piece was cut from.
    public var line: Int32
    /// Vertices from `from` to `to` (metres).
    public var coordinates: [Position]
    /// Planar length in metres.
    public var length: Double
}
