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

    public var code: String { record.code }
    public var position: Position { record.position }
}
