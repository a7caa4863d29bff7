/// A point; `position == nil` is the empty point (`POINT EMPTY`).
public struct Point: Hashable, Sendable {
    public var position: Position?
    @inlinable public init(_ position: Position?) { self.position = position }
    @inlinable public init(x: Double, y: Double, z: Double? = nil) { self.position = Position(x: x, y: y, z: z) }
}

/// A sequence of two or more positions (or none: the empty line string).
public struct LineString: Hashable, Sendable {
    public var positions: [Position]
    @inlinable public init(_ positions: [Position]) { self.positions = positions }
}

/// A polygon: one exterior ring and zero or more holes. Rings are closed (first == last).
/// An empty `exterior` is the empty polygon. Ring orientation is not normalized here;
/// codecs that have a rule (RFC 7946, MVT) apply it on output.
public struct Polygon: Hashable, Sendable {
    public var exterior: [Position]
    public var interiors: [[Position]]
    @inlinable public init(exterior: [Position], interiors: [[Position]] = []) {
        self.exterior = exterior
        self.interiors = interiors
    }
    /// All rings, exterior first.
    @inlinable public var rings: [[Position]] { exterior.isEmpty ? [] : [exterior] + interiors }
}

public struct MultiPoint: Hashable, Sendable {
    public var points: [Point]
    @inlinable public init(_ points: [Point]) { self.points = points }
}

public struct MultiLineString: Hashable, Sendable {
    public var lineStrings: [LineString]
    @inlinable public init(_ lineStrings: [LineString]) { self.lineStrings = lineStrings }
}

public struct MultiPolygon: Hashable, Sendable {
    public var polygons: [Polygon]
    @inlinable public init(_ polygons: [Polygon]) { self.polygons = polygons }
}

public struct GeometryCollection: Hashable, Sendable {
    public var geometries: [Geometry]
    @inlinable public init(_ geometries: [Geometry]) { self.geometries = geometries }
}

/// Any OGC simple-features geometry, as a plain value: build and inspect it without touching C.
/// Operations backed by GEOS live in `Geometry+*.swift` extensions and go through `GEOSContext`.
public indirect enum Geometry: Hashable, Sendable {
    case point(Point)
    case lineString(LineString)
    case polygon(Polygon)
    case multiPoint(MultiPoint)
    case multiLineString(MultiLineString)
    case multiPolygon(MultiPolygon)
    case geometryCollection(GeometryCollection)
}

/// The OGC type of a geometry, with the names WKT and GeoJSON use.
public enum GeometryType: String, Sendable, CaseIterable, Codable {
    case point = "Point"
    case lineString = "LineString"
    case polygon = "Polygon"
    case multiPoint = "MultiPoint"
    case multiLineString = "MultiLineString"
    case multiPolygon = "MultiPolygon"
    case geometryCollection = "GeometryCollection"

    /// The ISO/OGC WKB type code without dimension offsets (1...7).
    public var wkbCode: UInt32 {
        switch self {
        case .point: 1
        case .lineString: 2
        case .polygon: 3
        case .multiPoint: 4
        case .multiLineString: 5
        case .multiPolygon: 6
        case .geometryCollection: 7
        }
    }

    public var wktKeyword: String { rawValue.uppercased() }
}

extension Geometry {
    public var type: GeometryType {
        switch self {
        case .point: .point
        case .lineString: .lineString
        case .polygon: .polygon
        case .multiPoint: .multiPoint
        case .multiLineString: .multiLineString
        case .multiPolygon: .multiPolygon
        case .geometryCollection: .geometryCollection
        }
    }

    /// Whether the geometry has no positions at all.
    public var isEmpty: Bool {
        var empty = true
        forEachPosition { _ in empty = false }
        return empty
    }

    /// Whether any position carries a height.
    public var hasZ: Bool {
        var z = false
        forEachPosition { if $0.z != nil { z = true } }
        return z
    }

    /// Number of positions (ring closing positions included), as GEOS counts them.
    public var positionCount: Int {
        var n = 0
        forEachPosition { _ in n += 1 }
        return n
    }

    /// The bounding box, or `nil` for an empty geometry.
    public var envelope: Envelope? {
        var env: Envelope?
        forEachPosition { p in
            if env == nil { env = Envelope(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y) } else { env!.expand(toInclude: p) }
        }
        return env
    }

    /// Visits every position in storage order.
    public func forEachPosition(_ body: (Position) throws -> Void) rethrows {
        switch self {
        case .point(let p): if let q = p.position { try body(q) }
        case .lineString(let l): for q in l.positions { try body(q) }
        case .polygon(let p): for r in p.rings { for q in r { try body(q) } }
        case .multiPoint(let m): for p in m.points { if let q = p.position { try body(q) } }
        case .multiLineString(let m): for l in m.lineStrings { for q in l.positions { try body(q) } }
        case .multiPolygon(let m): for p in m.polygons { for r in p.rings { for q in r { try body(q) } } }
        case .geometryCollection(let c): for g in c.geometries { try g.forEachPosition(body) }
        }
    }

    /// A copy with every position replaced by `transform(position)`; structure is kept.
    public func mapPositions(_ transform: (Position) throws -> Position) rethrows -> Geometry {
        func ring(_ r: [Position]) throws -> [Position] { try r.map(transform) }
        func poly(_ p: Polygon) throws -> Polygon {
            Polygon(exterior: try ring(p.exterior), interiors: try p.interiors.map(ring))
        }
        switch self {
        case .point(let p): return .point(Point(try p.position.map(transform)))
        case .lineString(let l): return .lineString(LineString(try ring(l.positions)))
        case .polygon(let p): return .polygon(try poly(p))
        case .multiPoint(let m): return .multiPoint(MultiPoint(try m.points.map { Point(try $0.position.map(transform)) }))
        case .multiLineString(let m): return .multiLineString(MultiLineString(try m.lineStrings.map { LineString(try ring($0.positions)) }))
        case .multiPolygon(let m): return .multiPolygon(MultiPolygon(try m.polygons.map(poly)))
        case .geometryCollection(let c): return .geometryCollection(GeometryCollection(try c.geometries.map { try $0.mapPositions(transform) }))
        }
    }

    /// Nesting depth of collections (0 for a simple geometry).
    public var collectionDepth: Int {
        if case .geometryCollection(let c) = self { return 1 + (c.geometries.map(\.collectionDepth).max() ?? 0) }
        return 0
    }

    /// Convenience constructors with the names users expect.
    public static func point(x: Double, y: Double, z: Double? = nil) -> Geometry { .point(Point(x: x, y: y, z: z)) }
    public static func lineString(_ positions: [Position]) -> Geometry { .lineString(LineString(positions)) }
    public static func polygon(_ exterior: [Position], holes: [[Position]] = []) -> Geometry {
        .polygon(Polygon(exterior: exterior, interiors: holes))
    }
}
