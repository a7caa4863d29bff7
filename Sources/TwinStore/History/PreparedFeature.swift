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
        if canonical.containsNUL, let bad = Self.firstNUL(in: feature.properties) {
            throw StoreError(.invalidFeature, "text contains the NUL character (U+0000), which the store cannot hold",
                             layer: layer.id, feature: id, field: bad)
        }
        self.propertiesText = canonical.text
        var h = SHA256()
        h.update(canonical.bytes)
        h.update(Self.zero)
        if let wkb { h.update(wkb) }
        self.hash = SHA256.hexString(h.finalize())
    }

    /// The property (top-level name) whose key or text contains U+0000, if any: PostgreSQL's
    /// jsonb refuses it, so both backends reject it alike. The first in name order, so the
    /// error is the same whatever the dictionary's order.
    static func firstNUL(in properties: [String: JSONValue]) -> String? {
        func has(_ v: JSONValue) -> Bool {
            switch v {
            case .string(let s): s.utf8.contains(0)
            case .array(let a): a.contains(where: has)
            case .object(let o): o.contains { $0.key.utf8.contains(0) || has($0.value) }
            default: false
            }
        }
        func bad(_ key: String, _ value: JSONValue) -> Bool { key.utf8.contains(0) || has(value) }
        // Almost every feature has none: sort the names only when one does.
        guard properties.contains(where: { bad($0.key, $0.value) }) else { return nil }
        return properties.keys.sorted().first { bad($0, properties[$0] ?? .null) }
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

/// The tamper-evident chain of the audit log: each entry's hash covers the previous one's.
enum AuditChain {
    static func entryHash(previous: String, at: Int64, actor: String, department: String?, role: String,
                          layer: String, featureID: String, kind: ChangeKind, before: String?, after: String?) -> String {
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
        return SHA256.hex(bytes)
    }

    /// Whether `entries` (the whole log in sequence order) form an unbroken chain from the genesis hash.
    static func verify(_ entries: some Sequence<AuditEntry>) -> Bool {
        check(entries).firstBreak == nil
    }

    /// Walks the chain: how many entries it holds and the first whose hash does not follow
    /// from the entries before it (edited, or something before it removed or reordered).
    static func check(_ entries: some Sequence<AuditEntry>) -> AuditChainCheck {
        var previous = genesis
        var count = 0
        for e in entries {
            count += 1
            let expected = entryHash(previous: previous, at: RFC3339.microseconds(e.at), actor: e.actor, department: e.department,
                                     role: e.role, layer: e.layer, featureID: e.featureID, kind: e.kind,
                                     before: e.beforeHash, after: e.afterHash)
            guard expected == e.entryHash else { return AuditChainCheck(entries: count, firstBreak: e.sequence) }
            previous = e.entryHash
        }
        return AuditChainCheck(entries: count, firstBreak: nil)
    }

    /// The hash before the first entry.
    static let genesis = String(repeating: "0", count: 64)
}

/// What walking the audit chain found (`verifyAuditChain`, `citytwin audit verify`).
public struct AuditChainCheck: Hashable, Sendable {
    /// Entries read: the whole log when the chain is intact, up to the break otherwise.
    public var entries: Int
    /// The sequence number of the first entry that breaks the chain; `nil` when it is intact.
    public var firstBreak: Int64?
}
