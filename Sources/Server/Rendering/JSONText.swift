import Foundation
import GeoCore

/// JSON documents (landing page, collections, OpenAPI, problems) as UTF-8 with sorted keys,
/// so output is deterministic. Feature bodies use GeoCore's `GeoJSON` writer instead.
enum JSONText {
    static func bytes(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: it has no non-finite numbers by construction
        // (GeoCore's decoder rejects them) and no unsupported types.
        return (try? [UInt8](encoder.encode(value))) ?? Array("null".utf8)
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
