import Foundation
import GeoCore
import TwinStore

/// Reading and checking process inputs (qualified values, points, numbers, profiles, resource
/// filters), shared by every process, every failure a `ProcessInputError` naming the input.
package enum ProcessInputs {
    /// An input given as a qualified value (`{"value": …}`) or as is.
    package static func unwrap(_ value: JSONValue?) -> JSONValue? {
        if let o = value?.objectValue, let inner = o["value"], o["type"] == nil { return inner }
        if value?.isNull == true { return nil }
        return value
    }

    /// A point input: a GeoJSON Point or `[lon, lat]`, CRS84 degrees (CGCS2000 lon/lat used as is).
    package static func point(_ inputs: [String: JSONValue], _ name: String) throws -> Position? {
        guard let value = unwrap(inputs[name]) else { return nil }
        var coordinates: [JSONValue]?
        if let o = value.objectValue {
            guard o["type"]?.stringValue == "Point" else {
                throw ProcessInputError(name, "must be a GeoJSON Point or [longitude, latitude]")
            }
            coordinates = o["coordinates"]?.arrayValue
        } else {
            coordinates = value.arrayValue
        }
        guard let c = coordinates, c.count == 2 || c.count == 3, let x = c[0].doubleValue, let y = c[1].doubleValue else {
            throw ProcessInputError(name, "must be a GeoJSON Point or [longitude, latitude]")
        }
        guard x.isFinite, y.isFinite, (-180...180).contains(x), (-90...90).contains(y) else {
            throw ProcessInputError(name, "position (\(x), \(y)) is not a CRS84 longitude, latitude in degrees")
        }
        return Position(x: x, y: y)
    }

    package static func requiredPoint(_ inputs: [String: JSONValue], _ name: String) throws -> Position {
        guard let p = try point(inputs, name) else { throw ProcessInputError(name, "is required") }
        return p
    }

    package static func number(_ inputs: [String: JSONValue], _ name: String, default fallback: Double? = nil,
                       in range: ClosedRange<Double>) throws -> Double? {
        guard let value = unwrap(inputs[name]) else { return fallback }
        guard let d = value.doubleValue, d.isFinite else { throw ProcessInputError(name, "must be a number") }
        guard range.contains(d) else {
            throw ProcessInputError(name, "must be between \(range.lowerBound) and \(range.upperBound), got \(d)")
        }
        return d
    }

    package static func integer(_ inputs: [String: JSONValue], _ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let value = unwrap(inputs[name]) else { return fallback }
        guard let i = value.integerValue ?? value.doubleValue.flatMap({ $0 == $0.rounded() && abs($0) < 1e9 ? Int64($0) : nil }) else {
            throw ProcessInputError(name, "must be an integer")
        }
        guard range.contains(Int(i)) else {
            throw ProcessInputError(name, "must be between \(range.lowerBound) and \(range.upperBound), got \(i)")
        }
        return Int(i)
    }

    package static func string(_ inputs: [String: JSONValue], _ name: String) throws -> String? {
        guard let value = unwrap(inputs[name]) else { return nil }
        guard let s = value.stringValue, !s.isEmpty else { throw ProcessInputError(name, "must be a non-empty string") }
        return s
    }

    package static func strings(_ inputs: [String: JSONValue], _ name: String) throws -> [String]? {
        guard let value = unwrap(inputs[name]) else { return nil }
        guard let list = value.arrayValue else { throw ProcessInputError(name, "must be an array of strings") }
        return try list.enumerated().map { i, item in
            guard let s = item.stringValue else { throw ProcessInputError(name, "item \(i) must be a string") }
            return s
        }
    }

    /// `true` or `false` (default `fallback`).
    package static func bool(_ inputs: [String: JSONValue], _ name: String, default fallback: Bool = false) throws -> Bool {
        guard let value = unwrap(inputs[name]) else { return fallback }
        guard case .bool(let b) = value else { throw ProcessInputError(name, "must be true or false") }
        return b
    }

    package static let pointSchema: JSONValue = [
        "oneOf": [
            ["type": "object", "required": ["type", "coordinates"],
             "properties": ["type": ["type": "string", "enum": ["Point"]], "coordinates": ["type": "array", "minItems": 2, "maxItems": 3]]],
            ["type": "array", "items": ["type": "number"], "minItems": 2, "maxItems": 2],
        ],
    ]
    package static let featureCollectionSchema: JSONValue = [
        "type": "object", "required": ["type", "features"],
        "properties": ["type": ["type": "string", "enum": ["FeatureCollection"]], "features": ["type": "array"]],
    ]

    /// The input error for an analysis error: an invalid input naming its field, else rethrown as is.
    package static func inputError(_ error: any Error) -> any Error {
        guard let e = error as? ScenarioError else { return error }
        return ProcessInputError(e.field ?? "inputs", e.message)
    }

    /// Runs `body`, turning analysis errors into `ProcessInputError`.
    package static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw inputError(error) }
    }

    /// A geometry as a GeoJSON value (7 decimals, about 1 cm).
    package static func json(_ geometry: Geometry) throws -> JSONValue {
        // GeoCore's byte reader, not JSONDecoder: Codable's decoding of the text was 17 % of a
        // nearest-resources request's CPU (three routes' lines).
        let bytes = GeoJSON.encodeBytes(.geometry(geometry), options: GeoJSONWriteOptions(precision: 7))
        return try bytes.withUnsafeBytes { try JSONValue(json: $0) }
    }

    package static func json(_ position: Position) -> JSONValue {
        ["type": "Point", "coordinates": [.number(position.x), .number(position.y)]]
    }

    package static func number(_ d: Double?, decimals: Double = 1000) -> JSONValue {
        guard let d, d.isFinite else { return .null }
        return .number((d * decimals).rounded() / decimals)
    }
}
