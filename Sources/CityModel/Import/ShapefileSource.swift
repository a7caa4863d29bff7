import Foundation
import GeoCore

/// An ESRI Shapefile: geometries from `.shp`, attributes from `.dbf` (dBASE III), the CRS from
/// `.prj` and the text encoding from `.cpg` (UTF-8, or GBK/GB2312/CP936/GB18030). Records are
/// read in order, one `.shp` record per `.dbf` row; `feature N` counts from 1.
public struct ShapefileSource: FeatureSource {
    public let file: URL
    public let crs: CoordinateReferenceSystem?
    public var expectedCount: Int? { table.recordCount }
    /// The text encoding of the attributes.
    public var encoding: TextEncoding { table.encoding }
    private let shapes: BinaryRecord
    private let table: DBFTable
    private var offset = 100
    private var index = 0

    /// Opens `file` (the `.shp`) and its sidecar files.
    /// - Parameter encoding: overrides the `.cpg` file (and the `.dbf` language driver).
    /// - Throws: `ImportError` for a missing `.dbf`, an unknown `.cpg` encoding, a bad header; a
    ///   `.prj` the matcher does not know gives `crs == nil` (so `--source-crs` is required).
    public init(file: URL, encoding: TextEncoding? = nil) throws {
        self.file = file
        let name = file.lastPathComponent
        let base = file.deletingPathExtension()
        func sidecar(_ ext: String) -> URL? {
            for e in [ext, ext.uppercased()] {
                let u = base.appendingPathExtension(e)
                if FileManager.default.fileExists(atPath: u.path) { return u }
            }
            return nil
        }
        let data: Data
        do { data = try Data(contentsOf: file, options: .mappedIfSafe) } catch {
            throw ImportError(.unreadable, file: name, "cannot read the file: \(error.localizedDescription)")
        }
        shapes = BinaryRecord(bytes: data)
        guard (try? shapes.int32BE(0)) == 9994, (try? shapes.int32LE(28)) == 1000 else {
            throw ImportError(.malformed, file: name, location: "header", "not an ESRI Shapefile (file code 9994, version 1000 expected)")
        }
        var textEncoding = encoding
        if textEncoding == nil, let cpg = sidecar("cpg") {
            let text = (try? String(contentsOf: cpg, encoding: .utf8)) ?? ""
            guard let e = TextEncoding(name: text) else {
                throw ImportError(.unsupported, file: cpg.lastPathComponent,
                                  "encoding \"\(text.trimmingCharacters(in: .whitespacesAndNewlines))\" is not supported (UTF-8, GBK, GB2312, CP936, GB18030)")
            }
            textEncoding = e
        }
        guard let dbf = sidecar("dbf") else {
            throw ImportError(.unreadable, file: name, "the attribute table \(base.lastPathComponent).dbf is missing")
        }
        table = try DBFTable(url: dbf, encoding: textEncoding)
        if let prj = sidecar("prj"), let wkt = try? String(contentsOf: prj, encoding: .utf8) {
            crs = ProjectionFile.crs(wkt: wkt)
        } else {
            crs = nil
        }
    }

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        var out: [SourceRecord] = []
        while out.count < limit, offset + 8 <= shapes.count {
            let location = "feature \(index + 1)"
            let geometry: Geometry?
            let length: Int
            do {
                length = Int(try shapes.int32BE(offset + 4)) * 2
                guard length >= 4, offset + 8 + length <= shapes.count else {
                    throw error(.malformed, location, "the record length \(length) runs past the end of the file")
                }
                geometry = try ShapeGeometry.decode(shapes, at: offset + 8, length: length)
            } catch let e as BinaryRecord.Truncated {
                if e.needed < 0 { throw error(.unsupported, location, field: "geometry", "shape type \(-e.needed) is not supported") }
                throw error(.malformed, location, field: "geometry", "the record is truncated at byte \(e.offset)")
            }
            offset += 8 + length
            defer { index += 1 }
            guard index < table.recordCount else {
                throw error(.malformed, location, "the .shp has more records than the .dbf (\(table.recordCount))")
            }
            guard let properties = try table.record(index) else { continue }
            out.append(SourceRecord(location: location, feature: Feature(geometry: geometry, properties: properties)))
        }
        return out
    }
}
