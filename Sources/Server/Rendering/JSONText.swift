import Foundation
import GeoCore

/// JSON documents (landing page, collections, OpenAPI, problems) as UTF-8 with sorted keys,
/// so output is deterministic: GeoCore's JSON writer, the one feature bodies use.
enum JSONText {
    static func bytes(_ value: JSONValue) -> [UInt8] {
        GeoJSON.encodeBytes(value)
    }

    /// The members of an object as `"k":v,…` without braces, to splice into another object.
    static func members(_ object: [String: JSONValue]) -> [UInt8] {
        var b = bytes(.object(object))
        guard b.count >= 2 else { return [] }
        b.removeFirst()
        b.removeLast()
        return b
    }
}
