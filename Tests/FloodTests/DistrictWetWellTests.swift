@testable import Flood
import FloodSim
import Foundation
import GeoCore
import SWMMFormat
import Testing
import TwinStore

/// The sample district's pumping stations draw from wet wells (issue 53 §3): the drainage model
/// makes each station's inlet manhole a storage unit of the station's `wet_well_area_m2`, over the
/// manhole's own depth, still linked to the street in the coupled run; and the model routes with
/// the Preissmann slot (`SURCHARGE_METHOD SLOT`), with which SWMM 5.2.4 converges on it (issue 53 §3).
@Suite("The district's pumping stations' wet wells", .serialized)
struct DistrictWetWellTests {
    static func model(surchargeMethod: DistrictDrainageModel.SurchargeMethod = DistrictDrainageModel.districtSurchargeMethod) async throws
        -> (DistrictDrainageModel, FloodDistrictLayers, SpatiaLiteStore) {
        let (store, _) = try await FloodScenarioDistrictTests.districtStore()
        let scenario = try FloodScenario.load(contentsOf: FloodScenarioDistrictTests.scenarios.appendingPathComponent("p50-waterlogging.json"))
        let layers = try await FloodDistrictLayers.read(from: store, by: .admin)
        let storm = try await FloodScenarioRun.rainfall(scenario, store: store, caller: .admin, stormCatalog: FloodScenarioDistrictTests.catalog,
                                                         durationScale: 0.03).storm
        return (try DistrictDrainageModel(layers: layers, scenario: scenario, storm: storm, surchargeMethod: surchargeMethod), layers, store)
    }

    @Test("each pumping station's inlet is a 200 m² storage unit over its manhole's depth, the pump drawing from it")
    func inletsAreWetWells() async throws {
        let (model, layers, _) = try await Self.model()
        let pumps = layers["drainage_pumps"]
        #expect(pumps.count == 2, "the district has 邾城泵站 and 东港泵站")
        let manholes = Dictionary(uniqueKeysWithValues: layers["drainage_manholes"].map { ($0.idText, $0) })
        for pump in pumps {
            let inlet = try #require(pump.text("inlet_node"))
            let manhole = try #require(manholes[inlet], "pump \(pump.idText)'s inlet \(inlet) is a manhole of the layer")
            #expect(pump.number("wet_well_area_m2") == 200)
            #expect(!model.swmm.junctions.contains { $0.name == inlet }, "\(inlet) is no longer a junction")
            let well = try #require(model.swmm.storage.first { $0.name == inlet }, "\(inlet) is a storage unit")
            let invert = try #require(manhole.number("invert_elevation_m")), rim = try #require(manhole.number("rim_elevation_m"))
            #expect(abs(well.elevation - invert) < 1e-9)
            #expect(abs(well.maxDepth - (rim - invert)) < 1e-9)
            #expect(well.functionalArea(depth: 0) == 200 && well.functionalArea(depth: well.maxDepth) == 200)
            #expect(model.swmm.pumps.first { $0.name == pump.idText }?.fromNode == inlet)
            #expect(model.rimElevation[inlet] == rim)
        }
        // Every other manhole stays a junction; the plaza's tank and the wet wells are the storage units.
        #expect(model.swmm.junctions.count + pumps.count == manholes.count)
        #expect(model.swmm.storage.count == layers["drainage_storage"].count + pumps.count)
    }

    @Test("the coupled run links the wet wells to the street as it links the manholes, and not the tanks")
    func wetWellsSpillOntoTheStreet() async throws {
        let (model, layers, store) = try await Self.model()
        let network = try model.swmm.hydraulicNetwork()
        let dem = try await ManagedDEM.read(ManagedRaster.defaultDEM, from: store, crs: layers.metricCRS)
        let surface = try DistrictSurface.build(dem: dem, factor: 10, layers: layers, stage: nil)
        let linked = Set(surface.links(for: model, network: network).map { network.nodes[$0.node].id })
        for pump in layers["drainage_pumps"] {
            let inlet = try #require(pump.text("inlet_node"))
            #expect(linked.contains(inlet), "wet well \(inlet) is not linked to the street")
        }
        for tank in layers["drainage_storage"] { #expect(!linked.contains(tank.idText), "tank \(tank.idText) is linked to the street") }
    }

    @Test("the district's model routes with the slot; SURCHARGE_METHOD is written only when it is not EXTRAN, SWMM's default")
    func surchargeMethodSwitch() async throws {
        let (district, _, _) = try await Self.model()
        #expect(district.swmm.options.filter { $0.key == "SURCHARGE_METHOD" }.map(\.value) == ["SLOT"],
                "the district's model routes with the Preissmann slot (SWMM 5.2.4: 2.76 % of steps not converging, EXTRAN 17.23 %)")
        let (extran, _, _) = try await Self.model(surchargeMethod: .extran)
        #expect(!extran.swmm.options.contains { $0.key == "SURCHARGE_METHOD" })
        let (slot, _, _) = try await Self.model(surchargeMethod: .slot)
        #expect(slot.swmm.options.filter { $0.key == "SURCHARGE_METHOD" }.map(\.value) == ["SLOT"])
        #expect(slot.swmm.inpText().contains("SURCHARGE_METHOD"))
    }
}
