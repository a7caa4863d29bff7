import GeoCore
import ProcessRuntime
import TwinStore

/// A place whose people a service must reach: a standard address (by default the 门牌 door
/// plates) or a building, with the residents living under it.
public struct DemandPoint: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case address, building }
    public var kind: Kind
    /// Feature id in `addresses` or `buildings`.
    public var id: String
    /// Standard address code (a building's is its 楼栋 code).
    public var addressCode: String?
    /// The 12-digit 社区/村 code the address code starts with.
    public var community: String?
    /// Lon/lat (EPSG:4490): the address point, or the centre of the building footprint's envelope.
    public var position: Position
    /// Residents living under this address code (see `HouseholdPopulation`).
    public var population: Double
}

/// Where the population figures come from.
public enum PopulationSource: Sendable, Hashable, CustomStringConvertible {
    /// 实有人口 from `population_by_address` (negative-listed: only its owner 公安局 and the admin
    /// read it; every analysis output is an aggregate).
    case residents
    /// The caller may not read `population_by_address`: in-use 户室 addresses × persons per household.
    case householdEstimate(personsPerHousehold: Double)
    /// Neither: no `population_by_address` the caller may read and no in-use 户室 address in the city
    /// (a city built from OpenStreetMap). The answers then give no population figures (null), never 0.
    case unknown

    public var description: String {
        switch self {
        case .residents: "population_by_address.residents"
        case .householdEstimate(let p): "estimate: in-use 户室 addresses × \(p) persons per household"
        case .unknown: "unknown: no population_by_address the caller may read and no in-use 户室 address to estimate from"
        }
    }

    /// Whether the population figures mean anything.
    public var isKnown: Bool { self != .unknown }
}

/// Residents per household address code, summed under any address-code prefix (a child's code
/// extends its parent's, so a 门牌's residents are those of every 户室 code starting with it).
public struct HouseholdPopulation: Sendable {
    public let source: PopulationSource
    /// 户室 codes, sorted.
    let codes: [String]
    let residents: [Double]

    public init(source: PopulationSource, households: [(code: String, residents: Double)]) {
        let sorted = households.sorted { $0.code < $1.code }
        self.source = source
        codes = sorted.map(\.code)
        residents = sorted.map(\.residents)
    }

    /// Mean household size in China's 2020 census (第七次全国人口普查: 2.62 persons per household).
    public static let censusPersonsPerHousehold = 2.62

    /// Total residents.
    public var total: Double { residents.reduce(0, +) }

    /// Residents of every household whose code starts with `prefix`.
    public func population(under prefix: String) -> Double {
        var lo = 0, hi = codes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if codes[mid] < prefix { lo = mid + 1 } else { hi = mid }
        }
        var sum = 0.0
        var i = lo
        while i < codes.count, codes[i].hasPrefix(prefix) { sum += residents[i]; i += 1 }
        return sum
    }

    /// Residents from `population_by_address` when `caller` may read it and it holds any, else the
    /// household estimate from the in-use 户室 addresses, else `.unknown` (no figures).
    /// - Parameter area: only households whose point intersects this lon/lat polygon (`nil`: all).
    public static func load(from store: any FeatureStore, by caller: Caller, within area: Geometry? = nil,
                            personsPerHousehold: Double = censusPersonsPerHousehold) async throws -> HouseholdPopulation {
        var households: [(code: String, residents: Double)] = []
        let spatial: [FilterExpression] = area.map { [.spatial(.intersects, $0)] } ?? []
        if try await store.layerDefinition("population_by_address", for: caller) != nil {
            let q = FeatureQuery(filter: spatial.isEmpty ? nil : .and(spatial), properties: ["address_code", "residents"], limit: 5000)
            for try await f in store.stream(layer: "population_by_address", q, by: caller) {
                guard let code = f.properties["address_code"]?.stringValue else { continue }
                households.append((code, f.properties["residents"]?.doubleValue ?? 0))
            }
            // An empty register (a city whose 公安局 has not loaded it) counts no one: estimate instead.
            if !households.isEmpty { return HouseholdPopulation(source: .residents, households: households) }
            let anyone = try await store.query(layer: "population_by_address", FeatureQuery(properties: ["address_code"], limit: 1), by: caller)
            if !anyone.features.isEmpty { return HouseholdPopulation(source: .residents, households: []) }
        }
        guard try await store.layerDefinition("addresses", for: caller) != nil else {
            return HouseholdPopulation(source: .unknown, households: [])
        }
        let inUse: [FilterExpression] = [.comparison(.equal, .property("level"), .literal("户室")),
                                         .comparison(.equal, .property("status"), .literal("在用"))]
        let q = FeatureQuery(filter: .and(inUse + spatial), properties: ["address_code"], limit: 5000)
        for try await f in store.stream(layer: "addresses", q, by: caller) {
            if let code = f.properties["address_code"]?.stringValue { households.append((code, personsPerHousehold)) }
        }
        // None in the area: 0 people there, if the city has 户室 addresses at all; else no estimate.
        if households.isEmpty,
           try await store.query(layer: "addresses", FeatureQuery(filter: .and(inUse), properties: ["address_code"], limit: 1), by: caller).features.isEmpty {
            return HouseholdPopulation(source: .unknown, households: [])
        }
        return HouseholdPopulation(source: .householdEstimate(personsPerHousehold: personsPerHousehold), households: households)
    }
}

