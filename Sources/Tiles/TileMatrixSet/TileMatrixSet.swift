import GeoCore

/// A tile matrix set (OGC TMS 2.0): a CRS, a top-left origin and one `TileMatrix` per level.
///
/// Coordinates in this API are in CityTwin's internal axis order (x = longitude or easting,
/// y = latitude or northing) whatever the CRS's authority order; only the TMS JSON document
/// (`document(baseURL:)`) writes the authority order (lat,lon for EPSG:4490).
///
/// Three sets are built in: `webMercatorQuad` (EPSG:3857, levels 0–24), `worldCRS84Quad`
/// (OGC CRS84, level 0 = 2 × 1 tiles, levels 0–23) and `cgcs2000Quad` (EPSG:4490, compatible
/// with Tianditu's `c` matrix set: levels 1–18, level n = WorldCRS84Quad level n − 1).
public struct TileMatrixSet: Hashable, Sendable, Identifiable {
    /// Identifier used in URLs (`/tileMatrixSets/{id}`).
    public let id: String
    public let title: String
    /// OGC registry URI when the set is registered (`nil` for the CGCS2000 grid).
    public let uri: String?
    /// The CRS tiles are cut in.
    public let crs: CoordinateReferenceSystem
    /// The CRS as OGC URI (`http://www.opengis.net/def/crs/EPSG/0/4490`).
    public let crsURI: String
    /// Axis abbreviations in the CRS's authority order (`["Lat", "Lon"]` for EPSG:4490).
    public let orderedAxes: [String]
    /// Whether the authority order puts y (latitude) first.
    public let isYFirst: Bool
    /// Top-left corner of every matrix, internal order (x, y) in CRS units.
    public let origin: Position
    /// The area the matrices cover, internal order, CRS units.
    public let domain: Envelope
    /// OGC well-known scale set, when the set follows one.
    public let wellKnownScaleSet: String?
    /// The levels, lowest first.
    public let tileMatrices: [TileMatrix]

    /// Identifier of the coarsest level.
    public var minLevel: Int { tileMatrices.first?.id ?? 0 }
    /// Identifier of the finest level.
    public var maxLevel: Int { tileMatrices.last?.id ?? 0 }

    /// The level with identifier `id`.
    /// - Throws: `TileError.outsideMatrix` when the set has no such level.
    public func matrix(_ id: Int) throws -> TileMatrix {
        let index = id - minLevel
        guard index >= 0, index < tileMatrices.count else {
            throw TileError(.outsideMatrix, "tile matrix \(id) is not in \(self.id) (levels \(minLevel)…\(maxLevel))")
        }
        return tileMatrices[index]
    }

    /// The built-in sets, in the order they are listed.
    public static let all: [TileMatrixSet] = [.webMercatorQuad, .worldCRS84Quad, .cgcs2000Quad]

    /// The built-in set with identifier `id`.
    /// - Throws: `TileError.unknownTileMatrixSet`.
    public static func named(_ id: String) throws -> TileMatrixSet {
        guard let tms = all.first(where: { $0.id == id }) else {
            throw TileError(.unknownTileMatrixSet, "no tile matrix set '\(id)' (known: \(all.map(\.id).joined(separator: ", ")))")
        }
        return tms
    }

    /// The OGC standardized rendering pixel: 0.28 mm.
    public static let ogcPixelSize = 0.00028
    /// Tianditu's rendering pixel: 1/96 inch (≈ 0.2646 mm), used in its published scale denominators.
    public static let tiandituPixelSize = 0.0254 / 96
    /// Metres per degree on the equator of the WGS 84 / CGCS2000 ellipsoid (a = 6,378,137 m),
    /// the OGC convention for scale denominators of geographic matrix sets.
    public static let metresPerDegree = 2 * Double.pi * 6_378_137 / 360

    /// The Tianditu (96-DPI) scale denominator of a level of `cgcs2000Quad`, as Tianditu's
    /// GetCapabilities prints it (2.958293554545656E8 at level 1). Documentation only: the
    /// published TMS uses the OGC 0.28 mm values, and geometry comes from `cellSize`.
    public static func tiandituScaleDenominator(_ matrix: TileMatrix) -> Double {
        matrix.cellSize * metresPerDegree / tiandituPixelSize
    }
}

