import Foundation
import GeoCore

/// A feature checked against its layer and ready to store: id, canonical property text,
/// WKB, envelope and content hash. Every backend writes these, so validation and hashing are
/// the same in SpatiaLite and PostGIS.
struct PreparedFeature: Sendable {
    var id: String
    var propertiesText: String
    /// The geometry as stored (ISO WKB, little-endian): promoted to the layer's multi type,
    /// with Z = 0 added on 3D layers.
    var wkb: [UInt8]?
    var envelope: Envelope?
    /// SHA-256 hex of the canonical properties, a zero byte, and the WKB.
    var hash: String

    /// Validates `feature` for `layer`; errors name the feature and field. A feature without
    /// an id gets `newID()` (a UUID version 7 from `FeatureIDGenerator`).
    init(_ feature: Feature, layer: LayerDefinition, index: Int, newID: () -> String = FeatureIDGenerator.next) throws {
        let id: String
        switch feature.id {
        case .string(let s)?:
            guard !s.isEmpty else { throw StoreError(.invalidFeature, "feature \(index) has an empty id", layer: layer.id, field: "id") }
            id = s
        case .integer(let i)?: id = String(i)
        case nil: id = newID()
        }
        if let c = MarkupEscaping.firstRefusedControl(in: id) {
            throw StoreError(.invalidFeature, "feature \(index)'s id contains the control character \(MarkupEscaping.codePoint(c)); of the C0 controls only tab, LF and CR are accepted",
                             layer: layer.id, field: "id")
        }
        self.id = id
        try layer.schema.validate(feature.properties, layer: layer.id, feature: id)
        func fail(_ why: String) -> StoreError {
            StoreError(.invalidFeature, why, layer: layer.id, feature: id, field: "geometry")
        }
        if var g = feature.geometry {
            guard layer.hasGeometry else { throw fail("layer \"\(layer.id)\" stores no geometry") }
            if let expected = layer.geometryType, g.type != expected {
                guard let promoted = Self.promote(g, to: expected) else {
                    throw fail("geometry is a \(g.type.rawValue), the layer stores \(expected.rawValue)")
                }
                g = promoted
            }
            guard let env = g.envelope else { throw fail("empty geometry; use null for a feature without geometry") }
            var bad: Position?
            g.forEachPosition { p in
                if bad == nil, !p.isFinite || p.x < -180 || p.x > 180 || p.y < -90 || p.y > 90 { bad = p }
            }
            if let bad { throw fail("position (\(bad.x), \(bad.y)) is not a finite EPSG:4490 lon/lat in degrees") }
            if g.hasZ && !layer.hasZ { throw fail("geometry has heights (Z); the layer stores 2D geometries") }
            // A 3D layer stores flat geometries at height 0 (as SpatiaLite's CastToXYZ does).
            if layer.hasZ && !g.hasZ { g = g.mapPositions { Position(x: $0.x, y: $0.y, z: $0.z ?? 0) } }
            self.envelope = env
            self.wkb = g.wkb()
        } else {
            self.envelope = nil
            self.wkb = nil
        }
        var canonical = CanonicalJSON.Writer()
        canonical.writeObject(feature.properties)
        if canonical.containsControl, let (bad, scalar) = Self.firstControl(in: feature.properties) {
            if scalar.value == 0 {
                throw StoreError(.invalidFeature, "text contains the NUL character (U+0000), which the store cannot hold",
                                 layer: layer.id, feature: id, field: bad)
            }
            throw StoreError(.invalidFeature,
                             "property \"\(bad)\" contains the control character \(MarkupEscaping.codePoint(scalar)), which XML (WFS GML, WMS GetFeatureInfo) cannot carry; "
                                + "of the C0 controls only tab, LF and CR are accepted",
                             layer: layer.id, feature: id, field: bad)
        }
        self.propertiesText = canonical.text
        var h = SHA256()
        h.update(canonical.bytes)
        h.update(Self.zero)
        if let wkb { h.update(wkb) }
        self.hash = SHA256.hexString(h.finalize())
    }

    /// The property (top-level name) whose key or text holds a refused control character
    /// (`MarkupEscaping.firstRefusedControl`: U+0000 included, which PostgreSQL's jsonb refuses too), and the first
    /// such character in it. The first property in name order, so the error is the same whatever
    /// the dictionary's order.
    static func firstControl(in properties: [String: JSONValue]) -> (String, Unicode.Scalar)? {
        func first(_ s: String) -> Unicode.Scalar? { MarkupEscaping.firstRefusedControl(in: s) }
        func first(_ v: JSONValue) -> Unicode.Scalar? {
            switch v {
            case .string(let s): return first(s)
            case .array(let a):
                for x in a { if let c = first(x) { return c } }
                return nil
            case .object(let o):
                for (k, x) in o.sorted(by: { $0.key < $1.key }) {
                    if let c = first(k) ?? first(x) { return c }
                }
                return nil
            default: return nil
            }
        }
        func bad(_ key: String, _ value: JSONValue) -> Unicode.Scalar? { first(key) ?? first(value) }
        // Almost every feature has none: sort the names only when one does.
        guard properties.contains(where: { bad($0.key, $0.value) != nil }) else { return nil }
        for key in properties.keys.sorted() {
            if let c = bad(key, properties[key] ?? .null) { return (key, c) }
        }
        return nil
    }