extension DemandPoint {
    /// Length of a 社区/村 code, the prefix of every address code below it.
    public static let communityCodeLength = 12

    /// The in-use addresses of `level` (default 门牌, the door plates a crew is sent to).
    /// - Throws: `ScenarioError(.missingLayer)` when the caller may not read `addresses`.
    public static func addresses(level: String = "门牌", from store: any FeatureStore, population: HouseholdPopulation,
                                 by caller: Caller) async throws -> [DemandPoint] {
        guard try await store.layerDefinition("addresses", for: caller) != nil else {
            throw ScenarioError(.missingLayer, "no layer 'addresses'", field: "addresses")
        }
        let q = FeatureQuery(filter: .and([.comparison(.equal, .property("level"), .literal(.string(level))),
                                           .comparison(.equal, .property("status"), .literal("在用"))]),
                             properties: ["address_code"], limit: 5000)
        var out: [DemandPoint] = []
        for try await f in store.stream(layer: "addresses", q, by: caller) {
            guard let p = EmergencyResource.point(of: f.geometry) else { continue }
            let code = f.properties["address_code"]?.stringValue
            out.append(DemandPoint(kind: .address, id: f.id?.description ?? "", addressCode: code,
                                   community: code.flatMap(community(of:)), position: p,
                                   population: code.map(population.population(under:)) ?? 0))
        }
        return out
    }

    /// Every building, at the centre of its footprint's envelope.
    /// - Throws: `ScenarioError(.missingLayer)` when the caller may not read `buildings`.
    public static func buildings(from store: any FeatureStore, population: HouseholdPopulation,
                                 by caller: Caller) async throws -> [DemandPoint] {
        guard try await store.layerDefinition("buildings", for: caller) != nil else {
            throw ScenarioError(.missingLayer, "no layer 'buildings'", field: "buildings")
        }
        var out: [DemandPoint] = []
        for try await f in store.stream(layer: "buildings", FeatureQuery(properties: ["address_code"], limit: 5000), by: caller) {
            guard let p = EmergencyResource.point(of: f.geometry) else { continue }
            let code = f.properties["address_code"]?.stringValue
            out.append(DemandPoint(kind: .building, id: f.id?.description ?? "", addressCode: code,
                                   community: code.flatMap(community(of:)), position: p,
                                   population: code.map(population.population(under:)) ?? 0))
        }
        return out
    }

    static func community(of code: String) -> String? {
        code.count >= communityCodeLength ? String(code.prefix(communityCodeLength)) : nil
    }
}
