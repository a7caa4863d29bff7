import GeoCore

/// The standard names of a matched address, one per level of the tree (`nil` where the record
/// has no such ancestor: a 院落 address has no 街路巷, a 门牌 no 楼栋).
public struct AddressComponents: Sendable, Hashable, Codable {
    public var county: String?
    public var subdistrict: String?
    public var community: String?
    public var street: String?
    public var yard: String?
    public var doorPlate: String?
    public var building: String?
    public var unit: String?
    public var floor: String?
    public var room: String?

    public init() {}
}

/// A geocoder answer: the standard address record, how deep the match reaches and how sure it is.
public struct AddressMatch: Sendable, Hashable {
    /// The matched record (its `code`, `fullAddress` and `position` in EPSG:4490 degrees).
    public var record: AddressRecord
    /// How deep the match reaches (户室 … 区县); coarser than the text when a part was missing,
    /// ambiguous or not found.
    public var level: AddressMatchLevel
    /// 0…1: 1 for an exact, complete match; lowered for typos, skipped text, inferred levels,
    /// parts that were not found and ambiguity.
    public var confidence: Double
    /// The standard names of the record and its ancestors.
    public var components: AddressComponents
    /// Reverse geocoding only: distance from the query point in metres (equirectangular
    /// approximation on the CGCS2000 ellipsoid's mean radius; within 0.1 % over a district).
    public var distance: Double?
    /// Set when the match is coarser than what the text asks for (a door plate that does not
    /// exist, a building not found under its plate, a name that fits several records): the
    /// level asked for and why the answer stops higher. `nil` for a match at the asked level.
    public var fallback: AddressFallback? = nil

    public var code: String { record.code }
    /// The record's point, or for a missing door plate on a known road, the number's position
    /// interpolated along the road from its plates (`fallback?.position`).
    public var position: Position { fallback?.position ?? record.position }
}

/// Why a forward match stops above the level its text asks for. Its confidence is then the score
/// of the level matched (`AddressMatchLevel.fallbackScore`) times the text's own quality, so a
/// 社区 centre never scores like the door plate that was asked for.
public struct AddressFallback: Sendable, Hashable {
    /// The finest level the text names (门牌 for `邾城七路9999号`).
    public var requested: AddressMatchLevel
    /// Why: the part that does not exist, or the names that fit several records.
    public var reason: String
    /// A position better than the record's point: the missing door number interpolated between
    /// the road's plates around it (only when the road's plates run in number order along it).
    public var position: Position?

    public init(requested: AddressMatchLevel, reason: String, position: Position? = nil) {
        self.requested = requested
        self.reason = reason
        self.position = position
    }
}

extension AddressMatchLevel {
    /// The score of a fallback at this level: what a coarser answer is worth to someone who asked
    /// for something finer. 楼层 0.9, 单元 0.85, 楼栋 0.8, 门牌 0.75, 街巷 at an interpolated door
    /// position 0.6, 街巷 (the road's or yard's point) 0.5, 社区 0.3, 街道 0.2, 区县 0.1.
    public func fallbackScore(interpolated: Bool = false) -> Double {
        switch self {
        case .room: 1
        case .floor: 0.9
        case .unit: 0.85
        case .building: 0.8
        case .doorPlate: 0.75
        case .street: interpolated ? 0.6 : 0.5
        case .community: 0.3
        case .subdistrict: 0.2
        case .county: 0.1
        }
    }
}
