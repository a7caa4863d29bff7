@testable import FloodSim
import Foundation
@testable import SWMMFormat
import Testing

@Suite("Runoff: nonlinear reservoirs and infiltration (SWMM 5.2)")
struct RunoffTests {
    @Test("an empty catchment set produces no runoff and a zero continuity error")
    func empty() {
        let r = RunoffSimulation(subcatchments: [], gauges: [], duration: 3600).run()
        #expect(r.continuity.rainfall == 0 && r.continuity.errorPercent == 0)
    }

    @Test("steady rain on an impervious plane reaches d = d_s + (i*/α)^{3/5}")
    func steadyState() {
        let alpha = 0.5, ds = 0.002, i = 50.0 / 1000 / 3600
        var r = NonlinearReservoir(alpha: alpha, depressionStorage: ds, roughness: 0.015)
        for _ in 0..<2000 { _ = r.advance(netInflow: i, dt: 60) }
        let exact = ds + pow(i / alpha, 0.6)
        #expect(abs(r.depth - exact) / exact < 1e-4)
        #expect(abs(r.runoffRate - i) / i < 1e-3)
        #expect(abs(r.steadyDepth(netInflow: i) - exact) < 1e-15)
    }

    @Test("Horton under ample supply infiltrates its cumulative curve F(t)")
    func hortonCumulative() {
        let f0 = 3.0 / 1000 / 3600 * 25.4, fmin = 0.5 / 1000 / 3600 * 25.4, kd = 4.0 / 3600
        var s = InfiltrationState(.horton(maxRate: f0, minRate: fmin, decay: kd, regeneration: 1e-5, maxVolume: 0))
        var total = 0.0
        for _ in 0..<24 { total += s.rate(step: 300, supply: 1, depth: 0) * 300 }
        let exact = InfiltrationState.hortonCumulative(maxRate: f0, minRate: fmin, decay: kd, time: 7200)
        #expect(abs(total - exact) / exact < 1e-9)
        // With less water than capacity, all of it infiltrates.
        var t = InfiltrationState(.horton(maxRate: f0, minRate: fmin, decay: kd, regeneration: 1e-5, maxVolume: 0))
        #expect(abs(t.rate(step: 300, supply: fmin / 2, depth: 0) - fmin / 2) < 1e-15)
    }

    @Test("Green-Ampt: ponded infiltration satisfies the implicit Green-Ampt equation")
    func greenAmpt() {
        // Supply far above capacity from the start: the surface saturates at once (F_s ≈ 0) and
        // F(t) − c₁ ln(1 + F/c₁) = K_s·t with c₁ = ψ·IMD.
        let psi = 0.1, ks = 1e-6, imd = 0.3
        var s = InfiltrationState(.greenAmpt(suction: psi, conductivity: ks, initialDeficit: imd, modified: true))
        var total = 0.0
        for _ in 0..<120 { total += s.rate(step: 60, supply: 1e-3, depth: 0) * 60 }
        let c1 = psi * imd
        let lhs = total - c1 * log(1 + total / c1)
        let ksT = ks * 7200
        #expect(abs(lhs - ksT) / ksT < 0.02, "F = \(total), F − c₁ln(1+F/c₁) = \(lhs), Ks·t = \(ksT)")
        #expect(total > ks * 7200)   // capillary suction adds to gravity drainage
    }

    @Test("Example1 runoff continuity matches SWMM 5.2.4: rain 2.650 in, infiltration 1.580 in, runoff 1.064 in (1 %)")
    func example1Continuity() throws {
        let model = try SWMMFixtures.model("Example1")
        let sim = try model.runoffSimulation()
        let r = sim.run()
        let area = sim.subcatchments.reduce(0) { $0 + $1.area }
        let inches = { (v: Double) in v / area / 0.0254 }
        #expect(abs(inches(r.continuity.rainfall) - 2.650) / 2.650 < 0.01, "rain \(inches(r.continuity.rainfall))")
        #expect(abs(inches(r.continuity.infiltration) - 1.580) / 1.580 < 0.01, "infiltration \(inches(r.continuity.infiltration))")
        #expect(abs(inches(r.continuity.runoff) - 1.064) / 1.064 < 0.01, "runoff \(inches(r.continuity.runoff))")
        #expect(abs(r.continuity.errorPercent) < 0.5, "error \(r.continuity.errorPercent) %")
    }
}
