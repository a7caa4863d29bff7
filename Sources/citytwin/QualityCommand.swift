import ArgumentParser
import Foundation
import Governance
import TwinStore

/// `citytwin quality LAYER [--json]`: the layer's data-quality report (the same as
/// `GET /collections/{id}/quality`), read as the administrator: per check the count of offending
/// features and the first of them with the reason; exit 0 whatever it finds.
struct QualityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quality",
        abstract: "Check a layer's data quality: geometry validity, completeness, ranges and code lists, duplicates, network topology, freshness, extent.")

    @OptionGroup var storeOption: StoreOption

    @Argument(help: "The layer id, e.g. drainage_pipes.")
    var layer: String

    @Flag(help: "Print the report as JSON (as the API gives it).")
    var json = false

    @Option(help: "Findings listed per check (1…100000); counts cover them all.")
    var limit = 20

    func validate() throws {
        guard (1...100_000).contains(limit) else { throw ValidationError("--limit must be 1…100000, got \(limit)") }
    }

    func run() async throws {
        let store = try await StoreLocation(storeOption.path).openExisting()
        let report = try await QualityInspector(store: store, findingsCap: limit).report(layer: layer, by: .admin)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("\(report.collection): \(report.features) features, \(report.issues) issue(s); updated \(report.updateFrequency), last written \(report.lastWritten ?? "never")")
        for check in report.checks {
            print("  " + check.check.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0) + String(format: "%6d", check.count) + (check.count == 0 ? "" : "  \(check.check.summary)"))
            for f in check.findings { print("      \(f.id): \(f.detail)") }
            if check.omitted > 0 { print("      … and \(check.omitted) more (--limit)") }
        }
    }
}
