import Flood
import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import SWMMFormat
import TwinStore

/// The sponge city over a store's district: the drainage network as the flood runs build it
/// (`FloodScenarioRun.drainageModel`: the drainage layers and subcatchments as one SWMM model)
/// with a plan's LID facilities from the `lid_facilities` layer written into it, run by the one
/// `SpongeEvaluation` path.
public enum DistrictSponge {
    /// The layers a district run reads: the drainage network the flood runs read (storage and pumps
    /// optional) and, for a plan, its facilities.
    public static let networkLayers = ["drainage_manholes", "drainage_outfalls", "drainage_pipes", "subcatchments"]
    public static let optionalNetworkLayers = ["drainage_storage", "drainage_pumps"]

    public static func reads(plans: [String]) -> [String] {
        networkLayers + (plans.contains { $0 != LIDFacilityLayer.basePlan } ? [LIDFacilityLayer.id] : [])
    }

    /// The design storm the drainage model is built with (its rain gauges read a record instead in
    /// an evaluation): the district's 2-year, 2-hour storm by the city's formula.
    public static func designStorm(returnPeriod: Double = 2, minutes: Double = 120) throws -> FloodScenario {
        try FloodScenario(id: "sponge-\(Int(returnPeriod))a-\(Int(minutes))min", title: "sponge-city design storm", returnPeriod: returnPeriod, duration: minutes)
    }

    /// The store's drainage model with `plan`'s facilities written in (none: the base).
    /// - Throws: `SpongeInputError` naming the facility and field for a plan the model cannot take;
    ///   `ScenarioError` for a store without a drainage network; `StoreError`.
    public static func model(store: any FeatureStore, caller: Caller, plan: [LIDFacilityLayer.PlannedFacility],
                             storm: FloodScenario? = nil, stormCatalog: URL = ProjectFiles.url("Models/storm-intensity.json")) async throws -> SWMMModel {
        let base = try await FloodScenarioRun.drainageModel(try storm ?? designStorm(), store: store, caller: caller, stormCatalog: stormCatalog)
        guard !base.subcatchments.isEmpty else {
            throw SpongeInputError("subcatchments", "the store's district has no subcatchment: there is no land to capture rain")
        }
        return try base.withLIDFacilities(plan.map(\.facility))
    }

    /// A plan's capture over `record`: the store's model with the plan's facilities, evaluated with
    /// its LID controls (the base plan has none).
    public static func evaluate(plan: [LIDFacilityLayer.PlannedFacility], record: DailyRainfall, store: any FeatureStore, caller: Caller,
                                progress: ((WorkProgress) -> Void)? = nil) async throws -> SpongeEvaluation {
        let model = try await model(store: store, caller: caller, plan: plan)
        return try SpongeEvaluation(model: model, record: record, withLID: !plan.isEmpty, progress: progress)
    }
}

/// What a plan holds and costs.
public struct LIDPlanSummary: Sendable, Encodable {
    public var plan: String
    public var facilities: Int
    public var areaSquareMetres: Double
    /// Σ total cost, 元.
    public var totalCostYuan: Double
    /// Facilities with neither a total nor a unit cost (counted as 0 元).
    public var uncostedFacilities: [String]
    /// Facilities by layer type name.
    public var byType: [String: Int]

    public init(plan: String, facilities list: [LIDFacilityLayer.PlannedFacility]) {
        self.plan = plan
        facilities = list.count
        areaSquareMetres = list.reduce(0) { $0 + $1.areaSquareMetres }
        totalCostYuan = list.reduce(0) { $0 + $1.totalCostYuan }
        uncostedFacilities = list.filter { !$0.costed }.map(\.facility.id)
        byType = Dictionary(list.map { (LIDFacilityLayer.typeNames[$0.facility.kind] ?? $0.facility.kind.rawValue, 1) }, uniquingKeysWith: +)
    }
}
