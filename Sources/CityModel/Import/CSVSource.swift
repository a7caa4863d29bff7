import Foundation
import GeoCore

/// A CSV table of points (longitude/latitude or x/y columns) or of any geometry (a WKT column),
/// in UTF-8 (with or without BOM) or GBK/GB18030. Every other column becomes a property, as text:
/// the importer types it by the layer schema. A column named `id` becomes the feature id unless
/// the layer schema has an `id` property.
///
/// Rows are counted from 1 after the header (`row 7` is the 7th data row, line 8 of the file).
public struct CSVSource: FeatureSource {
    /// Which columns hold the geometry.
    public enum GeometryColumns: Sendable, Hashable {
        /// Point coordinates (x = longitude or easting, y = latitude or northing).
        case xy(x: String, y: String)
        /// WKT text (any geometry type).
        case wkt(String)
        /// No geometry: a table for a layer that stores none (e.g. `traffic_counts`).
        case attributesOnly
    }

    public let file: URL
    public let crs: CoordinateReferenceSystem?
    public var expectedCount: Int? { nil }
    public let header: [String]
    public let geometryColumns: GeometryColumns
    private var rows: CSVRows
    private var row = 0
    private let xIndex: Int, yIndex: Int, wktIndex: Int, idIndex: Int?

    /// Column names recognised as longitude/easting and latitude/northing (case-insensitive).
    public static let xNames = ["lon", "lng", "long", "longitude", "经度", "x"]
    public static let yNames = ["lat", "latitude", "纬度", "y"]
    /// Column names recognised as WKT geometry (case-insensitive).
    public static let wktNames = ["wkt", "geometry", "geom", "the_geom", "shape"]

    /// Opens `file`.
    /// - Parameters:
    ///   - encoding: `.utf8` or `.gb18030` (GBK).
    ///   - geometry: the geometry columns; found by name when `nil` (WKT first, then x/y names).
    ///   - keepIDColumn: when true an `id` column stays a property (the layer schema has one).
    /// - Throws: `ImportError` for an unreadable file, bad encoding, or missing geometry columns.
    ///   `crs` is EPSG:4490 when the columns are named lon/lng/longitude/经度 and lat/latitude/纬度
    ///   (degrees); otherwise `nil`, so the importer asks for `--source-crs`.
    public init(file: URL, encoding: TextEncoding = .utf8, geometry: GeometryColumns? = nil, keepIDColumn: Bool = false) throws {
        self.file = file
        let name = file.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw ImportError(.unreadable, file: name, "cannot read the file: \(error.localizedDescription)")
        }
        guard let text = encoding.decode(data) else {
            throw ImportError(.malformed, file: name, "the file is not valid \(encoding.rawValue) text (try --encoding \(encoding == .utf8 ? "GBK" : "UTF-8"))")
        }
        var rows = CSVRows(text: text)
        let first: [String]?
        do { first = try rows.next() } catch {
            throw ImportError(.malformed, file: name, location: "header", error.reason)
        }
        guard let first else { throw ImportError(.malformed, file: name, "the file is empty: a header row is needed") }
        let header = first.map { $0.trimmingCharacters(in: .whitespaces) }
        self.rows = rows
        self.header = header
        let lower = header.map { $0.lowercased() }
        func index(_ column: String) throws -> Int {
            guard let i = lower.firstIndex(of: column.lowercased()) else {
                throw ImportError(.malformed, file: name, location: "header", field: column,
                                  "no column \"\(column)\" (columns: \(header.joined(separator: ", ")))")
            }
            return i
        }
        var columns = geometry
        if columns == nil {
            if let w = Self.wktNames.lazy.compactMap({ n in lower.firstIndex(of: n) }).first {
                columns = .wkt(header[w])
            } else if let x = Self.xNames.lazy.compactMap({ n in lower.firstIndex(of: n) }).first,
                      let y = Self.yNames.lazy.compactMap({ n in lower.firstIndex(of: n) }).first {
                columns = .xy(x: header[x], y: header[y])
            }
        }
        switch columns {
        case .xy(let x, let y)?:
            xIndex = try index(x); yIndex = try index(y); wktIndex = -1
            let degrees = ["lon", "lng", "long", "longitude", "经度"].contains(lower[xIndex])
            crs = degrees ? .cgcs2000 : nil
        case .wkt(let w)?:
            wktIndex = try index(w); xIndex = -1; yIndex = -1
            crs = nil
        case .attributesOnly?:
            // Nothing to transform: the storage CRS, so no --source-crs is asked for.
            wktIndex = -1; xIndex = -1; yIndex = -1
            crs = .cgcs2000
        case nil:
            throw ImportError(.malformed, file: name, location: "header",
                              "no geometry columns: name them lon/lat (or x/y, or give --x/--y) or give a WKT column (wkt, geometry)")
        }
        self.geometryColumns = columns ?? .wkt("")
        idIndex = keepIDColumn ? nil : lower.firstIndex(of: "id")
    }

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        var out: [SourceRecord] = []
        out.reserveCapacity(min(limit, 4096))
        while out.count < limit {
            let fields: [String]
            do {
                guard let f = try rows.next() else { break }
                fields = f
            } catch {
                throw self.error(.malformed, "row \(row + 1)", error.reason)
            }
            if fields.count == 1, fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
            row += 1
            let location = "row \(row)"
            guard fields.count == header.count else {
                throw self.error(.malformed, location, "the row has \(fields.count) fields, the header \(header.count) (line \(rows.line))")
            }
            let geometry: Geometry?
            if geometryColumns == .attributesOnly {
                geometry = nil
            } else if wktIndex >= 0 {
                let text = fields[wktIndex]
                do { geometry = try Geometry(wkt: text) } catch let e as GeometryError {
                    throw self.error(.invalidGeometry, location, field: header[wktIndex], "not valid WKT: \(e.message)")
                }
            } else {
                func number(_ i: Int) throws -> Double {
                    let s = fields[i].trimmingCharacters(in: .whitespaces)
                    guard let d = Double(s), d.isFinite else {
                        throw self.error(.invalidValue, location, field: header[i], "\"\(fields[i])\" is not a number")
                    }
                    return d
                }
                geometry = .point(x: try number(xIndex), y: try number(yIndex))
            }
            var properties = [String: JSONValue]()
            properties.reserveCapacity(fields.count)
            var id: FeatureID?
            for (i, value) in fields.enumerated() where i != xIndex && i != yIndex && i != wktIndex {
                if i == idIndex {
                    if !value.isEmpty { id = .string(value) }
                    continue
                }
                properties[header[i]] = .string(value)
            }
            out.append(SourceRecord(location: location, feature: Feature(id: id, geometry: geometry, properties: properties)))
        }
        return out
    }
}
