import FloodSim
import Foundation
import SWMMFormat
import Testing

@Suite("Design and observed rainfall")
struct RainfallDesignStormTests {
    static let suzhou = StormIntensityFormula(a1: 17.969, c: 1.24, b: 18.415, n: 0.785)

    @Test("an empty storm has no intervals")
    func empty() {
        let h = ChicagoStorm(formula: Self.suzhou, returnPeriod: 5, duration: 0, peakRatio: 0.43).hyetograph(step: 5)
        #expect(h.starts.isEmpty && h.totalDepth == 0 && h.intensity(at: 0) == 0)
    }

    @Test("Chicago check case (flood.md §2.4): 94.90 mm in 180 min, peak 14.09 mm in interval 16")
    func chicago() throws {
        let storm = ChicagoStorm(formula: Self.suzhou, returnPeriod: 5, duration: 180, peakRatio: 0.43)
        let h = storm.hyetograph(step: 5)
        #expect(h.depths.count == 36)
        #expect(abs(h.totalDepth - 94.90) < 0.005)
        #expect(abs(h.totalDepth - storm.windowDepth(minutes: 180)) < 1e-9)
        let peak = try #require(h.depths.max())
        #expect(abs(peak - 14.09) < 0.005)
        #expect(h.depths.firstIndex(of: peak) == 15)   // interval 16, 75–80 min
        #expect(abs(Self.suzhou.intensity(returnPeriod: 5, duration: 10) - 404.8) < 0.1)
        #expect(abs(h.intensity(at: 77 * 60) - peak * 12) < 1e-9)
    }

    @Test("a gauge CSV in mm per interval or mm/h gives the same hyetograph")
    func csv() throws {
        let depth = try RainGaugeRecord.hyetograph(csv: "time,mm\n0:00,1\n0:05,2\n0:10,0.5\n")
        let rate = try RainGaugeRecord.hyetograph(csv: "time,mm/h\n0,12\n5,24\n10,6\n")
        #expect(depth == rate)
        #expect(abs(depth.totalDepth - 3.5) < 1e-12)
        #expect(throws: SWMMInputError.self) { try RainGaugeRecord.hyetograph(csv: "time,mm\n0:00,1\n0:05,x\n") }
        do { _ = try RainGaugeRecord.hyetograph(csv: "time,mm\n0:00,1\n0:05,x\n") } catch let e as SWMMInputError {
            #expect(e.line == 3 && e.field == "value")
        }
    }

    @Test("a subcatchment takes its named gauge, otherwise the nearest one (Thiessen)")
    func thiessen() {
        let h = Hyetograph(depthsMillimetres: [1], interval: 300)
        let field = RainfallField(gauges: [.init(name: "A", position: .init(x: 0, y: 0), hyetograph: h),
                                           .init(name: "B", position: .init(x: 100, y: 0), hyetograph: h)])
        #expect(field.gaugeIndex(named: "A", centroid: .init(x: 90, y: 0)) == 0)
        #expect(field.gaugeIndex(named: nil, centroid: .init(x: 90, y: 0)) == 1)
        #expect(field.gaugeIndex(named: "Z", centroid: .init(x: 10, y: 5)) == 0)
        #expect(RainfallField(gauges: []).gaugeIndex(named: nil, centroid: nil) == nil)
    }
}
