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
            case .hash: out[name] = .string(hash(v))
            case .partial, .plate, .phone, .idNumber, .name: out[name] = Self.masked(v, rule)
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

    /// The `partial` rule's display of `v`.
    static func partial(_ v: JSONValue) -> JSONValue { masked(v, .partial) }

    /// A value shown by a rule that keeps some characters (`MaskRule`): the value as text, then
    /// the rule's characters kept and the rest starred. Only the ends are ever kept, and never
    /// so many that the value could be recovered: the table of rules is in docs/security.md.
    static func masked(_ v: JSONValue, _ rule: MaskRule) -> JSONValue {
        let s: String
        switch v {
        case .null: return .null
        case .string(let t): s = t
        case .integer(let i): s = String(i)
        case .number(let d): s = String(d)
        case .bool, .array, .object: return .string("***")
        }
        let chars = Array(s)
        guard let first = chars.first else { return .string("") }
        let n = chars.count
        func keep(_ head: Int, _ stars: Int, _ tail: Int) -> JSONValue {
            .string(String(chars.prefix(head)) + String(repeating: "*", count: stars) + String(chars.suffix(tail)))
        }
        switch rule {
        case .plate:
            // 鄂A95AC1 → 鄂*****C1: the province and at most the last two; five stars whatever the length.
            return n >= 5 ? keep(1, 5, 2) : keep(1, 5, 0)
        case .phone:
            // 13812345678 → 138****5678; shorter numbers their last four at most, four or more hidden.
            if n >= 11 { return keep(3, 4, 4) }
            return keep(0, 4, min(4, max(0, n - 4)))
        case .idNumber:
            // 420704199001011234 → 420704********1234: at most six and four kept, eight or more hidden.
            let kept = max(0, n - 8)
            let head = min(6, kept), tail = min(4, kept - head)
            return keep(head, n - head - tail, tail)
        case .name:
            // 张三 → 张**: the surname's first character, two stars whatever the length.
            return .string(String(first) + "**")
        default:
            // partial: 13812345678 → 138****5678 (11 or more: seven kept, four or more hidden);
            // 张三 → 张*, 鄂A95AC1 → 鄂****** (shorter: only the first kept).
            if n >= 11 { return keep(3, 4, 4) }
            return keep(1, max(1, n - 1), 0)
        }
    }

    /// A stable 16-hex-digit HMAC-SHA256 prefix of the value's canonical text, keyed with the
    /// store's secret.
    func hash(_ v: JSONValue) -> String {
        String(SHA256.keyedHex(key: key, Array(CanonicalJSON.text(v).utf8)).prefix(16))
    }
}
