import Foundation
import Scenarios
import Testing

/// A scenario's base instant is kept as RFC 3339 text to the millisecond; the text must name the
/// millisecond the instant holds, never the one before it (a base a millisecond early misses the
/// edit made just before the scenario: a flaky "base after edit" seen under load).
@Suite("Scenario instants as text")
struct ScenarioInstantTests {
    @Test("every millisecond of a second is written as itself and read back at or after the instant")
    func millisecondsRoundTrip() throws {
        for k in 0..<1000 {
            let date = Date(timeIntervalSince1970: (1_790_000_000_000 + Double(k)) / 1000)
            let text = Scenario.instantText(date)
            if k > 0 { #expect(text.hasSuffix(String(format: ".%03dZ", k)), "\(k): \(text)") }
            let back = try #require(Scenario.instant(text))
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005, "\(k): \(text)")
        }
    }
}
