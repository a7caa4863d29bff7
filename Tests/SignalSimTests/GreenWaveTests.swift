import Testing
@testable import SignalSim

/// The green wave against exhaustive search: with whole-second greens and travel times the
/// exact optimum lies on the whole-second grid, so trying every offset must not beat it.
@Suite("Corridor green wave")
struct GreenWaveTests {
    /// Every whole-second offset of signals 2…n (signal 1 at 0): the best b + k·b̄.
    static func exhaustive(_ corridor: Corridor, cycle: Int, k: Double) throws -> Double {
        let n = corridor.signals.count
        var best = 0.0
        var offsets = [Double](repeating: 0, count: n)
        func visit(_ i: Int) throws {
            if i == n {
                let (b, bb) = try GreenWave.bandwidths(corridor, cycle: Double(cycle), offsets: offsets)
                best = max(best, b + k * bb)
                return
            }
            for o in 0..<cycle { offsets[i] = Double(o); try visit(i + 1) }
        }
        try visit(1)
        return best
    }

    /// A corridor whose travel times are whole seconds (10 m/s, lengths in tens of metres).
    static func corridor(lengths: [Double], greens: [(Double, Double)], shifts: [Double]? = nil) -> Corridor {
        Corridor(id: "T", signals: greens.enumerated().map { i, g in
            CorridorSignal(id: "S\(i + 1)", outboundGreen: g.0, inboundGreen: g.1, inboundGreenShift: shifts?[i] ?? 0)
        }, links: lengths.map { CorridorLink(length: $0, outboundSpeed: 10) })
    }

    @Test("exact optimum equals exhaustive search on small corridors", arguments: [
        ([170.0, 230.0], [(20.0, 20.0), (25.0, 18.0), (22.0, 26.0)], 1.0, [0.0, 0, 0]),
        ([170.0, 230.0], [(20.0, 20.0), (25.0, 18.0), (22.0, 26.0)], 0.5, [0.0, 5, 0]),
        ([120.0, 310.0, 90.0], [(18.0, 18.0), (24.0, 20.0), (16.0, 22.0), (30.0, 14.0)], 1.0, [0.0, 0, 7, 0]),
        ([260.0, 140.0, 200.0], [(25.0, 25.0), (21.0, 21.0), (28.0, 19.0), (23.0, 23.0)], 0.6, [0.0, 0, 0, 20]),
    ])
    func exactAgainstExhaustive(lengths: [Double], greens: [(Double, Double)], k: Double, shifts: [Double]) throws {
        let corridor = Self.corridor(lengths: lengths, greens: greens, shifts: shifts)
        let cycle = 50
        let wave = try GreenWave.optimize(corridor, cycle: Double(cycle), inboundWeight: k)
        let brute = try Self.exhaustive(corridor, cycle: cycle, k: k)
        #expect(abs(wave.objective - brute) < 1e-6, "optimum \(wave.objective) vs exhaustive \(brute)")
        // The offsets it returns give the bands it reports.
        let (b, bb) = try GreenWave.bandwidths(corridor, cycle: Double(cycle), offsets: wave.offsets)
        #expect(b >= wave.outboundBandwidth - 1e-6)
        #expect(bb >= wave.inboundBandwidth - 1e-6)
        // A wave with a band one way only says so.
        let twoWay = wave.outboundBandwidth > 1e-9 && wave.inboundBandwidth > 1e-9
        #expect((wave.progression == .twoWay) == twoWay && (wave.oneWayNote == nil) == twoWay)
        if !twoWay {
            #expect(wave.oneWayNote?.contains(wave.inboundBandwidth > 1e-9 ? "the inbound direction" : "the outbound direction") == true)
        }
    }

    @Test("one direction only (k = 0): the outbound band is the shortest green, offsets are travel times")
    func oneWay() throws {
        // The reference corridor: 4 signals 300 m apart at 13.89 m/s, C = 90 s.
        let corridor = Corridor(id: "REF", signals: (1...4).map { CorridorSignal(id: "S\($0)", outboundGreen: 40, inboundGreen: 40) },
                                links: (1...3).map { _ in CorridorLink(length: 300, outboundSpeed: 13.89) })
        let wave = try GreenWave.optimize(corridor, cycle: 90, inboundWeight: 0)
        #expect(abs(wave.outboundBandwidth - 40) < 1e-6)
        #expect(wave.progression == .outboundOnly && wave.oneWayNote?.contains("outbound direction") == true)
        for i in 1..<4 {
            let travel = Double(i) * 300 / 13.89
            let diff = abs(wave.offsets[i] - travel.truncatingRemainder(dividingBy: 90))
            #expect(min(diff, 90 - diff) < 1e-6)
        }
    }

    @Test("the reference corridor (4 signals, 300 m, 13.89 m/s, C = 90 s, k = 300/500): no worse than tlsCoordinator's offsets")
    func referenceCorridor() throws {
        let corridor = Corridor(id: "REF", signals: (1...4).map { CorridorSignal(id: "S\($0)", outboundGreen: 40, inboundGreen: 40) },
                                links: (1...3).map { _ in CorridorLink(length: 300, outboundSpeed: 13.89) })
        let k = 300.0 / 500
        let wave = try GreenWave.optimize(corridor, cycle: 90, inboundWeight: k)
        // SUMO's tlsCoordinator.py offsets on this corridor (shared/reference/signals.md §8).
        let (b, bb) = try GreenWave.bandwidths(corridor, cycle: 90, offsets: [0, 25.7, 51.4, 77.1])
        #expect(wave.objective >= b + k * bb - 1e-6)
        #expect(wave.outboundBandwidth >= b - 1e-6, "the major (outbound) direction keeps at least its band")
        let (ob, obb) = try GreenWave.bandwidths(corridor, cycle: 90, offsets: wave.offsets)
        #expect(abs(ob + k * obb - wave.objective) < 1e-6)
    }

    @Test("a corridor of one signal, a green longer than the cycle, a zero-length link: refused naming the field")
    func badCorridors() {
        let one = Corridor(id: "X", signals: [CorridorSignal(id: "A", outboundGreen: 30, inboundGreen: 30)], links: [])
        #expect { try GreenWave.optimize(one, cycle: 90) } throws: { ($0 as? SignalTimingError)?.field == "signals" }
        let long = Self.corridor(lengths: [100], greens: [(95, 30), (30, 30)])
        #expect { try GreenWave.optimize(long, cycle: 90) } throws: { ($0 as? SignalTimingError)?.field == "signals[0].outbound_green_s" }
        let zero = Self.corridor(lengths: [0], greens: [(30, 30), (30, 30)])
        #expect { try GreenWave.optimize(zero, cycle: 90) } throws: { ($0 as? SignalTimingError)?.field == "links[0].length_m" }
    }
}
