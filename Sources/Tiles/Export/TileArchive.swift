import Foundation
import GeoCore

/// What a tile archive says about itself besides its tiles: a TileJSON-like description
/// (name, zoom range, bounds and centre in lon/lat degrees, `vector_layers`).
public struct TileArchiveMetadata: Sendable {
    public var name: String
    public var description: String
    public var attribution: String
    public var minZoom: Int
    public var maxZoom: Int
    /// West, south, east, north in degrees.
    public var bounds: Envelope
    /// Centre longitude, latitude (degrees) and zoom.
    public var center: (lon: Double, lat: Double, zoom: Int)
    /// TileJSON `vector_layers` entries (`VectorLayers.entry`).
    public var vectorLayers: [JSONValue]

    public init(name: String, description: String = "", attribution: String = "CityTwin 城市数字孪生", minZoom: Int, maxZoom: Int,
                bounds: Envelope, center: (lon: Double, lat: Double, zoom: Int)? = nil, vectorLayers: [JSONValue]) {
        self.name = name
        self.description = description
        self.attribution = attribution
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.center = center ?? (bounds.center.x, bounds.center.y, min(maxZoom, max(minZoom, 14)))
        self.vectorLayers = vectorLayers
    }

    /// The JSON object archives embed (`json` in MBTiles, the metadata section of PMTiles).
    var json: JSONValue {
        ["name": .string(name), "description": .string(description), "attribution": .string(attribution),
         "type": "overlay", "version": "1", "vector_layers": .array(vectorLayers)]
    }
}

/// A single-file archive of gzip-compressed Mapbox Vector Tiles on the WebMercatorQuad grid
/// (z/x/y with y counted from the north, as XYZ URLs), for static hosting.
/// `append` may be called in any tile order, once per tile; `finish` writes the file.
public protocol TileArchiveWriter {
    /// Adds one gzip-compressed MVT tile. Empty tiles are not added.
    func append(zoom: Int, x: Int, y: Int, gzippedTile: [UInt8]) throws
    /// Completes the archive with its metadata; no tile may be added after.
    func finish(_ metadata: TileArchiveMetadata) throws
}

/// The archive formats `citytwin export tiles` writes.
public enum TileArchiveFormat: String, CaseIterable, Sendable {
    /// PMTiles version 3 (protomaps): one file served with HTTP range requests.
    case pmtiles
    /// MBTiles 1.3 (SQLite, TMS row order).
    case mbtiles

    /// The format a file name's extension names, if any.
    public init?(path: String) {
        self.init(rawValue: (path as NSString).pathExtension.lowercased())
    }

    /// A new writer creating `path` (which must not exist).
    public func writer(path: String) throws -> any TileArchiveWriter {
        switch self {
        case .pmtiles: try PMTilesWriter(path: path)
        case .mbtiles: try MBTilesWriter(path: path)
        }
    }
}
