import GeoCore

/// The masking a caller gets on one layer: which sensitive attributes are hidden and how.
/// Built once per read and applied to every feature the store hands out, so no later output
/// (features, tiles, exports, diffs) can see a clear value it should not.
public struct AttributeMask: Sendable {
    /// Hidden attributes and their rule; empty when the caller sees everything.
    public let hidden: [String: MaskRule]
    private let key: [UInt8]

    /// - Parameter key: the store's secret masking key, so `hash` values cannot be reversed
    ///   by hashing every phone number.
    init(layer: LayerDefinition, caller: Caller, key: [UInt8]) {
        var hidden = [String: MaskRule]()
        for s in layer.sensitive where !AccessPolicy.seesClearValue(of: s, in: layer, caller) {
            hidden[s.attribute] = s.mask
        }
        self.hidden = hidden
        self.key = key
    }

    /// Whether nothing is masked.
    public var isIdentity: Bool { hidden.isEmpty }

    /// The properties as the caller may see them.
    public func apply(_ properties: [String: JSONValue]) -> [String: JSONValue] {
        guard !hidden.isEmpty else { return properties }
        var out = properties
        for (name, rule) in hidden {
            guard let v = out[name] else { continue }
            switch rule {
            case .redact: out[name] = nil
            case .partial: out[name] = Self.partial(v)
            case .hash: out[name] = .string(hash(v))
            }
        }
        return out
    }

    /// Throws when a filter or sort names an attribute the caller may not see: comparing
    /// `phone LIKE '138%'` would leak it one character at a time.
    func requireVisible(_ names: some Sequence<String>, layer: String) throws {
        for n in names where hidden[n] != nil {
            throw StoreError(.forbidden, "the attribute \"\(n)\" is masked for this caller and cannot be filtered or sorted on",
                             layer: layer, field: n)
        }
    }

    /// `13812345678` → `138****5678`; `张三` → `张*`; `欧阳娜娜` → `欧***`.
    static func partial(_ v: JSONValue) -> JSONValue {
        let s: String
        switch v {
        case .null: return .null
        case .string(let t): s = t
        case .integer(let i): s = String(i)
        case .number(let d): s = String(d)
        case .bool, .array, .object: return .string("***")
        }
        let chars = Array(s)
        if chars.count >= 7 {
            return .string(String(chars.prefix(3)) + "****" + String(chars.suffix(4)))
        }
        guard let first = chars.first else { return .string("") }
        return .string(String(first) + String(repeating: "*", count: max(1, chars.count - 1)))
    }

    /// A stable 16-hex-digit HMAC-SHA256 prefix of the value's canonical text, keyed with the
    /// store's secret.
    func hash(_ v: JSONValue) -> String {
        String(SHA256.keyedHex(key: key, Array(CanonicalJSON.text(v).utf8)).prefix(16))
    }
}
