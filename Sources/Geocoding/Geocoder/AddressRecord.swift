import GeoCore

/// A level of the standard address tree (DB42/T 2175), as stored in the `addresses` layer's `level`.
public enum AddressLevel: String, Sendable, Hashable, CaseIterable, Codable {
    case county = "区县"
    case subdistrict = "乡镇街道"
    case community = "社区/村"
    case street = "街路巷"
    case yard = "院落"
    case doorPlate = "门牌"
    case building = "楼栋"
    case unit = "单元"
    case floor = "楼层"
    case room = "户室"

    /// Depth in the tree: 区县 0 … 户室 8 (街路巷 and 院落 share depth 3).
    public var depth: Int {
        switch self {
        case .county: 0
        case .subdistrict: 1
        case .community: 2
        case .street, .yard: 3
        case .doorPlate: 4
        case .building: 5
        case .unit: 6
        case .floor: 7
        case .room: 8
        }
    }

    /// The match level a geocoder reports for a record at this level (街路巷 and 院落 are both 街巷).
    public var matchLevel: AddressMatchLevel {
        switch self {
        case .county: .county
        case .subdistrict: .subdistrict
        case .community: .community
        case .street, .yard: .street
        case .doorPlate: .doorPlate
        case .building: .building
        case .unit: .unit
        case .floor: .floor
        case .room: .room
        }
    }
}

/// How deep a geocoder match reaches (户室/楼层/单元/楼栋/门牌/街巷/社区/街道/区县), finest first.
public enum AddressMatchLevel: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case room = "户室"
    case floor = "楼层"
    case unit = "单元"
    case building = "楼栋"
    case doorPlate = "门牌"
    case street = "街巷"
    case community = "社区"
    case subdistrict = "街道"
    case county = "区县"

    /// 0 for 区县 up to 8 for 户室: a larger rank is a finer match.
    public var rank: Int {
        switch self {
        case .county: 0
        case .subdistrict: 1
        case .community: 2
        case .street: 3
        case .doorPlate: 4
        case .building: 5
        case .unit: 6
        case .floor: 7
        case .room: 8
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// One standard address record (a feature of the `addresses` layer).
public struct AddressRecord: Sendable, Hashable {
    /// DB42/T 2175-style address code; a child's code extends its parent's.
    public var code: String
    /// The parent's code; `nil` for the 区县 root.
    public var parentCode: String?
    public var level: AddressLevel
    /// Name of this element alone (`3栋`, `502室`).
    public var name: String
    /// Full address from the 区县 down.
    public var fullAddress: String
    /// 曾用名.
    public var formerNames: [String]
    /// Entrance or centroid, lon/lat in EPSG:4490 (degrees).
    public var position: Position
    /// `false` for a retired (停用) record: its code is kept but no longer used.
    public var inUse: Bool

    public init(code: String, parentCode: String?, level: AddressLevel, name: String, fullAddress: String,
                formerNames: [String] = [], position: Position, inUse: Bool = true) {
        self.code = code
        self.parentCode = parentCode
        self.level = level
        self.name = name
        self.fullAddress = fullAddress
        self.formerNames = formerNames
        self.position = position
        self.inUse = inUse
    }

    /// Reads a feature of the `addresses` layer.
    /// - Throws: `AddressDataError` naming the feature and the missing or malformed field;
    ///   `GeometryError` when the feature has no point.
    public init(feature: Feature) throws {
        let p = feature.properties
        let id = feature.id?.description ?? "?"
        func string(_ key: String) throws -> String {
            guard let s = p[key]?.stringValue, !s.isEmpty else {
                throw AddressDataError(record: "feature \(id)", field: key, "is missing or not a string")
            }
            return s
        }
        let levelText = try string("level")
        guard let level = AddressLevel(rawValue: levelText) else {
            throw AddressDataError(record: "feature \(id)", field: "level", "unknown address level \(levelText)")
        }
        guard case .point(let point)? = feature.geometry, let position = point.position, position.isFinite else {
            throw GeometryError(.invalidGeometry, "an address needs a non-empty Point geometry", position: "feature \(id)")
        }
        self.init(code: try string("address_code"), parentCode: p["parent_code"]?.stringValue, level: level,
                  name: try string("name"), fullAddress: p["full_address"]?.stringValue ?? "",
                  formerNames: p["former_names"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                  position: position.xy, inUse: p["status"]?.stringValue != "停用" && (p["valid_to"]?.isNull ?? true))
    }
}
