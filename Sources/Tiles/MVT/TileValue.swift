import Foundation
import GeoCore

/// An attribute value as a Mapbox Vector Tile layer stores it (`Value` message: exactly one
/// of string, float, double, int64, uint64, sint64, bool).
public enum TileValue: Hashable, Sendable {
    case string(String)
    case float(Float)
    case double(Double)
    case int(Int64)
    case uint(UInt64)
    case sint(Int64)
    case bool(Bool)

    /// The tile value of a feature property: integers ≥ 0 as `uint`, negative ones as `sint`,
    /// other numbers as `double`, arrays and objects as their JSON text; `nil` for JSON null
    /// (MVT has no null: the key is left out).
    public init?(_ json: JSONValue) {
        switch json {
        case .null: return nil
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = i >= 0 ? .uint(UInt64(i)) : .sint(i)
        case .number(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array, .object: self = .string(String(decoding: GeoJSON.encodeBytes(json), as: UTF8.self))
        }
    }

    /// The value as JSON (uint above Int64.max becomes a number).
    public var json: JSONValue {
        switch self {
        case .string(let s): .string(s)
        case .float(let f): .number(Double(f))
        case .double(let d): .number(d)
        case .int(let i), .sint(let i): .integer(i)
        case .uint(let u): u <= UInt64(Int64.max) ? .integer(Int64(u)) : .number(Double(u))
        case .bool(let b): .bool(b)
        }
    }

    func write(to w: inout ProtobufWriter) {
        switch self {
        case .string(let s): w.stringField(1, s)
        case .float(let f): w.floatField(2, f)
        case .double(let d): w.doubleField(3, d)
        case .int(let i): w.varintField(4, UInt64(bitPattern: i))
        case .uint(let u): w.varintField(5, u)
        case .sint(let i): w.varintField(6, ProtobufWriter.zigzag(i))
        case .bool(let b): w.varintField(7, b ? 1 : 0)
        }
    }

    static func read(_ bytes: ArraySlice<UInt8>) throws -> TileValue {
        var r = ProtobufReader(bytes)
        var value: TileValue?
        while !r.isAtEnd {
            let (field, wire) = try r.key()
            switch (field, wire) {
            case (1, 2):
                let raw = try r.lengthDelimited()
                guard let s = String(validating: raw, as: UTF8.self) else { throw r.malformed("value string is not UTF-8") }
                value = .string(s)
            case (2, 5): value = .float(Float(bitPattern: try r.fixed32()))
            case (3, 1): value = .double(Double(bitPattern: try r.fixed64()))
            case (4, 0): value = .int(Int64(bitPattern: try r.varint()))
            case (5, 0): value = .uint(try r.varint())
            case (6, 0):
                let z = try r.varint()
                value = .sint(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
            case (7, 0): value = .bool(try r.varint() != 0)
            default: try r.skip(wire)
            }
        }
        guard let value else { throw r.malformed("value message sets none of its fields") }
        return value
    }
}
