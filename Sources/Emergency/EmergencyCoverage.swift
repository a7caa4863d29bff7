import GeoCore
import NetworkAnalysis
import TwinStore

/// The coverage of a district against the emergency standards: fire stations' drive of
/// addresses and buildings, shelters' walk of addresses and buildings, shelter places against
/// population per community, and where one more station or shelter helps most.
public struct EmergencyCoverage: Sendable {
    /// What to assess.
    public struct Options: Sendable, Hashable {
        /// Fire standard (default 5 min driving, 建标152-2017).
        public var fire = CoverageStandard.fireStation
        /// Shelter standard (default 500 m walking).
        public var shelter = CoverageStandard.shelterWalk()
        /// Address level counted as demand (default 门牌).
        public var addressLevel = "门牌"
        /// Share of the population shelters must hold (default 0.15).
        public var capacityShare = CommunityShelterCapacity.minimumShare
        /// Sites to suggest for each of fire stations and shelters (0 skips the search).
        public var suggestions = 1
        /// Which shelters count (`nil`: all).
        public var shelterFilter = ResourceFilter.any
        /// The farthest (metres) a station, shelter, address or building may lie from the roads
        /// and still be routed; beyond it a facility covers nothing and a point is not covered.
        public var maximumSnapMetres = StoreRoadGraph.defaultMaximumSnapMetres

        public init() {}
    }

    public var options: Options
    public var population: HouseholdPopulation
    public var fireAddresses: FacilityCoverage
    public var fireBuildings: FacilityCoverage
    public var shelterAddresses: FacilityCoverage
    public var shelterBuildings: FacilityCoverage
    public var communities: [CommunityShelterCapacity]
    /// Suggested fire-station sites, with the previously uncovered buildings each adds.
    public var fireSites: [(site: SiteSuggestion, buildings: [String])]
    /// Suggested shelter sites, with the previously uncovered buildings each adds.
    public var shelterSites: [(site: SiteSuggestion, buildings: [String])]

    /// Reads the layers as `caller` (resources, addresses, buildings, admin divisions and, when
    /// readable, population) and runs every assessment.
    /// - Parameter graphs: where road graphs come from (cached per store).
    public static func assess(store: any FeatureStore, by caller: Caller, options: Options = Options(),
                              graphs: EmergencyRoadGraphs = .shared) async throws -> EmergencyCoverage {
        let population = try await HouseholdPopulation.load(from: store, by: caller)
        let addresses = try await DemandPoint.addresses(level: options.addressLevel, from: store, population: population, by: caller)
        let buildings = try await DemandPoint.buildings(from: store, population: population, by: caller)
        let stations = try await EmergencyResource.load(layer: "fire_stations", from: store, by: caller, field: "fire_stations")
        let shelters = try await EmergencyResource.load(layer: "shelters", from: store, filter: options.shelterFilter, by: caller,
                                                        field: "shelters")
        let communities = try await Community.load(from: store, by: caller)
        let drive = try await graphs.graph(for: store, profile: options.fire.profile, by: caller)
        let walk = try await graphs.graph(for: store, profile: options.shelter.profile, by: caller)

        let fireA = try FacilityCoverage(facilities: stations, demand: addresses, roads: drive, standard: options.fire,
                                         maximumSnapMetres: options.maximumSnapMetres)
        let fireB = try FacilityCoverage(facilities: stations, demand: buildings, roads: drive, standard: options.fire,
                                         maximumSnapMetres: options.maximumSnapMetres)
        let shelterA = try FacilityCoverage(facilities: shelters, demand: addresses, roads: walk, standard: options.shelter,
                                            maximumSnapMetres: options.maximumSnapMetres)
        let shelterB = try FacilityCoverage(facilities: shelters, demand: buildings, roads: walk, standard: options.shelter,
                                            maximumSnapMetres: options.maximumSnapMetres)
        let rows = try CommunityShelterCapacity.assess(communities: communities, shelters: shelters, population: population,
                                                       share: options.capacityShare, walk: shelterA)
        func sites(_ a: FacilityCoverage, _ b: FacilityCoverage, _ roads: StoreRoadGraph) throws -> [(site: SiteSuggestion, buildings: [String])] {
            try a.suggestSites(count: options.suggestions, roads: roads).map { s in
                (s, try b.addedBy(site: s.position, roads: roads).map { b.demand[$0].id })
            }
        }
        return EmergencyCoverage(options: options, population: population, fireAddresses: fireA, fireBuildings: fireB,
                                 shelterAddresses: shelterA, shelterBuildings: shelterB, communities: rows,
                                 fireSites: try sites(fireA, fireB, drive), shelterSites: try sites(shelterA, shelterB, walk))
    }

    /// Communities short of shelter places, largest shortfall first.
    public var communitiesShort: [CommunityShelterCapacity] {
        communities.filter { !$0.meetsRule }.sorted { ($0.shortfall, $1.code) > ($1.shortfall, $0.code) }
    }
}
