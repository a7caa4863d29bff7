import Foundation
import GeoCore
import GRDB
import TwinStore

/// Writes one feature table to a new OGC GeoPackage 1.3 file (`.gpkg`): the required
/// `gpkg_spatial_ref_sys` (with EPSG:4490 CGCS2000 and EPSG:4326 WGS 84), `gpkg_contents` and
/// `gpkg_geometry_columns`, and a table with `fid INTEGER PRIMARY KEY`, the feature `id`, one
/// typed column per schema property and a `geom` column of GeoPackage binary geometries
/// (header with the SRS id and the xy envelope, then ISO WKB).
///
/// ```swift
/// let writer = try GeoPackageWriter(path: "/tmp/shelters.gpkg", layer: definition, srsID: 4490)
/// try writer.append(features)   // any number of times, one transaction each
/// try writer.finish()           // writes the extent into gpkg_contents
/// ```
public final class GeoPackageWriter {
    /// The EPSG codes this writer can declare (the GeoPackage coordinates are x = longitude).
    public static let supportedSRSIDs: Set<Int32> = [4490, 4326]

    /// The feature table's name (the layer id).
    public let table: String
    /// One column per property: name and GeoPackage SQL type.
    public let columns: [(name: String, type: String)]
    public let srsID: Int32
    private let queue: DatabaseQueue
    private let hasGeometry: Bool
    private var extent: Envelope?
    private let insertSQL: String

    /// Creates the file (it must not exist) and its tables.
    /// - Parameters:
    ///   - layer: gives the table name, title, geometry type and the typed property columns
    ///     (`integer` → INTEGER, `number` → DOUBLE, `boolean` → BOOLEAN, `date` → DATE,
    ///     `date-time` → DATETIME, others TEXT; objects and arrays are written as JSON text).
    ///   - srsID: EPSG code of the coordinates that will be appended: 4490 or 4326 (degrees, lon/lat).
    public init(path: String, layer: LayerDefinition, srsID: Int32 = LayerDefinition.storageSRID) throws {
        guard Self.supportedSRSIDs.contains(srsID) else {
            throw TileError(.invalidArgument, "a GeoPackage download is written in EPSG:4490 or EPSG:4326, not EPSG:\(srsID)")
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw TileError(.invalidArgument, "the GeoPackage file \(path) already exists")
        }
        table = layer.id
        self.srsID = srsID
        hasGeometry = layer.hasGeometry
        let reserved: Set<String> = ["fid", "geom", "id"]
        columns = layer.schema.properties.keys.sorted().filter { !reserved.contains($0.lowercased()) }.map { name in
            (name, Self.sqlType(layer.schema.scalarType(of: name)))
        }
        queue = try DatabaseQueue(path: path)
        let quotedTable = Self.quote(table)
        var names = ["id"] + columns.map(\.name)
        if hasGeometry { names.append("geom") }
        insertSQL = "INSERT INTO \(quotedTable) (\(names.map(Self.quote).joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
        let geometryTypeName = layer.geometryType.map { $0.rawValue.uppercased() } ?? "GEOMETRY"
        let z = layer.hasZ ? 1 : 0
        try queue.write { db in
            try db.execute(sql: "PRAGMA application_id = 1196444487")  // 'GPKG'
            try db.execute(sql: "PRAGMA user_version = 10300")         // GeoPackage 1.3.0
            try db.execute(sql: """
                CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
                  organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL,
                  description TEXT);
                CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
                  identifier TEXT UNIQUE, description TEXT DEFAULT '',
                  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
                  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
                  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
                CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
                  geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
                  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
                  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
                  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
                  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
                """)
            for srs in Self.spatialReferenceSystems {
                try db.execute(sql: "INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [srs.name, srs.id, srs.organization, srs.code, srs.definition, srs.description])
            }
            var ddl = "CREATE TABLE \(quotedTable) (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, id TEXT"
            for c in columns { ddl += ", \(Self.quote(c.name)) \(c.type)" }
            if hasGeometry { ddl += ", geom \(geometryTypeName)" }
            try db.execute(sql: ddl + ")")
            try db.execute(sql: "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, ?, ?, ?, ?)",
                           arguments: [table, hasGeometry ? "features" : "attributes", layer.title.zh,
                                       layer.title.en, hasGeometry ? srsID : nil])
            if hasGeometry {
                try db.execute(sql: "INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, ?, 0)",
                               arguments: [table, geometryTypeName, srsID, z])
            }
        }
    }

    /// Appends features (coordinates in `srsID`, x = longitude) in one transaction.
    public func append(_ features: [Feature]) throws {
        guard !features.isEmpty else { return }
        var batchExtent = extent
        try queue.write { db in
            let statement = try db.cachedStatement(sql: insertSQL)
            for f in features {
                var values: [(any DatabaseValueConvertible)?] = [f.id?.description]
                for c in columns { values.append(Self.databaseValue(f.properties[c.name])) }
                if hasGeometry {
                    values.append(f.geometry.map { Data(GeoPackageGeometry.encode($0, srsID: srsID)) })
                    if let e = f.geometry?.envelope {
                        if batchExtent == nil { batchExtent = e } else { batchExtent?.expand(toInclude: e) }
                    }
                }
                try statement.execute(arguments: StatementArguments(values))
            }
        }
        extent = batchExtent
    }

    /// Records the extent of what was appended in `gpkg_contents` and closes the file.
    public func finish() throws {
        let e = extent
        try queue.write { db in
            try db.execute(sql: "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, last_change = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE table_name = ?",
                           arguments: [e?.minX, e?.minY, e?.maxX, e?.maxY, table])
        }
        try queue.close()
    }

    static func sqlType(_ t: PropertyType) -> String {
        switch t {
        case .integer: "INTEGER"
        case .number: "DOUBLE"
        case .boolean: "BOOLEAN"
        case .date: "DATE"
        case .dateTime: "DATETIME"
        case .string, .json: "TEXT"
        }
    }

    static func databaseValue(_ v: JSONValue?) -> (any DatabaseValueConvertible)? {
        switch v {
        case nil, .null?: return nil
        case .bool(let b)?: return b ? 1 : 0
        case .integer(let i)?: return i
        case .number(let d)?: return d
        case .string(let s)?: return s
        case let other?:
            let encoder = JSONOutput.encoder(.canonical)
            return (try? encoder.encode(other)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The rows of `gpkg_spatial_ref_sys`: the two the specification requires for undefined
    /// systems, WGS 84 (required) and CGCS2000, with their EPSG WKT 1 definitions.
    static let spatialReferenceSystems: [(name: String, id: Int32, organization: String, code: Int32, definition: String, description: String)] = [
        ("Undefined cartesian SRS", -1, "NONE", -1, "undefined", "undefined cartesian coordinate reference system"),
        ("Undefined geographic SRS", 0, "NONE", 0, "undefined", "undefined geographic coordinate reference system"),
        ("WGS 84 geodetic", 4326, "EPSG", 4326,
         #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]"#,
         "longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid"),
        ("China Geodetic Coordinate System 2000", 4490, "EPSG", 4490,
         #"GEOGCS["China Geodetic Coordinate System 2000",DATUM["China_2000",SPHEROID["CGCS2000",6378137,298.257222101,AUTHORITY["EPSG","1024"]],AUTHORITY["EPSG","1043"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4490"]]"#,
         "CGCS2000 longitude/latitude in decimal degrees (the city's storage CRS)"),
    ]
}
