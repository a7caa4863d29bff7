import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

/// `hydrant-coverage`: where the streets, and the buildings on them, lie beyond GB 50974-2014's
/// 150 m protection radius of a working hydrant along the streets, where hydrants stand more than
/// 120 m apart, and which roads wider than 60 m lack hydrants on one side (`HydrantCoverage`).
/// Output `summary` (counts, lengths and the share covered), `gaps` (uncovered stretches as
/// lon/lat LineStrings with `kind` protection or spacing, `length_m` and the `road`), and
/// `uncovered_buildings` (id and street metres to the nearest working hydrant, nearest first
/// missing, at most `maximumListed`), and `off_network_buildings`: buildings farther than 500 m
/// from every street (`HydrantCoverage.maximumBuildingOffset`, the limit `fire-pre-plan` refuses
/// by), listed apart with their straight metres to the nearest street and counted neither covered
/// nor uncovered.
public struct HydrantCoverageProcess: TypedProcess {
    public let id = "hydrant-coverage"
    public let version = "1.0.0"
    public let title = "Hydrant coverage (GB 50974-2014)"
    public let description = "Streets and buildings beyond 150 m of a working hydrant along the streets, hydrant spacing over 120 m, and roads wider than 60 m with hydrants on one side only, by GB 50974-2014 §7.2.4–7.2.5."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute]

    public init() {}

    public struct Input: ProcessInput {
        var spacingGaps: Bool
        var maximumListed: Int
        var conditions: ConditionsInput

        public init(from r: ProcessInputReader) throws {
            spacingGaps = try r.bool("spacingGaps", title: "Spacing gaps",
                                     description: "Also list the stretches farther than 60 m from a hydrant (spacing over 120 m), default true.",
                                     default: true)
            maximumListed = try r.integer("maximumListed", title: "Most listed",
                                          description: "Most gaps and uncovered buildings listed (1…10000); the summary counts them all.",
                                          in: 1...10_000, default: 1_000)
            conditions = try r.conditions(vehicleDefault: "fire_engine (its 0.50 m decides a hydrant under water)")
        }
    }

    public var outputs: [String: ProcessParameter] {
        ["summary": ProcessParameter(title: "Summary", description: "Hydrants counted and not, street metres covered, gaps, buildings uncovered, one-sided wide roads, the standard.",
                                     schema: ["type": "object"]),
         "conditions": ProcessParameter(title: "Conditions", description: "The state of the city (CityConditions): under the published flood run a hydrant whose street is deeper than a fire engine's 0.50 m is under water, not counted (hydrants_not_counted says so).",
                                        schema: ["type": "object"]),
         "gaps": ProcessParameter(title: "Gaps", description: "Uncovered stretches (lon/lat LineStrings) with kind, length_m and road.",
                                  schema: ProcessInputs.featureCollectionSchema),
         "uncovered_buildings": ProcessParameter(title: "Uncovered buildings", description: "Buildings beyond 150 m along the streets: id and street_metres, farthest first.",
                                                 schema: ["type": "array"]),
         "off_network_buildings": ProcessParameter(title: "Buildings off the street network",
                                                   description: "Buildings farther than 500 m from every street, counted neither covered nor uncovered: id and offset_metres to the nearest street, farthest first.",
                                                   schema: ["type": "array"])]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ["roads", "hydrants"])
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        try await ProcessInputs.mapped {
            let conditions = try await input.conditions.load(store: store, by: caller)
            let (coverage, roads) = try await HydrantCoverage.load(from: store, by: caller, conditions: conditions)
            let network = roads.graph.network
            var gaps: [JSONValue] = []
            func add(_ gap: StreetCoverage.Gap, kind: String) throws {
                guard gaps.count < input.maximumListed else { return }
                let line = LineString(try roads.storage(network.coordinates(ofPiece: gap.piece, from: gap.start, to: gap.end)))
                let road = network.lines[Int(network.pieces[gap.piece].line)].id
                gaps.append(["type": "Feature", "geometry": try ProcessInputs.json(.lineString(line)),
                             "properties": ["kind": .string(kind), "length_m": ProcessInputs.number(gap.length),
                                            "road": road.map { .string($0) } ?? .null]])
            }
            for gap in coverage.protection.gaps { try add(gap, kind: "protection") }
            if input.spacingGaps { for gap in coverage.spacing.gaps { try add(gap, kind: "spacing") } }
            let working = coverage.hydrants.filter(\.working).count - coverage.offStreet.count
            let notCounted = coverage.hydrants.filter { !$0.working }
            let p = coverage.protection
            let uncovered = coverage.uncoveredBuildings.sorted { ($0.metres, $0.id) > ($1.metres, $1.id) }
            let offNetwork = coverage.offNetworkBuildings.sorted { ($0.offset, $0.id) > ($1.offset, $1.id) }
            let limit = Int(HydrantCoverage.maximumBuildingOffset)
            let summary: JSONValue = [
                "standard": "GB 50974-2014 §7.2.4–7.2.5: protection radius 150 m along the streets, spacing ≤ 120 m, both sides of roads wider than 60 m",
                "working_hydrants": .integer(Int64(working)),
                "hydrants_not_counted": .array(notCounted.prefix(input.maximumListed).map { ["id": .string($0.id), "reason": .string($0.reason ?? "")] }
                                                + coverage.offStreet.prefix(input.maximumListed).map { ["id": .string($0), "reason": "farther than 50 m from every street"] }),
                "street_metres": ProcessInputs.number(p.totalMetres),
                "covered_metres": ProcessInputs.number(p.coveredMetres),
                "covered_share": ProcessInputs.number(p.totalMetres > 0 ? p.coveredMetres / p.totalMetres : 0),
                "protection_gaps": .integer(Int64(p.gaps.count)),
                "protection_gap_metres": ProcessInputs.number(p.totalMetres - p.coveredMetres),
                "spacing_gaps": .integer(Int64(coverage.spacing.gaps.count)),
                "spacing_gap_metres": ProcessInputs.number(coverage.spacing.totalMetres - coverage.spacing.coveredMetres),
                "buildings_checked": .integer(Int64(coverage.buildingsChecked)),
                "buildings_covered": .integer(Int64(coverage.buildingsChecked - uncovered.count - offNetwork.count)),
                "buildings_uncovered": .integer(Int64(uncovered.count)),
                "buildings_off_network": .integer(Int64(offNetwork.count)),
                "off_network_rule": .string("a building farther than \(limit) m from every street is off the street network: listed apart, counted neither covered nor uncovered"),
                "one_sided_wide_roads": .array(coverage.oneSidedWideRoads.map { ["road": .string($0.road), "side": .string($0.side)] }),
                "gaps_listed": .integer(Int64(gaps.count)),
            ]
            return ["summary": summary, "conditions": conditions.json(), "gaps": ["type": "FeatureCollection", "features": .array(gaps)],
                    "uncovered_buildings": .array(uncovered.prefix(input.maximumListed).map {
                        ["id": .string($0.id), "street_metres": ProcessInputs.number($0.metres)]
                    }),
                    "off_network_buildings": .array(offNetwork.prefix(input.maximumListed).map {
                        ["id": .string($0.id), "offset_metres": ProcessInputs.number($0.offset)]
                    })]
        }
    }
}
