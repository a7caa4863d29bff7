import ArgumentParser
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TwinStore

/// `citytwin simulate nowcast --datastreams 12,13 --from T --to T`: the `flood-scenario` process
/// as a nowcast (its `rainfall` input) on a local store as the admin — the rain the gauges'
/// SensorThings Datastreams observed in the window, then an optional forecast, through the
/// district's coupled flood model; writes the `flood_nowcast_<scenario>_*` layers and raises,
/// updates or clears the alerts of roads deeper than 15 cm and cut-off resources. Prints the
/// process's result document (JSON).
struct SimulateNowcastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nowcast",
        abstract: "Runs a flood nowcast from rain-gauge observations (SensorThings Datastreams) and raises road alerts.",
        discussion: """
            The gauges' Datastreams measure rain in mm per reading or mm/h (unitOfMeasurement.symbol). \
            The drainage upgrades, river stage and sill come from --scenario; the result layers are \
            flood_nowcast_<scenario>_depth|roads|buildings|cutoff, the alerts are in the alerts collection.
            """)

    @Option(help: "Rain-gauge Datastream @iot.ids, comma-separated.")
    var datastreams: String

    @Option(help: "Start of the observed window (RFC 3339, e.g. 2026-07-01T08:00:00Z).")
    var from: String

    @Option(help: "End of the observed window (RFC 3339).")
    var to: String

    @Option(help: "Forecast rain after the window: depths in mm per --forecast-interval, comma-separated.")
    var forecastMm: String?

    @Option(help: "Minutes per forecast depth.")
    var forecastInterval: Double = 10

    @Option(help: "The scenario the nowcast takes its network, river stage and sill from (a name in Models/scenarios).")
    var scenario: String = "p50-waterlogging"

    @Option(help: "Coarsen the DEM by this block factor (1 = its own 10 m cells).")
    var demCoarsening: Int = 1

    @Option(help: "The id of the DEM among the store's managed rasters (citytwin raster list).")
    var dem: String?

    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        var ids: [JSONValue] = []
        for part in datastreams.split(separator: ",") {
            guard let id = Int64(part.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--datastreams: '\(part)' is not a Datastream @iot.id")
            }
            ids.append(.integer(id))
        }
        var rainfall: [String: JSONValue] = ["datastreams": .array(ids), "from": .string(from), "to": .string(to)]
        if let forecastMm {
            let depths = try forecastMm.split(separator: ",").map { part -> JSONValue in
                guard let d = Double(part.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("--forecast-mm: '\(part)' is not a depth") }
                return .number(d)
            }
            rainfall["forecast"] = ["interval_min": .number(forecastInterval), "depths_mm": .array(depths)]
        }
        var inputs: [String: JSONValue] = ["scenario": .string(scenario), "rainfall": .object(rainfall),
                                           "demCoarsening": .integer(Int64(demCoarsening))]
        if let dem { inputs["dem"] = .string(dem) }
        let bar = SharedProgressBar("nowcast \(scenario)")
        let result = try await ProcessRunner(store: storeOption.path).run("flood-scenario", inputs, progress: JobProgress { bar.update($0) })
        bar.finish()
        try printJSONDocument(result)
    }
}

/// A `ProgressBar` a process's `JobProgress` may report to from any task.
final class SharedProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let bar: ProgressBar

    init(_ label: String) { bar = ProgressBar(label) }

    func update(_ p: WorkProgress) {
        lock.lock()
        defer { lock.unlock() }
        bar.update(p)
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        bar.finish(.stage("done", fraction: 1))
    }
}
