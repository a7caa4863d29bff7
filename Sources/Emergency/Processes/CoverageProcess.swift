import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `coverage`: the district against the emergency standards — fire stations' drive (default
/// 5 minutes, 建标152-2017) and shelters' walk (default 500 m) coverage of addresses and
/// buildings, shelter places against population per 社区 (≥ 15 % rule), a gap report and a
/// greedy suggestion of where one more station or shelter covers the most uncovered residents.
///
/// Population comes from `population_by_address` when the caller may read it (its owner or the
/// admin); otherwise it is estimated from in-use 户室 addresses × 2.62 persons (the 2020 census
/// mean household size) and `population_source` says so. Only aggregates of it are returned.
///
/// `maximumSnapMetres` (default 500): a station or shelter farther from every road covers
/// nothing (its `snap_metres` and `off_road_reason` say so), an address or building farther is
/// not covered (counted in `off_road`); output `snap` gives the limit.
public struct CoverageProcess: TypedProcess {
    public let id = "coverage"
    public let version = "1.0.0"
    public let title = "Emergency coverage against the standards"
    public let description = "Fire stations' drive-time and shelters' walking-distance coverage of addresses and buildings, shelter capacity against population per community (≥ 15 % rule), the gaps, and greedy suggestions for one more fire station or shelter."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "fire": ProcessParameter(title: "Fire stations", description: "Standard, per-station counts, addresses and buildings covered/uncovered, suggested sites.", schema: ["type": "object"]),
            "shelters": ProcessParameter(title: "Shelters", description: "Standard, addresses and buildings covered/uncovered on foot, suggested sites.", schema: ["type": "object"]),
            "communities": ProcessParameter(title: "Communities", description: "Per 社区: population, shelter capacity, required places, shortfall, walk-covered population.", schema: ["type": "array"]),
            "gaps": ProcessParameter(title: "Gap report", description: "Counts of uncovered addresses and buildings and the communities short of shelter places, largest shortfall first.", schema: ["type": "object"]),
            "population_source": ProcessParameter(title: "Population source", description: "Where the population figures come from.", schema: ["type": "string"]),
            "snap": ProcessParameter(title: "Snap distance", description: "maximum_metres: how far a station, shelter, address or building may lie from the roads.", schema: ["type": "object"]),
        ]
    }

    public struct Input: ProcessInput {
        var options = EmergencyCoverage.Options()
        var listLimit: Int

        public init(from r: ProcessInputReader) throws {
            options.fire = CoverageStandard(profile: .driving, limitSeconds: 60 * (try r.number(
                "fireMinutes", title: "Fire response time", description: "Drive time from a station in minutes (default 5).",
                in: 1e-3...60, default: 5)))
            options.shelter = .shelterWalk(metres: try r.number(
                "shelterWalkMetres", title: "Shelter walking distance", description: "Walk along the roads to a shelter in metres (default 500).",
                in: 1...10_000, default: 500))
            options.addressLevel = try r.choice(
                "addressLevel", title: "Address level", description: "Standard-address level counted as demand (default 门牌).",
                among: ["门牌", "楼栋", "单元", "户室"], default: "门牌") { "must be one of 门牌, 楼栋, 单元, 户室, got '\($0)'" }
            options.capacityShare = try r.number(
                "capacityShare", title: "Capacity share", description: "Share of a community's population its shelters must hold (default 0.15).",
                in: 1e-6...1, default: 0.15)
            options.suggestions = try r.integer(
                "suggestions", title: "Suggested sites", description: "How many new fire-station and shelter sites to suggest (0…5, default 1).",
                in: 0...5, default: 1)
            options.maximumSnapMetres = try r.maximumSnapMetres()
            listLimit = try r.integer(
                "listLimit", title: "List limit",
                description: "At most this many uncovered ids listed per gap (default 1000; counts are always complete).",
                in: 0...100_000, default: 1000)
        }
    }

    /// The demand (addresses, buildings), the facilities and the roads are needed; without
    /// `admin_divisions` the per-community shelter capacity is left out (a marked partial answer).
    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ["addresses", "buildings", "fire_stations", "shelters", "roads"], optionalReads: ["admin_divisions"])
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let (options, limit) = (input.options, input.listLimit)
        try await progress.report(0)
        let report = try await ProcessInputs.mapped {
            try await EmergencyCoverage.assess(store: store, by: caller, options: options)
        }
        try await progress.report(95)
        typealias In = ProcessInputs
        // Without a population source (a city built from OpenStreetMap) the figures are null, never 0.
        let known = report.population.source.isKnown
        func people(_ value: Double) -> JSONValue { known ? In.number(value, decimals: 10) : .null }
        func population(_ c: FacilityCoverage) -> JSONValue { people(c.coveredPopulation) }
        func part(_ c: FacilityCoverage) -> JSONValue {
            let uncovered = c.uncovered
            return [
                "total": .integer(Int64(c.demand.count)), "covered": .integer(Int64(c.covered.count)),
                "uncovered": .integer(Int64(uncovered.count)), "off_road": .integer(Int64(c.offRoadDemand.count)),
                "uncovered_ids": .array(uncovered.prefix(limit).map { .string(c.demand[$0].id) }),
                "population": people(c.totalPopulation), "population_covered": population(c),
            ]
        }
        func stations(_ c: FacilityCoverage, _ b: FacilityCoverage) -> JSONValue {
            let na = c.coveredByFacility, nb = b.coveredByFacility
            return .array(c.facilities.indices.map { i in
                ["id": .string(c.facilities[i].id), "name": c.facilities[i].name.map(JSONValue.string) ?? .null,
                 "addresses_covered": .integer(Int64(na[i])), "buildings_covered": .integer(Int64(nb[i])),
                 "snap_metres": In.number(c.facilitySnapMetres[i]),
                 "off_road_reason": c.offRoadFacilities.first { $0.resource == c.facilities[i] }.map { .string($0.reason) } ?? .null]
            })
        }
        func sites(_ list: [(site: SiteSuggestion, buildings: [String])]) -> JSONValue {
            .array(list.map { s in
                ["site": In.json(s.site.position), "added_addresses": .integer(Int64(s.site.addedIDs.count)),
                 "added_population": people(s.site.addedPopulation),
                 "added_buildings": .integer(Int64(s.buildings.count)),
                 "added_address_ids": .array(s.site.addedIDs.prefix(limit).map(JSONValue.string))]
            })
        }
        func row(_ c: CommunityShelterCapacity) -> JSONValue {
            ["code": .string(c.code), "name": .string(c.name), "population": people(c.population),
             "capacity": In.number(c.capacity), "required": In.number(c.required), "shortfall": In.number(c.shortfall),
             "ratio": In.number(c.ratio), "meets_rule": .bool(c.meetsRule), "shelters": .array(c.shelters.map(JSONValue.string)),
             "walk_covered_population": c.walkCoveredPopulation.map(people) ?? .null]
        }
        let short = report.communitiesShort
        return [
            "fire": ["minutes": .number(options.fire.limitSeconds / 60), "profile": "driving",
                     "addresses": part(report.fireAddresses), "buildings": part(report.fireBuildings),
                     "stations": stations(report.fireAddresses, report.fireBuildings), "suggested_sites": sites(report.fireSites)],
            "shelters": ["walk_metres": In.number(options.shelter.limitMetres), "profile": "walking",
                         "addresses": part(report.shelterAddresses), "buildings": part(report.shelterBuildings),
                         "shelters": stations(report.shelterAddresses, report.shelterBuildings),
                         "suggested_sites": sites(report.shelterSites)],
            "communities": .array(report.communities.map(row)),
            "gaps": ["fire_uncovered_addresses": .integer(Int64(report.fireAddresses.uncovered.count)),
                     "fire_uncovered_buildings": .integer(Int64(report.fireBuildings.uncovered.count)),
                     "shelter_uncovered_addresses": .integer(Int64(report.shelterAddresses.uncovered.count)),
                     "shelter_uncovered_buildings": .integer(Int64(report.shelterBuildings.uncovered.count)),
                     "communities_short": .array(short.map { ["code": .string($0.code), "name": .string($0.name), "shortfall": In.number($0.shortfall)] }),
                     "total_shortfall": In.number(short.reduce(0) { $0 + $1.shortfall })],
            "population_source": .string(report.population.source.description),
            "snap": ["maximum_metres": .number(options.maximumSnapMetres)],
        ]
    }
}
