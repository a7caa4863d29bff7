import ArgumentParser
import CityModel
import Foundation
import GeoCore

/// `citytwin network isolate`: the valves that isolate a burst water or gas main, and who loses supply
/// (the `valve-isolation` process run on a local store as the admin).
struct IsolateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isolate",
        abstract: "Valves that isolate a burst main, and the customers cut off (JSON).",
        discussion: """
            Prints one JSON document: valves_to_close (id, lon, lat), failed_valves_passed, segment_mains, mains_cut_off \
            (ids and mains_cut_off_geojson), nodes_cut_off, customers_cut_off, critical_customers (connections supplying \
            hospitals and shelters) and addresses_to_notify, with counts. A summary line goes to standard error.
            """)

    @Option(help: "water (water_mains) or gas (gas_mains).")
    var network: String = "water"
    @Option(help: "The burst main's id, e.g. WM-0042 or GM-0042.")
    var main: String
    @Option(name: .customLong("failed-valve"), help: "A valve that is missing or will not close (repeatable).")
    var failedValves: [String] = []
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    /// The `valve-isolation` inputs these options stand for.
    func inputs() -> [String: JSONValue] {
        ["network": .string(network), "main": .string(main), "failedValves": .array(failedValves.map(JSONValue.string))]
    }

    func run() async throws {
        let result = try await ProcessRunner(store: store).run("valve-isolation", inputs())
        try printJSONDocument(result)
        func count(_ key: String) -> Int64 { result["counts"]?[key]?.integerValue ?? 0 }
        FileHandle.standardError.write(Data(("close \(count("valves_to_close")) valves; \(count("mains_cut_off")) mains, "
            + "\(count("customers_cut_off")) customers (\(count("critical_customers")) critical) and "
            + "\(count("addresses_to_notify")) addresses cut off\n").utf8))
        for note in result["notes"]?.arrayValue ?? [] {
            FileHandle.standardError.write(Data("note: \(note.stringValue ?? "")\n".utf8))
        }
    }
}
