import Foundation
import GeoCore
import GRDB

/// One feature table of a GeoPackage (`.gpkg`), opened read-only. The table and its geometry
/// column come from `gpkg_contents` and `gpkg_geometry_columns`, the CRS from
/// `gpkg_spatial_ref_sys` (its EPSG organisation code, else its WKT definition). Rows are read in
/// rowid order in chunks; `feature N` counts from 1; the integer primary key is not a property.
public struct GeoPackageSource: FeatureSource {
    public let file: URL
    public let crs: CoordinateReferenceSystem?
    public let expectedCount: Int?
    /// The feature table read.
    public let table: String
    private let geometryColumn: String
    private let primaryKey: String?
    private let queue: DatabaseQueue
    private var lastRowID: Int64 = .min
    private var index = 0

    /// Opens `file`.
    /// - Parameter table: the feature table; when `nil` the GeoPackage must have exactly one.
    public init(file: URL, table: String? = nil) throws {
        self.file = file
        let name = file.lastPathComponent
        func fail(_ why: String) -> ImportError { ImportError(.malformed, file: name, why) }
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ImportError(.unreadable, file: name, "no such file")
        }
        var config = Configuration()
        config.readonly = true
        do {
            queue = try DatabaseQueue(path: file.path, configuration: config)
            let tables = try queue.read { db in
                try String.fetchAll(db, sql: "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY table_name")
            }
            let chosen: String
            if let table {
                guard tables.contains(table) else {
                    throw ImportError(.malformed, file: name, field: table, "no feature table \"\(table)\" (tables: \(tables.joined(separator: ", ")))")
                }
                chosen = table
            } else {
                guard tables.count == 1, let only = tables.first else {
                    throw ImportError(.malformed, file: name,
                                      tables.isEmpty ? "the GeoPackage has no feature table" : "the GeoPackage has several feature tables (\(tables.joined(separator: ", "))): choose one with --gpkg-table")
                }
                chosen = only
            }
            self.table = chosen
            let info = try queue.read { db -> (String, Int64, String?, String?, String?, Int, String?) in
                guard let g = try Row.fetchOne(db, sql: "SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?",
                                               arguments: [chosen]) else {
                    throw ImportError(.malformed, file: name, field: chosen, "table \(chosen) has no row in gpkg_geometry_columns")
                }
                let srsID: Int64 = g[1]
                let srs = try Row.fetchOne(db, sql: "SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?",
                                           arguments: [srsID])
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(chosen.replacingOccurrences(of: "\"", with: "\"\""))\"") ?? 0
                let pk = try db.primaryKey(chosen).rowIDColumn
                return (g[0], srsID, srs?[0], srs.map { row -> String in
                    let code: Int64? = row[1]
                    return code.map(String.init) ?? ""
                }, srs?[2], count, pk)
            }
            geometryColumn = info.0
            expectedCount = info.5
            primaryKey = info.6
            if let org = info.2?.uppercased(), org == "EPSG", let code = info.3.flatMap({ Int($0) }), code > 0 {
                crs = CoordinateReferenceSystem(epsg: code)
            } else if let wkt = info.4, let c = ProjectionFile.crs(wkt: wkt) {
                crs = c
            } else {
                crs = nil
            }
        } catch let e as ImportError {
            throw e
        } catch let e as DatabaseError {
            throw fail("not a readable GeoPackage: \(e.message ?? e.description)")
        }
    }

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        let quoted = "\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\""
        let sql = "SELECT rowid AS __rowid, * FROM \(quoted) WHERE rowid > ? ORDER BY rowid LIMIT ?"
        let rows: [Row]
        do {
            let after = lastRowID
            rows = try queue.read { db in try Row.fetchAll(db, sql: sql, arguments: [after, limit]) }
        } catch let e as DatabaseError {
            throw error(.malformed, "feature \(index + 1)", e.message ?? e.description)
        }
        var out: [SourceRecord] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            index += 1
            let location = "feature \(index)"
            lastRowID = row["__rowid"]
            var properties = [String: JSONValue]()
            var geometry: Geometry?
            for (column, value) in row where column != "__rowid" && column != primaryKey {
                if column == geometryColumn {
                    switch value.storage {
                    case .blob(let blob):
                        do { geometry = try GeoPackageGeometry.decode(blob) } catch {
                            throw self.error(.invalidGeometry, location, field: column, error.reason)
                        }
                    case .null: geometry = nil
                    default: throw self.error(.invalidGeometry, location, field: column, "the geometry is not a blob")
                    }
                    continue
                }
                switch value.storage {
                case .null: properties[column] = .null
                case .int64(let i): properties[column] = .integer(i)
                case .double(let d): properties[column] = .number(d)
                case .string(let s): properties[column] = .string(s)
                case .blob(let b): properties[column] = .string(b.base64EncodedString())
                }
            }
            out.append(SourceRecord(location: location, feature: Feature(geometry: geometry, properties: properties)))
        }
        return out
    }
}