    /// The byte between the properties and the WKB in the content hash.
    private static let zero: [UInt8] = [0]

    /// A single geometry wrapped as the multi type a layer stores (ogr2ogr's PROMOTE_TO_MULTI).
    static func promote(_ g: Geometry, to type: GeometryType) -> Geometry? {
        switch (g, type) {
        case (.point(let p), .multiPoint): .multiPoint(MultiPoint([p]))
        case (.lineString(let l), .multiLineString): .multiLineString(MultiLineString([l]))
        case (.polygon(let p), .multiPolygon): .multiPolygon(MultiPolygon([p]))
        default: nil
        }
    }
}

/// The tamper-evident chain of the audit log: each entry's hash covers the previous one's. Since
/// the chain is keyed (`AuditKey`), an entry's hash is an HMAC-SHA256 under the key; the entries
/// written before it was keyed (up to the store's `AuditKeyRecord`) are plain SHA-256.
public enum AuditChain {
    static func entryHash(previous: String, at: Int64, actor: String, department: String?, role: String,
                          layer: String, featureID: String, kind: ChangeKind, before: String?, after: String?,
                          key: AuditKey?) -> String {
        // The fields, each followed by 0x1F, hashed in one update (the digest is the same as
        // field by field, with one call into BoringSSL instead of twenty).
        var bytes = [UInt8]()
        bytes.reserveCapacity(256)
        func field(_ f: String) {
            bytes.append(contentsOf: f.utf8)
            bytes.append(0x1f)
        }
        field(previous); field(String(at)); field(actor); field(department ?? ""); field(role); field(layer)
        field(featureID); field(kind.rawValue); field(before ?? ""); field(after ?? "")
        if let key { return key.mac(bytes) }
        return SHA256.hex(bytes)
    }

    /// Whether `entries` (the whole log in sequence order) form an unbroken unkeyed chain from the genesis hash.
    static func verify(_ entries: some Sequence<AuditEntry>) -> Bool {
        check(entries).firstBreak == nil
    }

    /// Walks the chain: how many entries it holds and the first whose hash does not follow
    /// from the entries before it (edited, or something before it removed or reordered).
    /// - Parameters:
    ///   - head: what the store's head records (entries and last hash), to find entries removed
    ///     from the end of the log, which leave the rest of the chain intact.
    ///   - expected: an entry count and that entry's hash recorded outside the store (an earlier
    ///     verify's output): the log must still hold that entry, unchanged.
    ///   - record: the store's key record: the entries after its `seq` are keyed.
    ///   - key: the key to check keyed entries with; `nil` checks an unkeyed chain (with a record
    ///     and no key, the keyed entries cannot be checked: `keyMissing`).
    static func check(_ entries: some Sequence<AuditEntry>, head: AuditHead? = nil,
                      expected: AuditHead? = nil, record: AuditKeyRecord? = nil, key: AuditKey? = nil) -> AuditChainCheck {
        let keying: AuditChainCheck.Keying
        switch (record, key) {
        case (nil, nil): keying = .unkeyed
        case (nil, _?): keying = .keyed(fromSequence: 0)
        case (let r?, nil): keying = .keyMissing(r.keyID)
        case (let r?, let k?):
            if r.keyID != k.id { keying = .wrongKey(r.keyID) } else if !r.isSealed(by: k) { keying = .recordForged } else { keying = .keyed(fromSequence: r.seq) }
        }
        guard keying.isCheckable else {
            var check = AuditChainCheck(entries: 0, firstBreak: nil, lastHash: genesis, head: head)
            check.keying = keying
            return check
        }
        // The entries after `boundary.seq` are keyed, and the one before the first of them ends in `boundary.hash`.
        let boundary: (seq: Int64, hash: String)? = if case .keyed(let s) = keying { (s, record?.hash ?? genesis) } else { nil }
        var previous = genesis
        var count = 0
        var crossed = false
        var expectedFound: Bool?
        var check = AuditChainCheck(entries: 0, firstBreak: nil, lastHash: genesis, head: head)
        check.keying = keying
        for e in entries {
            count += 1
            var keyed = false
            if let boundary, e.sequence > boundary.seq {
                keyed = true
                if !crossed {
                    crossed = true
                    guard previous == boundary.hash else {
                        // The unkeyed part does not end where it ended when the chain was keyed.
                        if record == nil, count == 1 { check.keying = .recordMissing }
                        (check.entries, check.firstBreak, check.lastHash) = (count, e.sequence, previous)
                        return check
                    }
                }
            }
            let hash = entryHash(previous: previous, at: RFC3339.microseconds(e.at), actor: e.actor, department: e.department,
                                 role: e.role, layer: e.layer, featureID: e.featureID, kind: e.kind,
                                 before: e.beforeHash, after: e.afterHash, key: keyed ? key : nil)
            guard hash == e.entryHash else {
                // A key and no record, and the first entry unkeyed: the chain was never keyed, or its record was removed.
                if record == nil, key != nil, count == 1 { check.keying = .recordMissing }
                (check.entries, check.firstBreak, check.lastHash) = (count, e.sequence, previous)
                return check
            }
            previous = e.entryHash
            if let expected, count == expected.entries { expectedFound = e.entryHash == expected.lastHash }
        }
        if let boundary, !crossed, previous != boundary.hash {
            // No keyed entry yet, and the log does not end in the entry the record names.
            check.keying = .boundaryMissing(boundary.seq)
        }
        (check.entries, check.lastHash) = (count, previous)
        if let expected {
            check.expected = expected
            check.expectedFound = expectedFound ?? (expected.entries == 0 && expected.lastHash == genesis)
        }
        return check
    }

