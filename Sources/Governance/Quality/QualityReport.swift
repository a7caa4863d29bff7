import Foundation

/// The kinds of defect a layer's quality report counts (数据质量: normativity, consistency,
/// completeness), in report order.
public enum QualityCheckKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// A geometry that breaks the OGC simple-features rules (GEOS `isValidDetail`).
    case geometryValidity = "geometry-validity"
    /// A required attribute missing, null or blank, or a geometry layer's feature without geometry.
    case completeness
    /// A number outside its schema's `minimum`/`maximum` (or exclusive bounds).
    case valueRange = "value-range"
    /// A value not in its schema's code list (`enum`).
    case codeList = "code-list"
    /// Any other schema rule a stored value breaks (type, pattern, length), e.g. after the schema was tightened.
    case schema
    /// Two or more features with the same value of the layer's key (`quality.key`, e.g. an address code).
    case duplicateKeys = "duplicate-keys"
    /// Two or more features with identical geometries (the same coordinates).
    case duplicateGeometries = "duplicate-geometries"
    /// A network link whose end names no node of the network, or lies away from the node it names.
    case danglingEnds = "dangling-ends"
    /// Network links outside the network's largest connected part.
    case disconnectedParts = "disconnected-parts"
    /// A pipe whose invert rises in the direction it drains (its flow direction contradicts its inverts).
    case flowAgainstInverts = "flow-against-inverts"
    /// The layer was last written longer ago than its declared update frequency allows.
    case freshness
    /// A position outside the city's extent (its administrative divisions widened by `CityExtent.margin`).
    case outsideExtent = "outside-extent"
    /// A rule of the layer's own (`quality.rules`) broken: a design standard's requirement (GB 50974,
    /// GB 50016) or the consistency of its values.
    case rules

    /// What the check looks for, in words.
    public var summary: String {
        switch self {
        case .geometryValidity: "geometries that break the OGC validity rules (GEOS)"
        case .completeness: "required attributes missing, null or blank; features of a geometry layer without geometry"
        case .valueRange: "numbers outside the schema's minimum/maximum"
        case .codeList: "values outside the schema's code list (enum)"
        case .schema: "other schema rules broken by stored values (type, pattern, length)"
        case .duplicateKeys: "features sharing the layer's key value"
        case .duplicateGeometries: "features with identical geometries"
        case .danglingEnds: "link ends that name no node of the network or lie away from it"
        case .disconnectedParts: "links outside the network's largest connected part"
        case .flowAgainstInverts: "pipes whose invert rises in their flow direction"
        case .freshness: "the layer last written longer ago than its update frequency"
        case .outsideExtent: "positions outside the city's extent"
        case .rules: "the layer's own rules broken: design standards (GB 50974, GB 50016) and the consistency of its values"
        }
    }
}

/// One offending feature of a check and why.
public struct QualityFinding: Codable, Sendable, Hashable {
    /// The feature id (`*` for the layer as a whole).
    public var id: String
    public var detail: String

    public init(id: String, detail: String) {
        self.id = id
        self.detail = detail
    }
}

/// One check's result: how many features it found and the first of them.
public struct QualityCheck: Codable, Sendable, Hashable {
    public var check: QualityCheckKind
    public var description: String
    /// Offending features (for `freshness`, 1 when the layer is stale).
    public var count: Int
    /// The first `count` findings, at most the report's cap.
    public var findings: [QualityFinding]
    /// Findings beyond the cap (`count - findings.count`).
    public var omitted: Int
}

/// A layer's data-quality report (`GET /collections/{id}/quality`, `citytwin quality LAYER`).
public struct QualityReport: Codable, Sendable, Hashable {
    public var collection: String
    /// RFC 3339 instant of the check.
    public var checkedAt: String
    /// Current features checked.
    public var features: Int
    /// The layer's declared update frequency and its last write (RFC 3339; nil when never written).
    public var updateFrequency: String
    public var lastWritten: String?
    /// The change-feed sequence of the layer's last change when it was checked.
    public var lastChange: Int64
    /// The checks that apply to the layer, in `QualityCheckKind` order (a network check only on network layers).
    public var checks: [QualityCheck]

    /// Offending features over every check (a feature may count in several).
    public var issues: Int { checks.reduce(0) { $0 + $1.count } }

    /// The catalogue's summary: counts per check with findings.
    public var summary: QualitySummary {
        QualitySummary(checkedAt: checkedAt, features: features, issues: issues,
                       byCheck: Dictionary(uniqueKeysWithValues: checks.filter { $0.count > 0 }.map { ($0.check.rawValue, $0.count) }))
    }
}

/// A quality report in brief, for the collection's metadata.
public struct QualitySummary: Codable, Sendable, Hashable {
    public var checkedAt: String
    public var features: Int
    public var issues: Int
    /// Check name → offending features, for the checks that found any.
    public var byCheck: [String: Int]
}

/// Collects findings per check, keeping the first `cap` of each.
struct QualityFindings {
    let cap: Int
    private(set) var counts: [QualityCheckKind: Int] = [:]
    private(set) var kept: [QualityCheckKind: [QualityFinding]] = [:]

    init(cap: Int) { self.cap = cap }

    mutating func add(_ kind: QualityCheckKind, _ id: String, _ detail: String) {
        counts[kind, default: 0] += 1
        if kept[kind, default: []].count < cap { kept[kind, default: []].append(QualityFinding(id: id, detail: detail)) }
    }

    /// The checks of `kinds`, in report order, each with its count (0 when it found nothing).
    func checks(_ kinds: Set<QualityCheckKind>) -> [QualityCheck] {
        QualityCheckKind.allCases.filter(kinds.contains).map { k in
            let n = counts[k] ?? 0, f = kept[k] ?? []
            return QualityCheck(check: k, description: k.summary, count: n, findings: f, omitted: n - f.count)
        }
    }
}
