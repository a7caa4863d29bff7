import CityModel
import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import Scenarios
@testable import Signals

/// Issue 58 §8: the README's `import …/traffic_counts.csv --layer traffic_counts --mode append` (one
/// 15-minute interval of SI-009 on 2026-06-18) must not replace the sample district's whole day of counts.
@Suite("Signal plans from a partial day of counts")
struct SignalPartialDayTests {
    @Test("one appended interval leaves SI-009's time-of-day plans those of the whole day, SC-001 at 17:00-18:00 still works, and a warning names 2026-06-18 as a partial day with its coverage")
    func appendedIntervalKeepsTheWholeDay() async throws {
        let store = try await SignalStoreTests.districtStore("signals-append", layers: ["signalized_intersections", "traffic_counts", "signal_plans", "signal_corridors"])
        let before = try await SignalStoreTests.run("signal-timing", ["intersections": ["SI-009"]], store: store)
        let periods = { (answer: JSONValue) in (answer["plans"]?.arrayValue ?? []).map { p in ["name", "start", "end"].compactMap { p["period"]?[$0]?.stringValue }.joined(separator: " ") } }
        #expect(periods(before).count > 1, "\(before["plans"] ?? .null)")

        // The README's import, through the importer the command runs.
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL
        let catalog = try LayerCatalog.load(directory: repository.appendingPathComponent("Layers"))
        let layer = try #require(catalog["traffic_counts"])
        var source = try CSVSource(file: repository.appendingPathComponent("Tests/CityModelTests/Fixtures/import/traffic_counts.csv"), geometry: .attributesOnly)
        let summary = try await LayerImport.run(&source, into: layer, store: store, mode: .append)
        #expect(summary.count == 4)

        let after = try await SignalStoreTests.run("signal-timing", ["intersections": ["SI-009"]], store: store)
        let plans = try #require(after["plans"]?.arrayValue)
        #expect(periods(after) == periods(before), "\(plans.map { $0["period"] ?? .null })")
        for plan in plans {
            let warning = plan["timing"]?["warnings"]?.arrayValue?.first { $0["code"] == "counts-incomplete" }?["message"]?.stringValue
            #expect(warning?.contains("2026-06-18 is a partial day: its counts cover 1 of its 96 15-minute intervals (07:00-07:15)") == true
                    && warning?.contains("timed from 2026-06-17, the latest day counted whole") == true, "\(warning ?? "no counts-incomplete warning")")
        }
        let wave = try await SignalStoreTests.run("green-wave", ["corridor": "SC-001", "period": "17:00-18:00"], store: store)
        let signals = try #require(wave["plan"]?["intersections"]?.arrayValue)
        #expect(signals.count > 1 && (wave["plan"]?["cycle_s"]?.doubleValue ?? 0) > 0, "\(wave)")
    }
}