    /// The hash before the first entry.
    public static let genesis = String(repeating: "0", count: 64)
}

/// What walking the audit chain found (`verifyAuditChain`, `citytwin audit verify`).
public struct AuditChainCheck: Hashable, Sendable {
    /// Entries read: the whole log when the chain is intact, up to the break otherwise.
    public var entries: Int
    /// The sequence number of the first entry that breaks the chain; `nil` when it is intact.
    public var firstBreak: Int64?
    /// The hash of the last entry that follows from the ones before it (the genesis hash for an empty log).
    public var lastHash: String
    /// The store's record of the chain's head, kept by the database itself on every audit
    /// insert (a trigger), apart from the log's rows; `nil` for a store without one.
    public var head: AuditHead?
    /// A head recorded outside the store, when one was given to check against.
    public var expected: AuditHead?
    /// Whether the log still holds `expected`'s entry with its hash.
    public var expectedFound: Bool?
    /// Whether and from where the chain is keyed, as the check found it.
    public var keying: Keying = .unkeyed
    /// What checking every stored feature version against the log found (`AuditDataCheck`);
    /// `nil` when the versions were not checked.
    public var data: AuditDataCheck?

    /// How the chain is keyed (`AuditKey`), as the check found it.
    public enum Keying: Hashable, Sendable {
        /// No key record and no key: plain SHA-256, which whoever can write the database can recompute.
        case unkeyed
        /// The entries after `fromSequence` are HMACs under the key, checked with it.
        case keyed(fromSequence: Int64)
        /// The chain is keyed (key `id`) and no key was given: its keyed entries were not checked.
        case keyMissing(String)
        /// The chain is keyed with key `id`, another than the one given.
        case wrongKey(String)
        /// The key record does not hold the key's seal: it was edited (moved to a later entry).
        case recordForged
        /// A key was given, the store has no key record and its first entry is not keyed: the
        /// chain was never keyed (`citytwin audit key`), or its record was removed.
        case recordMissing
        /// No entry is keyed yet, and the log does not end in the entry the key record names
        /// (sequence): the entries before it were rewritten or removed.
        case boundaryMissing(Int64)

        /// Whether the chain's entries can be checked under this keying.
        var isCheckable: Bool {
            switch self {
            case .unkeyed, .keyed, .recordMissing, .boundaryMissing: true
            case .keyMissing, .wrongKey, .recordForged: false
            }
        }

        /// Whether the keying itself is as it should be (a keyed or an honestly unkeyed chain).
        public var isSound: Bool {
            switch self {
            case .unkeyed, .keyed: true
            default: false
            }
        }
    }

    public init(entries: Int, firstBreak: Int64?, lastHash: String = AuditChain.genesis, head: AuditHead? = nil,
                keying: Keying = .unkeyed) {
        self.entries = entries
        self.firstBreak = firstBreak
        self.lastHash = lastHash
        self.head = head
        self.keying = keying
    }

    /// Entries missing from the end of the log: the head counts more entries than the chain
    /// holds, or as many but ending in another hash (rows deleted from the end, perhaps with
    /// others appended since). 0 when the log ends where its head says.
    public var missingAtEnd: Int {
        guard firstBreak == nil, let head else { return 0 }
        if head.entries > entries { return head.entries - entries }
        return head.entries == entries && head.lastHash != lastHash ? 1 : 0
    }

    /// Whether the chain is unbroken, keyed as its record says (or honestly unkeyed), ends where
    /// its head says, holds the expected entry, and (when checked) every stored feature version
    /// is the one its entries describe.
    public var isIntact: Bool {
        firstBreak == nil && keying.isSound && missingAtEnd == 0 && expectedFound != false && data?.isIntact != false
    }
}

/// The head of the audit chain: how many entries it holds and the hash of the last one. The
/// store keeps one (`audit_head`, written by a database trigger in the transaction of every
/// audit insert) so that deleting rows from the end of the log, which leaves the chain itself
/// intact, is still found; `citytwin audit verify` prints it, for an operator to record
/// elsewhere and check against later (`--expect-entries`, `--expect-hash`).
public struct AuditHead: Hashable, Sendable {
    public var entries: Int
    public var lastHash: String

    public init(entries: Int, lastHash: String) {
        self.entries = entries
        self.lastHash = lastHash
    }
}
