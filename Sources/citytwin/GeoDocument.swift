import Foundation
import GeoCore

/// What `citytwin geo …` reads on standard input: one GeoJSON object (a geometry, Feature or
/// FeatureCollection), or WKT, one geometry per line. Commands write back the same kind.
enum GeoDocument {
    case geoJSON(GeoJSONObject)
    /// Non-blank WKT lines with their 1-based line numbers.
    case wkt([(line: Int, geometry: Geometry)])

    /// Reads a document; errors name the line (WKT) or JSON path (GeoJSON).
    static func read(_ data: Data) throws -> GeoDocument {
        let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        if first == UInt8(ascii: "{") {
            return .geoJSON(try GeoJSON.decode(data))
        }
        var rows: [(Int, Geometry)] = []
        for (i, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { continue }
            do {
                rows.append((i + 1, try Geometry(wkt: text)))
            } catch var error as GeometryError {
                error.position = "line \(i + 1)" + (error.position.map { ", \($0)" } ?? "")
                throw error
            }
        }
        return .wkt(rows)
    }

    /// A document read item by item: a feature of a collection or a WKT line that cannot be read
    /// (an unclosed ring, a short line) is returned with its label and reason, and the rest of
    /// the document is read; the document holds the readable items, `labelled` their
    /// geometries labelled by their place in the input. `geo validate` reports every bad item
    /// instead of stopping at the first.
    /// - Throws: when the document as a whole cannot be read (not JSON, a single bad geometry).
    static func readEach(_ data: Data) throws
        -> (document: GeoDocument, labelled: [(label: String, geometry: Geometry)], unreadable: [(label: String, reason: String)]) {
        let first = data.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        if first == UInt8(ascii: "{") {
            do {
                let document = GeoDocument.geoJSON(try GeoJSON.decode(data))
                return (document, document.labelledGeometries, [])
            } catch let whole as GeometryError {
                let value = try data.withUnsafeBytes { try JSONValue(json: $0) }
                guard value["type"]?.stringValue == "FeatureCollection", let items = value["features"]?.arrayValue else { throw whole }
                var features: [Feature] = [], labelled: [(String, Geometry)] = [], unreadable: [(String, String)] = []
                for (i, item) in items.enumerated() {
                    let label = "feature \(i)" + (item["id"].flatMap { $0.stringValue ?? $0.integerValue.map { String($0) } }.map { " (id \($0))" } ?? "")
                    do {
                        let read = try GeoJSON.decode(GeoJSON.encodeBytes(item)).features
                        features += read
                        labelled += read.compactMap { f in f.geometry.map { (label, $0) } }
                    } catch let e as GeometryError {
                        unreadable.append((label, e.message + (e.position.map { " at \($0)" } ?? "")))
                    }
                }
                return (.geoJSON(.featureCollection(FeatureCollection(features))), labelled, unreadable)
            }
        }
        var rows: [(Int, Geometry)] = [], unreadable: [(String, String)] = []
        for (i, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty { continue }
            do {
                rows.append((i + 1, try Geometry(wkt: text)))
            } catch let e as GeometryError {
                unreadable.append(("line \(i + 1)", e.message + (e.position.map { " at \($0)" } ?? "")))
            }
        }
        let document = GeoDocument.wkt(rows)
        return (document, document.labelledGeometries, unreadable)
    }

    /// The geometries with a label a person can find them by ("line 3", "feature 2 (id A-17)").
    var labelledGeometries: [(label: String, geometry: Geometry)] {
        switch self {
        case .wkt(let rows):
            return rows.map { ("line \($0.line)", $0.geometry) }
        case .geoJSON(.geometry(let g)):
            return [("geometry", g)]
        case .geoJSON(let object):
            return object.features.enumerated().compactMap { i, f in
                f.geometry.map { ("feature \(i)" + (f.id.map { " (id \($0))" } ?? ""), $0) }
            }
        }
    }

    /// The same document with every geometry replaced by `transform(geometry)`.
    func mapGeometries(_ transform: (Geometry) throws -> Geometry) throws -> GeoDocument {
        func feature(_ f: Feature) throws -> Feature {
            var f = f
            f.geometry = try f.geometry.map(transform)
            return f
        }
        switch self {
        case .wkt(let rows):
            return .wkt(try rows.map { ($0.line, try transform($0.geometry)) })
        case .geoJSON(.geometry(let g)):
            return .geoJSON(.geometry(try transform(g)))
        case .geoJSON(.feature(let f)):
            return .geoJSON(.feature(try feature(f)))
        case .geoJSON(.featureCollection(let c)):
            return .geoJSON(.featureCollection(FeatureCollection(try c.features.map(feature))))
        }
    }

    /// Serialises the document in its own kind.
    func write(precision: Int?) -> Data {
        switch self {
        case .wkt(let rows):
            return Data(rows.map { $0.geometry.wkt(precision: precision) + "\n" }.joined().utf8)
        case .geoJSON(let object):
            var data = GeoJSON.encode(object, options: GeoJSONWriteOptions(precision: precision))
            data.append(0x0A)
            return data
        }
    }
}

/// Standard input, read whole.
func readStandardInput() -> Data {
    FileHandle.standardInput.readDataToEndOfFile()
}
