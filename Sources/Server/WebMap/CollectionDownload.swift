import Foundation
import GeoCore
import Hummingbird
import Tiles
import TwinStore

/// The download encodings of `/collections/{collectionId}/items` (`f=csv`, `f=gpkg`): the
/// WHOLE selection (bbox, filter, datetime, properties, asOf; `limit` and paging do not
/// apply), read from the store in bounded chunks through `FeatureStore.stream`, masked as the
/// caller may see it.
enum DownloadFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV, UTF-8 with a BOM (Excel on zh-CN Windows reads it as UTF-8), geometry as WKT.
    case csv
    /// An OGC GeoPackage 1.3 file with one feature table.
    case gpkg

    static let csvMediaType = "text/csv; charset=utf-8; header=present"
    static let geoPackageMediaType = "application/geopackage+sqlite3"

    /// The download asked for by `f`, if any (`json`/`html` are not downloads).
    init?(_ query: QueryParameters) {
        guard let f = query["f"], let format = DownloadFormat(rawValue: f.lowercased()) else { return nil }
        self = format
    }
}

extension APIParameter {
    /// `asOf`: read the collection as it was at an instant (its versions valid then).
    static let asOf = APIParameter(
        "asOf", "RFC 3339 date-time (e.g. 2024-05-01T08:00:00Z): return the features as they were at that instant, from the layer's versions (time travel). Default: now.",
        schema: ["type": "string", "format": "date-time"])
}

/// The `asOf` query parameter.
enum AsOfParameter {
    /// - Throws: `invalid-parameter` naming `asOf` for anything but an RFC 3339 date-time.
    static func parse(_ query: QueryParameters) throws -> Date? {
        try instant(query, "asOf")
    }

    /// Query parameter `name` as an instant (`asOf`, a diff's `from` and `to`).
    /// - Throws: `invalid-parameter` naming it for anything but an RFC 3339 date-time.
    static func instant(_ query: QueryParameters, _ name: String) throws -> Date? {
        guard let text = query[name] else { return nil }
        guard text.contains("T") || text.contains("t"), let instant = DateTimeParameter.instant(text, dayEnd: false) else {
            throw Problem.invalid(name, "'\(text)' is not an RFC 3339 date-time such as 2024-05-01T08:00:00Z")
        }
        return instant
    }
}

/// Whole-selection downloads of a collection (`f=csv`, `f=gpkg` on its items).
extension ItemRoutes {
    /// Features read per store round trip while writing a download.
    static let downloadChunk = 1000

    /// The whole selection of `items` as CSV or GeoPackage, with a `Content-Disposition` file name.
    func download(_ format: DownloadFormat, layer info: LayerInfo, items: ItemsRequest, query: QueryParameters,
                  caller: Caller) async throws -> Representation {
        var selection = items.query
        selection.limit = Self.downloadChunk
        let definition = info.definition
        let stream = store.stream(layer: definition.id, selection, by: caller)
        var headers = HTTPFields()
        switch format {
        case .csv:
            headers[.contentDisposition] = "attachment; filename=\"\(definition.id).csv\""
            headers[.contentCRS] = "<\(items.projection.target.uri)>"
            let body = try await csv(stream, layer: definition, items: items)
            return Representation(mediaType: DownloadFormat.csvMediaType, body: body, headers: headers)
        case .gpkg:
            headers[.contentDisposition] = "attachment; filename=\"\(definition.id).gpkg\""
            let body = try await geoPackage(stream, layer: definition, query: query)
            return Representation(mediaType: DownloadFormat.geoPackageMediaType, body: body, headers: headers)
        }
    }

    private func csv(_ stream: AsyncThrowingStream<Feature, any Error>, layer: LayerDefinition,
                     items: ItemsRequest) async throws -> [UInt8] {
        let projection = items.projection
        var chunk: [Feature] = []
        var columns = items.query.properties ?? layer.schema.properties.keys.sorted()
        if columns.isEmpty {
            // No schema: the columns are the union of the properties, so read everything first.
            var all: [Feature] = []
            for try await f in stream { all.append(f) }
            columns = Set(all.flatMap(\.properties.keys)).sorted()
            chunk = all
        }
        var writer = CSVWriter(columns: columns, schema: layer.schema, precision: projection.precision, hasGeometry: layer.hasGeometry)
        func flush() throws {
            for f in try projectForDownload(chunk, projection) { writer.append(f) }
            chunk.removeAll(keepingCapacity: true)
        }
        if !chunk.isEmpty { try flush() }
        for try await f in stream {
            chunk.append(f)
            if chunk.count >= Self.downloadChunk { try flush() }
        }
        try flush()
        return writer.takeBytes()
    }

    /// A GeoPackage in EPSG:4490 (default) or, with `crs` CRS84 / EPSG:4326, in WGS 84 —
    /// both lon/lat as GeoPackage requires. Written to a temporary file, read back, removed.
    private func geoPackage(_ stream: AsyncThrowingStream<Feature, any Error>, layer: LayerDefinition,
                            query: QueryParameters) async throws -> [UInt8] {
        var srsID = LayerDefinition.storageSRID
        if let text = query["crs"] {
            let crs = try CRSParameter.parse(text, parameter: "crs")
            switch crs {
            case .cgcs2000: srsID = 4490
            case .crs84, .wgs84: srsID = 4326
            default:
                throw Problem(.invalidCRS, "parameter 'crs': a GeoPackage download is in EPSG:4490 (default) or CRS84/EPSG:4326, not \(crs.uri)",
                              parameter: "crs")
            }
        }
        let transformer = try CoordinateTransformer.shared(from: CRSParameter.storage, to: srsID == 4326 ? .crs84 : .cgcs2000)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-gpkg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("\(layer.id).gpkg").path
        let writer: GeoPackageWriter
        do {
            writer = try GeoPackageWriter(path: path, layer: layer, srsID: srsID)
        } catch let e as TileError {
            throw Problem(.invalidParameter, e.message, parameter: "crs")
        }
        var chunk: [Feature] = []
        func flush() throws {
            if !transformer.isIdentity {
                for i in chunk.indices { if let g = chunk[i].geometry { chunk[i].geometry = try transformer.transform(g) as Geometry } }
            }
            try writer.append(chunk)
            chunk.removeAll(keepingCapacity: true)
        }
        for try await f in stream {
            chunk.append(f)
            if chunk.count >= Self.downloadChunk { try flush() }
        }
        try flush()
        try writer.finish()
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Features in the response CRS; a position the CRS cannot represent is the `crs` parameter's fault.
    private func projectForDownload(_ features: [Feature], _ projection: FeatureProjection) throws -> [Feature] {
        do {
            return try projection.project(features)
        } catch let e as GeometryError {
            throw Problem(.invalidCRS, "parameter 'crs': \(e.message)", parameter: "crs")
        }
    }
}
