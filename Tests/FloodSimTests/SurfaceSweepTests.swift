import CSurfaceSweeps
import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// The surface kernel's row sweeps are compiled three times (CSurfaceSweeps): for AVX2, for the
/// package's baseline and as the scalar twin that handles the last cells of each row. A run picks
/// AVX2 where the CPU has it, so these check that the choice never shows in the results: every
/// variant this machine can run gives the same bits as the baseline a machine without AVX2 runs.
@Suite("Surface flow: the sweeps' variants agree bit for bit")
struct SurfaceSweepTests {
    static let variants: [CTSurfaceISA] = [.scalar, .baseline, .avx2].filter { ct_surface_isa_available($0) != 0 }

    @Test("a run picks AVX2 exactly where the CPU has it")
    func dispatch() throws {
        let avx2 = ct_surface_isa_available(.avx2) != 0
        #expect(ct_surface_best_isa() == (avx2 ? .avx2 : .baseline))
        let (flow, _) = try SurfaceConservationTests.busyScenario(threads: 1)
        #expect(flow.kernel.isa == ct_surface_best_isa())
    }

    /// Every cell's depth as the kernel holds it (Double), bit for bit.
    static func depthBits(_ flow: SurfaceFlow) -> [UInt64] {
        UnsafeBufferPointer(start: flow.kernel.h, count: flow.domain.width * flow.domain.height).map(\.bitPattern)
    }

    /// The busy scenario (rain pattern, losses, buildings, an open edge, inflow, a stage, sources)
    /// on a 60-cell-wide grid: eight-lane loops over most of each row and the scalar loop over the
    /// last 3 x faces and 4 y faces and cells, on 1 and 2 threads.
    @Test("every variant gives the baseline's depths, maxima and times", arguments: [1, 2])
    func variantsAgree(threads: Int) throws {
        let (baselineFlow, baseline) = try SurfaceConservationTests.busyScenario(threads: threads, isa: .baseline)
        #expect(baseline.steps > 100)
        #expect(baseline.maxDepth.values.contains { $0 > 0.1 })
        for isa in Self.variants where isa != .baseline {
            let (otherFlow, other) = try SurfaceConservationTests.busyScenario(threads: threads, isa: isa)
            #expect(other.steps == baseline.steps, "\(isa)")
            #expect(Self.depthBits(otherFlow) == Self.depthBits(baselineFlow), "\(isa)")
            #expect(other.maxDepth.values.map(\.bitPattern) == baseline.maxDepth.values.map(\.bitPattern), "\(isa)")
            #expect(other.timeOfMaxDepth.values.map(\.bitPattern) == baseline.timeOfMaxDepth.values.map(\.bitPattern), "\(isa)")
            // The vector variants also sum the losses lane by lane alike; the scalar twin sums
            // them in cell order, which differs in the last bits.
            if isa != .scalar { #expect(other.volumeBalance == baseline.volumeBalance, "\(isa)") }
        }
    }
}
