@testable import FloodSim
import Foundation
import Testing

/// The routing reads each inflow series from the interval it used at the previous step instead of
/// searching it again; on strictly increasing times that must give exactly the searched value.
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
            var cursor = 0
            for t in stride(from: 0, to: probes.count, by: step).map({ probes[$0] }) {
                let walked = s.value(at: t, cursor: &cursor)
                #expect(walked == s.value(at: t), "t = \(t) s, every \(step) probe(s)")
            }
            #expect(cursor > s.times.count / 2, "the cursor walked on (every \(step) probe(s))")
        }
    }

    @Test("a cursor past the time asked for falls back to the search")
    func staleCursor() {
        let s = Self.series(holdsLastValue: false)
        var cursor = 150
        let t = s.times[20] + 1
        #expect(s.value(at: t, cursor: &cursor) == s.value(at: t))
        #expect(cursor == 150)
    }

    @Test("repeated or falling times are not strictly increasing, so the routing searches them")
    func notIncreasing() {
        #expect(!TimeSeries(times: [0, 60, 60, 120], values: [0, 1, 2, 3]).isStrictlyIncreasing)
        #expect(!TimeSeries(times: [0, 120, 60], values: [0, 1, 2]).isStrictlyIncreasing)
        #expect(TimeSeries(times: [5], values: [1]).isStrictlyIncreasing)
    }
}
