/// The six data categories of a CIM platform's layer tree (reference: cim-and-layers.md §1.3).
public enum CIMCategory: String, Codable, Sendable, CaseIterable {
    /// 时空基础: administrative units, base maps, DEM/DOM, 3D models.
    case spatioTemporalBase = "时空基础"
    /// 资源调查: land, geology, water resources, buildings.
    case resourceSurvey = "资源调查"
    /// 规划管控: planning overlays and control lines.
    case planningControl = "规划管控"
    /// 工程建设项目: construction project approvals and BIM filings.
    case constructionProjects = "工程建设项目"
    /// 公共专题: population, POI, standard addresses, emergency topics.
    case publicThemes = "公共专题"
    /// 物联感知: IoT sensors (water level, pressure, traffic, weather).
    case iotSensing = "物联感知"
}

/// How a layer may be shared (共享类型 / 开放类型, cim-and-layers.md §5).
public enum SharingType: String, Codable, Sendable, CaseIterable {
    /// 无条件开放: anyone, including anonymous callers.
    case open
    /// 无条件共享: every government department.
    case shared
    /// 有条件共享: departments, subject to the layer's use requirements.
    case conditional
    /// 不予共享: the owner department only.
    case notShared = "not-shared"
}

/// How a sensitive attribute is shown to callers who may not see it (脱敏). The kinds of
/// personal identifier each have their display rule (`AttributeMask`; the table is in
/// docs/security.md, "Masking rules"), so that what is shown never lets the value be recovered.
public enum MaskRule: String, Codable, Sendable, CaseIterable {
    /// The attribute is removed from the feature entirely.
    case redact
    /// Any text: the first three and last four characters of 11 or more (`13812345678` →
    /// `138****5678`), else the first character and a star for each other (`张三` → `张*`): at
    /// least four characters, or all but the first, hidden. Prefer the rule of the value's kind.
    case partial
    /// A stable, keyed SHA-256 prefix: equal values stay equal (joins work), values stay hidden.
    case hash
    /// A vehicle plate (号牌): the province character and the last two (`鄂A95AC1` → `鄂*****C1`,
    /// an 8-character new-energy plate alike): five stars whatever the length.
    case plate
    /// A phone number: an 11-digit mobile its first three and last four digits (`138****1234`),
    /// any number its last four at most, with at least four digits hidden.
    case phone
    /// An identity card number (居民身份证): the first six (the region) and the last four at most
    /// (`420704********1234`), with at least eight characters hidden.
    case idNumber = "id-number"
    /// A person's name: the first character (the surname) and two stars (`张三` → `张**`,
    /// `欧阳娜娜` → `欧**`), whatever the length.
    case name
}

/// A sensitive attribute and who may see it unmasked (besides the owner and admins).
public struct SensitiveAttribute: Codable, Hashable, Sendable {
    /// The property name, as in the layer schema.
    public var attribute: String
    public var mask: MaskRule
    /// Departments allowed to see the clear value.
    public var visibleTo: [String]

    public init(attribute: String, mask: MaskRule, visibleTo: [String] = []) {
        self.attribute = attribute
        self.mask = mask
        self.visibleTo = visibleTo
    }
}

/// Sharing class of a layer: type, method (api, download, sandbox, …) and use requirements.
public struct SharingPolicy: Codable, Hashable, Sendable {
    public var type: SharingType
    /// 共享方式: "api", "download", "sandbox", … (free text from the catalogue).
    public var method: String
    /// 使用要求: conditions of use, in the catalogue's words.
    public var requirements: String
    /// The departments the owner lets read the layer's k-anonymous aggregates inside a process's
    /// answer (optional `"aggregates"`), under the sandbox's disclosure control.
    public var aggregateGrants: [AggregateGrant]
    /// The owner's k for the layer's aggregates (optional `"k"`): groups of fewer records are
    /// suppressed. A server's `--sandbox-k` can only raise it.
    public var k: Int?

    /// The values `"k"` may take.
    public static let kRange = 2...1_000

    public init(type: SharingType, method: String, requirements: String, aggregateGrants: [AggregateGrant] = [], k: Int? = nil) {
        self.type = type
        self.method = method
        self.requirements = requirements
        self.aggregateGrants = aggregateGrants
        self.k = k
    }
}

/// An owner's rule in the catalogue (`sharing.aggregates`): `departments` may read the layer's
/// aggregates, as the sandbox releases them (groups under k suppressed, every release in the
/// department's ledger and the layer's audit log), inside the answers of process `process`, for
/// `purpose` (e.g. 消防救援大队, `fire-pre-plan`: households and residents per building).
public struct AggregateGrant: Codable, Hashable, Sendable {
    public var process: String
    public var departments: [String]
    public var purpose: String

    public init(process: String, departments: [String], purpose: String) {
        self.process = process
        self.departments = departments
        self.purpose = purpose
    }
}

/// A bilingual layer title.
public struct LayerTitle: Codable, Hashable, Sendable {
    public var zh: String
    public var en: String
    public init(zh: String, en: String) {
        self.zh = zh
        self.en = en
    }
}

/// The temporal extent of each feature, as property names (e.g. a reading's `observed_at`).
public struct TemporalProperties: Codable, Hashable, Sendable {
    /// The property holding the start instant (RFC 3339 date-time or date).
    public var start: String
    /// The property holding the end instant, when features are intervals.
    public var end: String?
    public init(start: String, end: String? = nil) {
        self.start = start
        self.end = end
    }
}
