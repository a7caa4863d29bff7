import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// The 1D–2D manhole exchange (flood.md §4.6; Rubinato et al. 2017 as in itzi's drainage.py).
@Suite("Manhole exchange between pipes and street")
struct ManholeExchangeTests {
    let g = 9.80665

    @Test("heads equal and a dry street over a low node exchange nothing")
    func noExchange() throws {
        let manhole = try ManholeExchange(area: 1)
        #expect(manhole.formulaDischarge(nodeHead: 10, groundLevel: 10, waterLevel: 10) == (0, .none))
        #expect(manhole.formulaDischarge(nodeHead: 9, groundLevel: 10, waterLevel: 10).discharge == 0)
    }

    @Test("a surcharging node spills through the orifice, positive onto the surface")
    func surchargeOrifice() throws {
        let manhole = try ManholeExchange(area: 0.5)
        let (q, regime) = manhole.formulaDischarge(nodeHead: 10.8, groundLevel: 10, waterLevel: 10.3)
        #expect(regime == .orifice)
        #expect(abs(q - 0.167 * 0.5 * (2 * g * 0.5).squareRoot()) < 1e-12)
    }

    @Test("street water drains over a free weir when the node is below ground")
    func freeWeir() throws {
        let manhole = try ManholeExchange(area: 1)
        let w = 2 * (Double.pi).squareRoot()
        let (q, regime) = manhole.formulaDischarge(nodeHead: 8, groundLevel: 10, waterLevel: 10.1)
        #expect(regime == .freeWeir)
        #expect(abs(q + 2.0 / 3.0 * 0.54 * w * pow(0.1, 1.5) * (2 * g).squareRoot()) < 1e-12)
    }

    @Test("submerged weir for shallow water over a node above ground, orifice when deep")
    func submergedWeirThenOrifice() throws {
        let manhole = try ManholeExchange(area: 1)
        let ratio = manhole.area / manhole.weirWidth  // ≈ 0.28 m
        let shallow = manhole.formulaDischarge(nodeHead: 10.05, groundLevel: 10, waterLevel: 10.1)
        #expect(shallow.regime == .submergedWeir)
        #expect(abs(shallow.discharge + 0.056 * manhole.weirWidth * 0.1 * (2 * g * 0.1).squareRoot()) < 1e-12)
        let deep = manhole.formulaDischarge(nodeHead: 10.2, groundLevel: 10, waterLevel: 10 + ratio + 0.1)
        #expect(deep.regime == .orifice)
        #expect(deep.discharge < 0)
    }

    @Test("under-relaxation, the empty-cell limit and reversal damping")
    func stepControls() throws {
        let manhole = try ManholeExchange(area: 1)
        // Relaxation: 0.8 of the new against 0.2 of the previous.
        let spill = manhole.flow(nodeHead: 11, groundLevel: 10, surfaceDepth: 0, previousDischarge: 0.1,
                                 timeStep: 1, cellArea: 25)
        #expect(abs(spill.discharge - (0.8 * spill.rawDischarge + 0.2 * 0.1)) < 1e-12)
        // A 1 cm film on a 25 m² cell over 1 s can give at most 0.25 m³/s.
        let drain = manhole.flow(nodeHead: 5, groundLevel: 10, surfaceDepth: 0.01, previousDischarge: -10,
                                 timeStep: 1, cellArea: 25)
        #expect(drain.discharge == -0.25)
        // From spilling to draining: the new direction is halved.
        let flip = manhole.flow(nodeHead: 5, groundLevel: 10, surfaceDepth: 0.2, previousDischarge: 0.01,
                                timeStep: 1, cellArea: 25)
        #expect(abs(flip.discharge - 0.5 * (0.8 * flip.rawDischarge + 0.2 * 0.01)) < 1e-12)
    }

    @Test("a manhole needs a positive area")
    func badArea() {
        #expect(throws: FloodInputError.self) { try ManholeExchange(area: 0) }
        #expect(throws: FloodInputError.self) { try ManholeExchange(area: .nan) }
    }
}
