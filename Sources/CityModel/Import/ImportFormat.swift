import Foundation
import GeoCore

/// The file formats `citytwin import` reads into one layer. Shapefiles, GeoPackages and every
/// other vector format GDAL reads (`gdal`: FileGDB, DXF, MapInfo, KML, GML, FlatGeobuf,
/// OpenStreetMap, …) are read through GDAL (`GDALSource`).
public enum ImportFormat: String, Sendable, Hashable, CaseIterable {
    case geojson, geojsonseq, csv, shapefile, geopackage, gdal

    /// The format a file name implies: `.geojson`/`.json`, `.geojsonl`/`.geojsons`/`.ndjson`/`.jsonl`,
    /// `.csv`/`.txt`, `.shp`, `.gpkg`, and GDAL for the extensions of `gdalExtensions`; `nil` for anything else.
    public init?(file: URL) {
        let ext = file.pathExtension.lowercased()
        switch ext {
        case "geojson", "json": self = .geojson
        case _ where GeoJSONSource.sequenceExtensions.contains(ext): self = .geojsonseq
        case "csv", "txt", "tsv": self = .csv
        case "shp": self = .shapefile
        case "gpkg": self = .geopackage
        case _ where Self.gdalExtensions.contains(ext): self = .gdal
        default: return nil
        }
    }

    /// Extensions read through GDAL without `--format`: FileGDB folders, DXF, MapInfo, KML/KMZ,
    /// GML, FlatGeobuf, OpenStreetMap XML and PBF, SpatiaLite, GPX.
    public static let gdalExtensions: Set<String> = ["gdb", "dxf", "tab", "mif", "kml", "kmz", "gml", "fgb", "osm", "pbf", "sqlite", "gpx"]
}

/// Options for reading a source (the CLI's `--encoding`, `--x`, `--y`, `--wkt`, `--gpkg-layer`).
public struct SourceOptions: Sendable, Hashable {
    /// Text encoding of CSV files (Shapefiles use their `.cpg`, else this).
    public var encoding: TextEncoding?
    /// Coordinate columns of a CSV file; found by name when `nil`.
    public var xColumn: String?
    public var yColumn: String?
    /// WKT column of a CSV file; found by name when `nil`.
    public var wktColumn: String?
    /// The layer of a multi-layer file to read (a GeoPackage table, a FileGDB feature class, an
    /// OSM extract's `lines`); the only layer when `nil`.
    public var table: String?

    /// The target layer stores no geometry (counts, population tables): a CSV file needs no
    /// geometry columns, and any it has stay properties.
    public var attributesOnly: Bool

    public init(encoding: TextEncoding? = nil, xColumn: String? = nil, yColumn: String? = nil,
                wktColumn: String? = nil, table: String? = nil, attributesOnly: Bool = false) {
        self.attributesOnly = attributesOnly
        self.encoding = encoding
        self.xColumn = xColumn
        self.yColumn = yColumn
        self.wktColumn = wktColumn
        self.table = table
    }
}

extension ImportFormat {
    /// A reader for `file` in this format.
    /// - Parameter keepIDColumn: keep a CSV `id` column as a property (when the layer schema has one).
    public func open(_ file: URL, options: SourceOptions = .init(), keepIDColumn: Bool = false) throws -> any FeatureSource {
        switch self {
        case .geojson: return try GeoJSONSource(file: file, sequence: false)
        case .geojsonseq: return try GeoJSONSource(file: file, sequence: true)
        case .csv:
            var columns: CSVSource.GeometryColumns? = options.attributesOnly ? CSVSource.GeometryColumns.attributesOnly : nil
            if let w = options.wktColumn { columns = .wkt(w) }
            if options.xColumn != nil || options.yColumn != nil {
                columns = .xy(x: options.xColumn ?? "x", y: options.yColumn ?? "y")
            }
            return try CSVSource(file: file, encoding: options.encoding ?? .utf8, geometry: columns, keepIDColumn: keepIDColumn)
        case .shapefile, .geopackage, .gdal: return try GDALSource(file: file, layer: options.table, encoding: options.encoding)
        }
    }
}
