import Foundation
import GeoCore
import TwinStore

/// Gives untyped source values (CSV cells, DBF text) the JSON type the layer schema asks for:
/// `"12.5"` becomes a number for a `number` property, `"1"`/`"true"`/`"是"` a boolean, an empty
/// cell `null` (or nothing, when the schema does not allow null). Typed values (GeoJSON,
/// GeoPackage) pass through, except that integral numbers become integers for `integer` properties.
enum PropertyTyping {
    /// The typed value, `nil` to drop the property (an empty cell the schema does not accept as null).
    /// - Throws: a reason text when the value cannot take the schema's type.
    static func typed(_ value: JSONValue, rule: PropertyRule?) throws(PropertyTypingFailure) -> JSONValue? {
        guard let types = rule?.types else { return value }
        switch value {
        case .string(let text):
            if types.contains(.string) { return value }
            let s = text.trimmingCharacters(in: .whitespaces)
            if s.isEmpty { return types.contains(.null) ? .null : nil }
            if types.contains(.integer), let i = Int64(s) { return .integer(i) }
            if types.contains(.number), let d = Double(s), d.isFinite { return .number(d) }
            if types.contains(.integer), let d = Double(s), d.isFinite, d.rounded() == d, abs(d) < 9.0e15 {
                return .integer(Int64(d))
            }
            if types.contains(.boolean) {
                switch s.lowercased() {
                case "true", "t", "yes", "y", "1", "是": return .bool(true)
                case "false", "f", "no", "n", "0", "否": return .bool(false)
                default: break
                }
            }
            let wanted = types.subtracting([.null]).map(\.rawValue).sorted().joined(separator: " or ")
            throw PropertyTypingFailure(reason: "\"\(text)\" is not a valid \(wanted)")
        case .number(let d):
            if types.contains(.integer), !types.contains(.number), d.rounded() == d, abs(d) < 9.0e15 { return .integer(Int64(d)) }
            if types.contains(.string), !types.contains(.number), !types.contains(.integer) { return .string(Self.text(d)) }
            return value
        case .integer(let i):
            if types.contains(.string), !types.contains(.number), !types.contains(.integer) { return .string(String(i)) }
            return value
        case .null:
            return types.contains(.null) ? .null : nil
        default:
            return value
        }
    }

    /// A number as a surveyor wrote it: `600`, not `600.0`.
    static func text(_ d: Double) -> String {
        d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }
}

/// Why a value could not take its schema type.
struct PropertyTypingFailure: Error {
    var reason: String
}
