import Foundation
import GeoCore

/// What checking every stored feature version, current and historic, against the audit log found
/// (`citytwin audit verify`): each entry that wrote a version (insert, update, transfer) records
/// the version's content hash and instant, and each entry that ended one (update, transfer,
/// delete) its end, so a version row edited, added or removed behind the store's back, or whose
/// validity was moved, no longer matches. The log itself is the keyed chain (`AuditChain`), so
/// neither can be fixed up to match the other without the key. Findings name the layer and the
/// feature, never the data.
public struct AuditDataCheck: Hashable, Sendable {
    /// One version that does not match the log.
    public struct Finding: Hashable, Sendable {
        public var layer: String
        public var feature: String
        public var problem: String
    }

    /// Layers whose versions were read.
    public var layers = 0
    /// Versions read.
    public var versions = 0
    /// The first findings (at most `reportedFindings`), in layer and feature order.
    public var findings: [Finding] = []
    /// Every finding, counted.
    public var findingCount = 0

    /// How many findings are kept to report.
    public static let reportedFindings = 20

    /// Whether every version matches the log.
    public var isIntact: Bool { findingCount == 0 }

    mutating func add(_ layer: String, _ feature: String, _ problem: String) {
        findingCount += 1
        if findings.count < Self.reportedFindings { findings.append(Finding(layer: layer, feature: feature, problem: problem)) }
    }
}

/// Builds an `AuditDataCheck`: the entries that describe versions, per layer and feature, from the
/// log; then the stored versions of each layer, a feature at a time, checked against them.
struct AuditDataChecker {
    /// One entry of a feature's history, as the versions must follow it.
    struct Step {
        var sequence: Int64
        var at: Int64
        /// The version it wrote (insert, update, transfer), else `nil` (delete).
        var after: String?
    }

    /// A stored version as read: its validity, and its content (the hash is computed from it).
    struct Version {
        var validFrom: Int64
        var validTo: Int64?
        var propertiesText: String
        var wkb: [UInt8]?
    }

    private var steps: [String: [String: [Step]]] = [:]
    private var result = AuditDataCheck()
    private var seen: Set<String> = []

    /// The steps of every feature from `entries` (the whole log, in order). Entries that are no
    /// feature's are left out: acts that changed nothing (`access`, `refused`), SensorThings
    /// entities (`sta:…`), managed rasters and the city record; a whole layer's removal (feature
    /// `*`) forgets the layer's steps before it, its versions having gone with its table.
    init(entries: [AuditEntry]) {
        for e in entries where e.kind.changesData {
            if e.featureID == LayerRemovalSQL.featureID {
                if e.kind == .delete { steps[e.layer] = nil }
                continue
            }
            if e.featureID.hasPrefix("sta:")
                || (e.layer == RasterSQL.auditLayer && e.featureID.hasPrefix(RasterSQL.featureID("")))
                || (e.layer == CitySQL.auditLayer && e.featureID == CitySQL.featureID) { continue }
            steps[e.layer, default: [:]][e.featureID, default: []]
                .append(Step(sequence: e.sequence, at: RFC3339.microseconds(e.at), after: e.afterHash))
        }
    }

    /// Starts reading `layer`'s versions.
    mutating func begin(layer: String) {
        result.layers += 1
        seen.insert(layer)
    }

    /// Checks the versions of one feature (in `valid_from`, then row order) against its steps.
    /// - Parameter canonical: whether the stored properties may be other text than the canonical
    ///   text hashed at write (PostgreSQL's jsonb): always re-canonicalised, else only when the
    ///   stored bytes' hash does not match.
    mutating func check(layer: String, feature: String, versions: [Version], canonical: Bool) {
        result.versions += versions.count
        let history = steps[layer]?.removeValue(forKey: feature) ?? []
        let written = history.enumerated().filter { $0.element.after != nil }
        func fail(_ problem: String) { result.add(layer, feature, problem) }
        if versions.count != written.count {
            if versions.count > written.count {
                fail("\(versions.count) stored versions where the audit log records \(written.count): a version was added behind the store's back")
            } else {
                fail("\(versions.count) stored versions where the audit log records \(written.count): a version was removed behind the store's back")
            }
            return
        }
        for (v, (position, step)) in zip(versions, written) {
            let from = RFC3339.format(RFC3339.date(microseconds: v.validFrom))
            guard v.validFrom == step.at else {
                fail("the version valid from \(from) is not at the instant audit entry \(step.sequence) records: a version was changed behind the store's back")
                return
            }
            guard let expected = step.after, Self.matches(v, expected, canonical: canonical) else {
                fail("the version valid from \(from) is not the content audit entry \(step.sequence) records: it was edited behind the store's back")
                return
            }
            let end = position + 1 < history.count ? history[position + 1].at : nil
            guard v.validTo == end else {
                fail("the version valid from \(from) ends \(v.validTo.map { RFC3339.format(RFC3339.date(microseconds: $0)) } ?? "never") where the audit log records \(end.map { RFC3339.format(RFC3339.date(microseconds: $0)) } ?? "no end"): its validity was changed behind the store's back")
                return
            }
        }
    }

    /// The check, after every layer was read: the features and layers the log describes whose
    /// versions were not found are findings too.
    mutating func finish() -> AuditDataCheck {
        for (layer, features) in steps.sorted(by: { $0.key < $1.key }) {
            let described = features.filter { $0.value.contains { $0.after != nil } }
            guard !described.isEmpty else { continue }
            if !seen.contains(layer) {
                result.add(layer, "*", "the audit log records versions of \(described.count) features of this layer, but the store has no such layer: it was removed behind the store's back")
                continue
            }
            for (feature, history) in described.sorted(by: { $0.key < $1.key }) {
                let count = history.filter { $0.after != nil }.count
                result.add(layer, feature, "no stored version where the audit log records \(count): the feature's versions were removed behind the store's back")
            }
        }
        return result
    }

    /// Whether the version's content hashes to `expected`, as `PreparedFeature` hashed it at write:
    /// the stored bytes (not with `canonical`: PostgreSQL's jsonb keeps neither key order nor
    /// spacing), then the canonical text of the stored properties with the stored WKB (both
    /// backends read the geometry back as ISO WKB, little-endian, as it was written), then with the
    /// geometry read and written again as ISO WKB. A version matches only if its content, read
    /// back, is what was hashed: its text, its values and its coordinates.
    static func matches(_ v: Version, _ expected: String, canonical: Bool) -> Bool {
        if !canonical, hash(Array(v.propertiesText.utf8), v.wkb) == expected { return true }
        guard let properties = try? CanonicalJSON.parseObject(v.propertiesText, layer: "", feature: "") else { return false }
        var writer = CanonicalJSON.Writer()
        writer.writeObject(properties)
        if hash(writer.bytes, v.wkb) == expected { return true }
        guard let stored = v.wkb, let g = try? Geometry(wkb: stored) else { return false }
        return hash(writer.bytes, g.wkb()) == expected
    }

    /// The content hash of `PreparedFeature`: SHA-256 of the properties' text, a zero byte, the WKB.
    static func hash(_ properties: [UInt8], _ wkb: [UInt8]?) -> String {
        var h = SHA256()
        h.update(properties)
        h.update(CollectionOfOne(UInt8(0)))
        if let wkb { h.update(wkb) }
        return SHA256.hexString(h.finalize())
    }
}
