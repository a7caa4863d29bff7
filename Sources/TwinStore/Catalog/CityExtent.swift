import Foundation
import GeoCore

/// Where the city's data lies: the extent of every layer's current features in the catalogue
/// (EPSG:4490 lon/lat degrees), widened by ``margin`` metres on every side. A feature written outside
/// it (a shelter placed in Beijing, axes swapped, a projected coordinate read as degrees) is refused
/// unless the writer says the data really lies there: `?allowOutsideExtent=true` on a Features API
/// write, `--allow-outside-extent` on `citytwin import`.
public struct CityExtent: Sendable, Hashable {
    /// How far (m) beyond the catalogue's extent a feature may lie: room for the city's next district
    /// or a reservoir upstream, not for another city.
    public static let margin = 10_000.0

    /// The catalogue's extent (degrees).
    public var catalogue: Envelope
    /// ``catalogue`` widened by ``margin`` (degrees, the east–west margin at the extent's widest latitude).
    public var allowed: Envelope

    public init(catalogue: Envelope, margin: Double = CityExtent.margin) {
        self.catalogue = catalogue
        let dy = margin / 111_320
        let widest = max(abs(catalogue.minY), abs(catalogue.maxY))
        let dx = margin / (111_320 * max(0.01, cos(min(widest, 89) * .pi / 180)))
        allowed = Envelope(minX: catalogue.minX - dx, minY: catalogue.minY - dy, maxX: catalogue.maxX + dx, maxY: catalogue.maxY + dy)
    }

    /// The extent of the catalogue of `store` (every layer, as the administrator sees it); nil while
    /// no layer holds a geometry (the first data defines the city).
    public static func of(_ store: any FeatureStore) async throws -> CityExtent? {
        var union: Envelope?
        for info in try await store.layers(for: .admin) {
            guard let e = info.extent, [e.minX, e.minY, e.maxX, e.maxY].allSatisfy(\.isFinite) else { continue }
            if union == nil { union = e } else { union?.expand(toInclude: e) }
        }
        return union.map { CityExtent(catalogue: $0) }
    }

    /// The first position of `geometry` (EPSG:4490 degrees) outside ``allowed``, nil when all lie inside.
    public func outside(_ geometry: Geometry) -> Position? {
        var found: Position?
        geometry.forEachPosition { p in
            if found == nil, !(p.x >= allowed.minX && p.x <= allowed.maxX && p.y >= allowed.minY && p.y <= allowed.maxY) { found = p }
        }
        return found
    }

    /// Whether the box `box` (degrees) meets ``allowed``: an analysis or a print of a box that does not
    /// lies wholly in another place, where the city's data says nothing (an empty answer there would
    /// read as "nothing affected").
    public func meets(_ box: Envelope) -> Bool { allowed.intersects(box) }

    /// Why an area or box wholly outside ``allowed`` is refused, with the range allowed.
    public func areaRefusal(_ box: Envelope) -> String {
        let f = { (v: Double) in String(format: "%.4f", v) }
        return "[\(f(box.minX)), \(f(box.minY)), \(f(box.maxX)), \(f(box.maxY))] lies wholly outside the city's extent: longitude "
            + "\(f(allowed.minX))…\(f(allowed.maxX)), latitude \(f(allowed.minY))…\(f(allowed.maxY)) (the catalogue's extent widened by "
            + "\(Int(Self.margin / 1000)) km, EPSG:4490/CRS84 lon, lat): the city's data says nothing there"
    }

    /// Why `position` is refused and the range allowed, e.g. for a problem's detail or an import error.
    public func refusal(_ position: Position, override: String) -> String {
        let f = { (v: Double) in String(format: "%.4f", v) }
        return "position [\(f(position.x)), \(f(position.y))] lies outside the city's extent: longitude \(f(allowed.minX))…\(f(allowed.maxX)), "
            + "latitude \(f(allowed.minY))…\(f(allowed.maxY)) (the catalogue's extent widened by \(Int(Self.margin / 1000)) km, EPSG:4490/CRS84 lon, lat); "
            + "data that really lies there is written with \(override)"
    }
}
