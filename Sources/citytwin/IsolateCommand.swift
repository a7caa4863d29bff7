import ArgumentParser
import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import Scenarios

/// `citytwin network isolate`: the valves that isolate a burst water main, and who loses water.
struct IsolateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isolate",
        abstract: "Valves that isolate a burst main, and the customers cut off (JSON).",
        discussion: """
            Prints one JSON document: valves_to_close (id, lon, lat), failed_valves_passed, segment_mains, mains_cut_off \
            (ids and mains_cut_off_geojson), nodes_cut_off, customers_cut_off, critical_customers (connections supplying \
            hospitals and shelters) and addresses_to_notify, with counts. A summary line goes to standard error.
            """)

    @Option(help: "The burst main's id, e.g. WM-0042.")
    var main: String
    @Option(name: .customLong("failed-valve"), help: "A valve that is missing or will not close (repeatable).")
    var failedValves: [String] = []
    @Option(help: "The store: a SpatiaLite file path, spatialite:PATH or postgresql://….")
    var store: String = DistrictLoader.defaultStorePath

    func run() async throws {
        let featureStore = try await StoreLocation(store).openExisting()
        let report: WaterMainIsolationReport
        do {
            let water = try await StoreWaterNetwork.load(from: featureStore)
            report = try water.isolate(main: main, failedValves: Set(failedValves))
        } catch let e as UtilityNetworkError {
            throw CommandFailure(e.message)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(try report.json())
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
        let i = report.isolation
        FileHandle.standardError.write(Data(("close \(i.valvesToClose.count) valves; \(i.mainsCutOff.count) mains, "
            + "\(i.connectionsCutOff.count) customers (\(i.criticalConnections.count) critical) and "
            + "\(i.addressesToNotify.count) addresses cut off\n").utf8))
    }
}
