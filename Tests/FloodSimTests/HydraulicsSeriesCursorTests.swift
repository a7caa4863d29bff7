@testable import FloodSim
import Foundation
import Testing

/// The routing reads each inflow series from the interval it used at the previous step
/// (`SeriesTable`) instead of searching it again; on strictly increasing times that must give
/// exactly the searched value.
@Suite("Inflow series read from the last interval")
struct HydraulicsSeriesCursorTests {
    /// Strictly increasing times with uneven gaps (some shorter than a routing step, some longer).
    static func series(holdsLastValue: Bool) -> TimeSeries {
        var times: [Double] = [], values: [Double] = []
        var t = 30.0
        for k in 0..<200 {
            times.append(t)
            values.append(sin(Double(k) * 0.37) * 2 + Double(k % 7) * 0.1)
            t += [0.4, 7, 60, 300, 13.25][k % 5]
        }
        return TimeSeries(times: times, values: values, holdsLastValue: holdsLastValue)
    }

    @Test("walking forward gives the searched value at every time, breakpoints and both ends included",
          arguments: [false, true])
    func sameAsSearch(holdsLastValue: Bool) {
        let s = Self.series(holdsLastValue: holdsLastValue)
        #expect(s.isStrictlyIncreasing)
        var probes = stride(from: 0.0, through: s.times.last! + 100, by: 2.5).map { $0 }
        probes += s.times
        probes.sort()
        for step in [1, 3, 17] {
            // Entry 1 between two others, so its offsets into the shared buffers are not 0.
            var table = SeriesTable([Self.series(holdsLastValue: !holdsLastValue), s, nil])
            for t in stride(from: 0, to: probes.count, by: step).map({ probes[$0] }) {
                let walked = table.value(1, at: t)
                #expect(walked == s.value(at: t), "t = \(t) s, every \(step) probe(s)")
            }
            #expect(table.cursor[1] > s.times.count / 2, "the cursor walked on (every \(step) probe(s))")
        }
    }

    @Test("a cursor past the time asked for falls back to the search")
    func staleCursor() {
        let s = Self.series(holdsLastValue: false)
        var table = SeriesTable([s])
        _ = table.value(0, at: s.times[150] + 0.1)   // the gap after it is 0.4 s
        #expect(table.cursor[0] == 150)
        let t = s.times[20] + 1
        #expect(table.value(0, at: t) == s.value(at: t))
        #expect(table.cursor[0] == 150)
    }

    @Test("an entry without a series reads nil; an empty series 0")
    func missingAndEmpty() {
        var table = SeriesTable([nil, TimeSeries(times: [], values: [])])
        #expect(table.value(0, at: 10) == nil)
        #expect(table.value(1, at: 10) == 0)
    }

    @Test("repeated or falling times are not strictly increasing, so the routing searches them")
    func notIncreasing() {
        #expect(!TimeSeries(times: [0, 60, 60, 120], values: [0, 1, 2, 3]).isStrictlyIncreasing)
        #expect(!TimeSeries(times: [0, 120, 60], values: [0, 1, 2]).isStrictlyIncreasing)
        #expect(TimeSeries(times: [5], values: [1]).isStrictlyIncreasing)
        let repeated = TimeSeries(times: [0, 60, 60, 120], values: [0, 1, 2, 3])
        var table = SeriesTable([repeated])
        #expect(table.cursor[0] == -1)
        for t in [30.0, 60, 90] { #expect(table.value(0, at: t) == repeated.value(at: t)) }
    }
}
