import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The rasters a run writes beside a result layer (a flood run's maximum-depth grid beside its
/// depth layer), kept as files in one directory per layer (`<directory>/<layer id>/<name>`) and
/// served at `/collections/{layer id}/rasters/{name}` under the layer's own access rules: a
/// raster is part of the layer it belongs to, so whoever may read the layer may download it and
/// nobody else. Results and the CLI give that path, never a file path on the server.
///
/// Names are plain file names (`[A-Za-z0-9][A-Za-z0-9_.-]*`, no `..`, at most 128 bytes) with an
/// extension this type knows the media type of, so a name can never reach outside its layer's
/// directory.
public struct ResultRasters: Sendable, Hashable {
    /// The root: one subdirectory per layer.
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The rasters of a SpatiaLite store in `storeDirectory` (`<storeDirectory>/rasters`).
    public static func beside(storeDirectory: URL) -> ResultRasters {
        ResultRasters(directory: storeDirectory.appendingPathComponent("rasters", isDirectory: true))
    }

    /// Media types by file extension. ESRI ASCII grids are text; the `application` parameter
    /// names the format as OGC does for GeoTIFF (`image/tiff; application=geotiff`).
    static let mediaTypes: [String: String] = [
        "asc": "text/plain; charset=us-ascii; application=esri-asciigrid",
        "tif": "image/tiff; application=geotiff",
        "png": "image/png",
        "json": "application/json",
        "csv": "text/csv; charset=utf-8",
    ]

    /// The media type of raster `name`, or nil for a name this type does not serve.
    public static func mediaType(of name: String) -> String? {
        guard isValidName(name), let dot = name.lastIndex(of: ".") else { return nil }
        return mediaTypes[name[name.index(after: dot)...].lowercased()]
    }

    /// Whether `name` is a plain raster file name: `[A-Za-z0-9][A-Za-z0-9_.-]*`, no `..`, ≤ 128 bytes.
    public static func isValidName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        guard let first = u.first, u.count <= 128, isAlphanumeric(first), !name.contains("..") else { return false }
        return u.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (48...57).contains(c) || (65...90).contains(c) || (97...122).contains(c)
    }

    /// The path of raster `name` of `layer` relative to the API's root, as results give it
    /// (`/collections/flood_p50_waterlogging_depth/rasters/flood_p50_waterlogging_maxdepth.asc`).
    public static func path(layer: String, name: String) -> String {
        "/collections/\(layer)/rasters/\(name)"
    }

    /// The file of raster `name` of `layer`, or nil when either is not a safe name (so no
    /// request can name a file outside the layer's directory).
    public func file(layer: String, name: String) -> URL? {
        guard LayerDefinition.isSafeIdentifier(layer), Self.mediaType(of: name) != nil else { return nil }
        return directory.appendingPathComponent(layer, isDirectory: true).appendingPathComponent(name)
    }

    /// Removes every raster of `layer` (its directory), when it has any.
    public func remove(layer: String) throws {
        guard LayerDefinition.isSafeIdentifier(layer) else { return }
        let dir = directory.appendingPathComponent(layer, isDirectory: true)
        if FileManager.default.fileExists(atPath: dir.path) { try FileManager.default.removeItem(at: dir) }
    }

    /// The rasters `layer` has, by name.
    public func names(layer: String) -> [String] {
        guard LayerDefinition.isSafeIdentifier(layer) else { return [] }
        let dir = directory.appendingPathComponent(layer, isDirectory: true)
        let all = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return all.filter { Self.mediaType(of: $0) != nil }.sorted()
    }

    /// Writes `data` as file `name` beside `layer` (atomically) and returns its API path: the
    /// series and indexes a run keeps beside its grids (`FloodTimeSteps`).
    /// - Throws: `ScenarioError` for an unsafe layer id or name; file-system errors.
    @discardableResult
    public func write(_ data: Data, layer: String, name: String) throws -> String {
        guard let url = file(layer: layer, name: name) else {
            throw ScenarioError(.invalidScenario, "file '\(name)' of layer '\(layer)' is not a safe result file name", field: "raster")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
        return Self.path(layer: layer, name: name)
    }

    /// Writes `grid` as an ESRI ASCII grid named `name` beside `layer` (atomically: a reader sees
    /// the previous run's file or this one) and returns its API path.
    /// - Throws: `ScenarioError` for an unsafe layer id or name; file-system errors.
    @discardableResult
    public func write(_ grid: Grid, layer: String, name: String, precision: Int? = nil) throws -> String {
        guard name.lowercased().hasSuffix(".asc"), let url = file(layer: layer, name: name) else {
            throw ScenarioError(.invalidScenario, "raster '\(name)' of layer '\(layer)' is not a safe ESRI ASCII grid name", field: "raster")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try grid.write(esriASCIITo: url, precision: precision)
        return Self.path(layer: layer, name: name)
    }
}