extension TileMatrixSet {
    /// Web Mercator (EPSG:3857), Google-compatible: level z has 2^z × 2^z tiles, 0–24.
    public static let webMercatorQuad: TileMatrixSet = {
        let half = 20_037_508.342789244
        let cell0 = 2 * half / 256   // 156,543.033928041 m/px
        return TileMatrixSet(
            id: "WebMercatorQuad", title: "Google Maps Compatible for the World (Web Mercator)",
            uri: "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad",
            crs: .webMercator, crsURI: "http://www.opengis.net/def/crs/EPSG/0/3857",
            orderedAxes: ["X", "Y"], isYFirst: false,
            origin: Position(x: -half, y: half), domain: Envelope(minX: -half, minY: -half, maxX: half, maxY: half),
            wellKnownScaleSet: "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible",
            tileMatrices: (0...24).map { z in
                let cell = cell0 / Double(1 << z)
                return TileMatrix(id: z, cellSize: cell, scaleDenominator: cell / ogcPixelSize,
                                  matrixWidth: 1 << z, matrixHeight: 1 << z)
            })
    }()

    /// Plate carrée in OGC CRS84 (lon, lat): level k has 2^(k+1) × 2^k tiles of 180/2^k degrees, 0–23.
    public static let worldCRS84Quad = geographicQuad(
        id: "WorldCRS84Quad", title: "CRS84 for the World", uri: "http://www.opengis.net/def/tilematrixset/OGC/1.0/WorldCRS84Quad",
        crs: .crs84, crsURI: "http://www.opengis.net/def/crs/OGC/1.3/CRS84", orderedAxes: ["Lon", "Lat"], isYFirst: false,
        wellKnownScaleSet: "http://www.opengis.net/def/wkss/OGC/1.0/GoogleCRS84Quad", levels: 0...23, firstID: 0)

    /// CGCS2000 geographic (EPSG:4490, axes lat,lon), compatible with Tianditu's `c` matrix set:
    /// level ids 1…18 (clients use `zoomOffset: 1`), level n has the geometry of WorldCRS84Quad
    /// level n − 1 (2 × 1 tiles of 0.703125°/px at level 1). Not in the OGC registry, so it has
    /// no `uri`. Scale denominators are the OGC 0.28 mm ones (279,541,132.01 at level 1);
    /// Tianditu's own capabilities use a 96-DPI pixel (295,829,355.45 at level 1, see
    /// `tiandituScaleDenominator(_:)`), which is why resolution is always taken from `cellSize`.
    public static let cgcs2000Quad = geographicQuad(
        id: "CGCS2000Quad", title: "CGCS2000 geographic quad, Tianditu c compatible (天地图经纬度投影)", uri: nil,
        crs: .cgcs2000, crsURI: "http://www.opengis.net/def/crs/EPSG/0/4490", orderedAxes: ["Lat", "Lon"], isYFirst: true,
        wellKnownScaleSet: nil, levels: 0...17, firstID: 1)

    private static func geographicQuad(id: String, title: String, uri: String?, crs: CoordinateReferenceSystem, crsURI: String,
                                       orderedAxes: [String], isYFirst: Bool, wellKnownScaleSet: String?,
                                       levels: ClosedRange<Int>, firstID: Int) -> TileMatrixSet {
        TileMatrixSet(
            id: id, title: title, uri: uri, crs: crs, crsURI: crsURI, orderedAxes: orderedAxes, isYFirst: isYFirst,
            origin: Position(x: -180, y: 90), domain: Envelope(minX: -180, minY: -90, maxX: 180, maxY: 90),
            wellKnownScaleSet: wellKnownScaleSet,
            tileMatrices: levels.map { k in
                let cell = 0.703125 / Double(1 << k)
                return TileMatrix(id: k + firstID, cellSize: cell, scaleDenominator: cell * metresPerDegree / ogcPixelSize,
                                  matrixWidth: 2 << k, matrixHeight: 1 << k)
            })
    }
}
