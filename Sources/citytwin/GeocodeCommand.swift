import ArgumentParser
import CityModel
import Foundation
import GeoCore
import TwinStore

/// `citytwin geocode FILE.csv`: batch forward (address column) or reverse (lon/lat columns)
/// geocoding against the store's standard addresses, writing the CSV with the match appended.
struct GeocodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocode",
        abstract: "Geocodes Chinese addresses to standard address records (forward), or points to addresses (reverse).")

    @Argument(help: "CSV file (UTF-8, header row) to geocode.")
    var file: String

    @Option(help: "Column holding the address text (forward geocoding).")
    var column: String = "address"

    @Flag(help: "Reverse geocoding: points (EPSG:4490 lon/lat) to the nearest door plate or building.")
    var reverse = false

    @Option(name: .customLong("lon-column"), help: "Longitude column for --reverse.")
    var lonColumn: String = "lon"

    @Option(name: .customLong("lat-column"), help: "Latitude column for --reverse.")
    var latColumn: String = "lat"

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    @Option(name: .shortAndLong, help: "Output CSV (default: standard output).")
    var output: String?

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("cannot read \(file) as UTF-8 text")
        }
        let location = try StoreLocation(store)
        let featureStore = try await location.openExisting()
        let loading = ProgressBar("loading addresses")
        var features: [Feature] = []
        for try await f in featureStore.stream(layer: "addresses", FeatureQuery(limit: FeatureQuery.maximumLimit), by: .admin) {
            features.append(f)
            if features.count % 5000 == 0 { loading.update(WorkProgress(stage: "", completed: Double(features.count), total: nil, unit: "addresses")) }
        }
        loading.finish(WorkProgress(stage: "", completed: Double(features.count), total: nil, unit: "addresses"))
        guard !features.isEmpty else { throw CommandFailure("the store has no standard addresses (layer addresses is empty)") }
        let geocoder = try AddressGeocoder(features: features)
        let bar = ProgressBar("geocoding \(URL(fileURLWithPath: file).lastPathComponent)")
        let started = Date()
        let input: AddressGeocoder.BatchInput = reverse ? .point(lonColumn: lonColumn, latColumn: latColumn) : .address(column: column)
        let result = try geocoder.geocodeCSV(text, file: file, input: input) { bar.update($0) }
        let seconds = Date().timeIntervalSince(started)
        bar.finish(WorkProgress(stage: "", completed: Double(result.rows), total: Double(result.rows), unit: "rows"),
                   note: "\(result.matched) matched, \(Int(Double(result.rows) / max(seconds, 1e-9))) addresses/s")
        if let output {
            try Data(result.csv.utf8).write(to: URL(fileURLWithPath: output))
        } else {
            FileHandle.standardOutput.write(Data(result.csv.utf8))
        }
    }
}
