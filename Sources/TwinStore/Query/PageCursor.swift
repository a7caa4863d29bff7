import Foundation
import GeoCore

/// Where a keyset page ends: the sort-key values and feature id of its last feature. It is
/// an opaque, URL-safe token (base64url of a small JSON document) that remembers the ordering
/// it belongs to, so a cursor from another ordering is rejected instead of skipping features.
public struct PageCursor: Hashable, Sendable, CustomStringConvertible {
    /// The ordering the cursor belongs to.
    var sortBy: [SortKey]
    /// The last feature's sort values, one per sort key (JSON null for a missing property).
    var values: [JSONValue]
    /// The last feature's id.
    var featureID: String

    init(sortBy: [SortKey], values: [JSONValue], featureID: String) {
        self.sortBy = sortBy
        self.values = values
        self.featureID = featureID
    }

    /// The token to put in a `next` link.
    public var token: String {
        let doc: JSONValue = [
            "s": .array(sortBy.map { .array([.string($0.property), .bool($0.ascending)]) }),
            "v": .array(values),
            "i": .string(featureID),
        ]
        return Data(CanonicalJSON.text(doc).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public var description: String { token }

    /// Decodes a token made by `token`; throws `invalidCursor` on anything else.
    public init(token: String) throws {
        var b64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        let bad = StoreError(.invalidCursor, "the paging cursor is not one this server issued")
        guard let data = Data(base64Encoded: b64),
              let doc = try? JSONDecoder().decode(JSONValue.self, from: data),
              let s = doc["s"]?.arrayValue, let v = doc["v"]?.arrayValue, let i = doc["i"]?.stringValue,
              s.count == v.count else { throw bad }
        var keys = [SortKey]()
        for k in s {
            guard let pair = k.arrayValue, pair.count == 2, let p = pair[0].stringValue, let asc = pair[1].boolValue else { throw bad }
            keys.append(SortKey(p, ascending: asc))
        }
        self.init(sortBy: keys, values: v, featureID: i)
    }
}
