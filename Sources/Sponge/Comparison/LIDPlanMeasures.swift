import Flood
import FloodSim
import Foundation
import GeoCore
import SWMMFormat
import TwinStore

/// What a LID plan achieves over the store's district, the measures `compare-scenarios` compares
/// plans by: the annual runoff volume capture rate over a rainfall record (the one
/// `SpongeEvaluation` path, `DistrictSponge.evaluate`), and the peak flow at each outfall and the
/// flooding volume of a design storm routed through the network (`DrainageRun`, dynamic wave, the
/// plan's LID facilities in the model), with what the plan costs.
public struct LIDPlanMeasures: Sendable, Encodable {
    public var summary: LIDPlanSummary
    /// The district's capture rate, 0…1.
    public var captureRate: Double
    /// Each drainage zone's capture rate, 0…1.
    public var zoneCaptureRates: [String: Double]
    /// The design storm's peak inflow at each outfall, m³/s.
    public var peakOutfallFlows: [String: Double]
    /// Flooding volume of the design storm (water lost at flooded nodes), m³.
    public var floodingCubicMetres: Double
    /// The routing's continuity error, percent (SWMM's Flow Routing Continuity).
    public var routingContinuityErrorPercent: Double
    public var warnings: [String]

    /// Measures `plan` (its facilities read from the layer; `LIDFacilityLayer.basePlan`: none).
    /// - Parameters:
    ///   - storm: the design storm routed for peak flows and flooding.
    ///   - progress: the capture run in the first half, the routing in the second.
    /// - Throws: `SpongeInputError` naming the plan or a facility; `SWMMInputError` for a model the
    ///   engine does not simulate (a model with LID controls, until they are simulated);
    ///   `HydraulicsError`; `ScenarioError` for a store without a network; `StoreError`.
    public static func measure(plan: String, record: DailyRainfall, storm: FloodScenario, store: any FeatureStore, caller: Caller,
                               field: String = "plan", progress: (@Sendable (WorkProgress) -> Void)? = nil) async throws -> LIDPlanMeasures {
        let facilities = try await LIDFacilityLayer.plan(plan, store: store, caller: caller, field: field)
        let capture = try await DistrictSponge.evaluate(plan: facilities, record: record, store: store, caller: caller) {
            progress?($0.within(0...0.5))
        }
        let model = try await DistrictSponge.model(store: store, caller: caller, plan: facilities, storm: storm)
        let routed = try DrainageRun.run(model) { progress?($0.within(0.5...1)) }
        var peaks: [String: Double] = [:]
        let outfalls = Set(model.outfalls.map(\.name))
        for (k, name) in routed.nodeNames.enumerated() where outfalls.contains(name) { peaks[name] = routed.nodes[k].maxTotalInflow }
        return LIDPlanMeasures(summary: LIDPlanSummary(plan: plan, facilities: facilities), captureRate: capture.model.captureRate,
                               zoneCaptureRates: Dictionary(capture.zones.map { ($0.name, $0.captureRate) }, uniquingKeysWith: { a, _ in a }),
                               peakOutfallFlows: peaks, floodingCubicMetres: routed.routing.flooding,
                               routingContinuityErrorPercent: routed.routing.errorPercent, warnings: capture.warnings)
    }
}
