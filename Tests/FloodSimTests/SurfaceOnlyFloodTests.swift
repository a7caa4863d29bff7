import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// A flood run on the street surface alone, for a city without a drainage model (issue 52 §8): the
/// coupled loop with an empty network routes nothing and the surface takes all the rain.
@Suite("Surface-only flood")
struct SurfaceOnlyFloodTests {
    @Test("rain on a walled plane with no network: every drop stays on the surface and the balance closes")
    func rainOnly() throws {
        let empty = HydraulicNetwork(nodes: [], links: [], inflows: [],
                                     options: RoutingOptions(method: .dynamicWave, duration: 1800, routingStep: 5))
        let rain = try SurfaceRainfall(startTimes: [0, 1200], intensities: [60, 0])
        let run = try CoupledFlood(network: empty, surface: CoupledFloodTests.plane(), gridRainfall: rain, links: [], duration: 1800,
                                   settings: .init(surface: SurfaceFlowSettings(threads: 1)))
        let result = run.run()
        // 60 mm/h for 20 minutes on 80 m × 6 m: 9.6 m³, all on the closed plane at the end.
        #expect(abs(result.balance.gridRain - 9.6) < 0.01, "\(result.balance)")
        #expect(result.balance.pipeToSurface == 0 && result.balance.outfallOutflow == 0)
        #expect(abs(result.balance.errorPercent) < 0.5, "\(result.balance)")
        #expect(result.surface.maxDepth.values.max()! > 0.01)
        #expect(result.routing.steps == 0 || result.routing.continuity.errorPercent.isFinite)
    }
}
