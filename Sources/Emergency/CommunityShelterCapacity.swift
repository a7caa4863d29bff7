import Foundation
import GeoCore
import TwinStore

/// Shelter places against population in one 社区/村: the layout rule that shelters hold at
/// least 15 % of the planned population of their responsibility area (cim-and-layers.md §4),
/// with the community as the responsibility area and its shelters those located inside it.
public struct CommunityShelterCapacity: Sendable, Hashable {
    /// 12-digit 社区/村 code.
    public var code: String
    public var name: String
    /// Residents (see `HouseholdPopulation.source`).
    public var population: Double
    /// Shelter places (`capacity`, persons) of the shelters inside the community.
    public var capacity: Double
    /// Ids of those shelters.
    public var shelters: [String]
    /// Places the rule asks for: ⌈share × population⌉.
    public var required: Double
    /// Places missing: max(0, required − capacity).
    public var shortfall: Double
    /// Residents within the walk standard of any shelter (nil when not computed).
    public var walkCoveredPopulation: Double?

    /// capacity ÷ population (infinity for an empty community with shelters, 0 without).
    public var ratio: Double { population > 0 ? capacity / population : (capacity > 0 ? .infinity : 0) }
    /// Whether the community meets the rule.
    public var meetsRule: Bool { shortfall == 0 }
}

/// A 社区/村 polygon from `admin_divisions`.
public struct Community: Sendable, Hashable {
    public var code: String
    public var name: String
    /// Lon/lat (EPSG:4490).
    public var area: Geometry

    /// The `社区/村` divisions `caller` may read.
    public static func load(from store: any FeatureStore, by caller: Caller) async throws -> [Community] {
        guard try await store.layerDefinition("admin_divisions", for: caller) != nil else { return [] }
        let q = FeatureQuery(filter: .comparison(.equal, .property("level"), .literal("社区/村")), limit: 1000)
        var out: [Community] = []
        for try await f in store.stream(layer: "admin_divisions", q, by: caller) {
            guard let g = f.geometry, let code = f.properties["code"]?.stringValue else { continue }
            out.append(Community(code: code, name: f.properties["name"]?.stringValue ?? code, area: g))
        }
        return out
    }
}

extension CommunityShelterCapacity {
    /// The share of the population shelters must hold (GB 51143 layout rule for 固定 shelters).
    public static let minimumShare = 0.15

    /// One row per community: its population (households under its code), the shelters whose
    /// point lies in its polygon (GEOS, prepared) and the shortfall against `share`.
    /// - Parameter walk: shelter walk coverage of addresses, for the covered population per community.
    public static func assess(communities: [Community], shelters: [EmergencyResource], population: HouseholdPopulation,
                              share: Double = minimumShare, walk: FacilityCoverage? = nil) throws -> [CommunityShelterCapacity] {
        var walkCovered: [String: Double] = [:]
        if let walk {
            for i in walk.covered { if let c = walk.demand[i].community { walkCovered[c, default: 0] += walk.demand[i].population } }
        }
        var out: [CommunityShelterCapacity] = []
        for c in communities.sorted(by: { $0.code < $1.code }) {
            let prepared = try PreparedGeometry(c.area)
            var capacity = 0.0
            var ids: [String] = []
            for s in shelters where try prepared.intersects(x: s.position.x, y: s.position.y) {
                capacity += s.capacity ?? 0
                ids.append(s.id)
            }
            let pop = population.population(under: c.code)
            let required = (share * pop).rounded(.up)
            out.append(CommunityShelterCapacity(code: c.code, name: c.name, population: pop, capacity: capacity, shelters: ids,
                                                required: required, shortfall: max(0, required - capacity),
                                                walkCoveredPopulation: walk == nil ? nil : walkCovered[c.code, default: 0]))
        }
        return out
    }
}
