import Crypto
import GeoCore

/// Strong entity tags of features (RFC 9110 §8.8.3) for Part 4 optimistic locking.
///
/// The tag is the SHA-256 of the feature's content as the caller may see it (masked
/// attributes masked): its GeoJSON in the storage CRS (EPSG:4490, lon/lat, shortest
/// round-trip numbers, sorted property keys). The same content always gives the same tag and
/// any change to geometry or a visible property changes it. It names the feature's state, not
/// one encoding: a GET in EPSG:4547 carries the tag a PUT's `If-Match` is checked against.
enum EntityTag {
    /// The quoted strong tag of `feature` (stored coordinates, before any output projection).
    static func of(_ feature: Feature) -> String {
        of(bytes: GeoJSON.encodeBytes(.feature(feature)))
    }

    /// The quoted strong tag of some bytes: their SHA-256 in hex (the web map's files too).
    static func of(bytes: [UInt8]) -> String {
        let digest = Crypto.SHA256.hash(data: bytes)
        var hex = "\""
        hex.reserveCapacity(66)
        for b in digest {
            hex.append(Character(Unicode.Scalar(digits[Int(b >> 4)])))
            hex.append(Character(Unicode.Scalar(digits[Int(b & 15)])))
        }
        return hex + "\""
    }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Whether an `If-Match` field value is satisfied (RFC 9110 §13.1.1): `*` by any current
    /// feature; a list of tags when one of them equals `current` by strong comparison (weak
    /// tags `W/"…"` never match). Nothing matches a missing feature (`current == nil`).
    static func ifMatch(_ field: String, current: String?) -> Bool {
        guard let current else { return false }
        let trimmed = field.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return true }
        for item in trimmed.split(separator: ",") {
            let tag = item.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { continue }
            if tag == current { return true }
        }
        return false
    }
}
