import Foundation
import GeoCore

/// The piece of the world a map shows: a box in a CRS drawn onto `width` × `height` pixels, with
/// the transformer from the storage CRS (EPSG:4490 lon/lat) into it. Positions are in CityTwin's
/// internal order (x east/longitude, y north/latitude) whatever the CRS's axis order.
///
/// `zoom` is the MapLibre zoom of the same scale (512-pixel Web Mercator tiles), which is what
/// the style's `minzoom` and zoom-interpolated widths are written against:
/// z = log2(360° · width px / (512 px · Δlon)).
public struct MapView: Sendable {
    public let bbox: Envelope
    public let crs: CoordinateReferenceSystem
    public let width: Int
    public let height: Int
    /// The view's box in EPSG:4490 (lon/lat degrees), for reading features.
    public let storageEnvelope: Envelope
    public let zoom: Double
    let fromStorage: CoordinateTransformer

    /// The CRS features are stored in.
    public static let storageCRS = CoordinateReferenceSystem.cgcs2000

    /// - Throws: `MapRenderingError` `.request` for an empty box or size; `GeometryError` when
    ///   PROJ cannot relate `crs` to the storage CRS.
    public init(bbox: Envelope, crs: CoordinateReferenceSystem, width: Int, height: Int) throws {
        guard bbox.width > 0, bbox.height > 0, bbox.minX.isFinite, bbox.maxY.isFinite else {
            throw MapRenderingError(.request, "the map's box \(bbox) is empty: its minimum must be below its maximum on both axes")
        }
        guard width > 0, height > 0 else { throw MapRenderingError(.request, "a map of \(width)×\(height) pixels has nothing to draw") }
        self.bbox = bbox
        self.crs = crs
        self.width = width
        self.height = height
        fromStorage = try CoordinateTransformer.shared(from: Self.storageCRS, to: crs)
        storageEnvelope = try fromStorage.inverse.transform(bbox)
        let degrees = max(storageEnvelope.width, 1e-12)
        zoom = log2(360 * Double(width) / (512 * degrees))
    }

    /// Pixels per CRS unit across and down.
    var scaleX: Double { Double(width) / bbox.width }
    var scaleY: Double { Double(height) / bbox.height }

    /// The pixel (from the top-left corner) of a position in the view's CRS.
    @inline(__always) public func pixel(_ p: Position) -> (x: Double, y: Double) {
        ((p.x - bbox.minX) * scaleX, (bbox.maxY - p.y) * scaleY)
    }

    /// A stored geometry (EPSG:4490) in pixels: its parts as rings or lines, by kind.
    public func pixels(_ geometry: Geometry) throws -> PixelGeometry {
        var out = PixelGeometry()
        try collect(fromStorage.transform(geometry), into: &out)
        return out
    }

    private func collect(_ g: Geometry, into out: inout PixelGeometry) throws {
        switch g {
        case .point(let p): if let q = p.position { out.points.append(pixel(q)) }
        case .multiPoint(let m): for p in m.points { if let q = p.position { out.points.append(pixel(q)) } }
        case .lineString(let l): out.lines.append(l.positions.map(pixel))
        case .multiLineString(let m): out.lines += m.lineStrings.map { $0.positions.map(pixel) }
        case .polygon(let p): out.polygons.append(p.rings.map { $0.map(pixel) })
        case .multiPolygon(let m): out.polygons += m.polygons.map { $0.rings.map { $0.map(pixel) } }
        case .geometryCollection(let c): for part in c.geometries { try collect(part, into: &out) }
        }
    }

    /// The stored (EPSG:4490) position under pixel (i, j) counted from the top-left corner
    /// (the pixel's centre), as WMS GetFeatureInfo's I and J name it.
    public func storagePosition(i: Double, j: Double) throws -> Position {
        let p = Position(x: bbox.minX + (i + 0.5) / scaleX, y: bbox.maxY - (j + 0.5) / scaleY)
        return try fromStorage.inverse.transform(p)
    }
}

/// A geometry in pixel space, split by what draws it.
public struct PixelGeometry: Sendable {
    public typealias Pixel = (x: Double, y: Double)
    public var points: [Pixel] = []
    public var lines: [[Pixel]] = []
    /// Each polygon's rings, exterior first.
    public var polygons: [[[Pixel]]] = []

    public init(points: [Pixel] = [], lines: [[Pixel]] = [], polygons: [[[Pixel]]] = []) {
        self.points = points
        self.lines = lines
        self.polygons = polygons
    }

    /// MapLibre's geometry type of the feature (for `geometry-type`).
    public var geometryType: String { !polygons.isEmpty ? "Polygon" : !lines.isEmpty ? "LineString" : "Point" }
}
