import ArgumentParser
import CityModel
import Foundation
import GeoCore
import Scenarios

/// `citytwin geocode FILE.csv`: batch forward (address column) or reverse (lon/lat columns)
/// geocoding against the store's standard addresses, writing the CSV with the match and, for a
/// row without one, the reason appended: the `geocoding` process run through `ProcessRunner`.
struct GeocodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocode",
        abstract: "Geocodes Chinese addresses to standard address records (forward), or points to addresses (reverse).")

    @Argument(help: "CSV file (header row first) to geocode.")
    var file: String

    @Option(help: "Text encoding of the CSV file: UTF-8 (default) or GBK (GB2312, CP936, GB18030), as Excel saves CSV on a Chinese Windows. The output is UTF-8.")
    var encoding: TextEncoding = .utf8

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

    /// The `geocoding` process's inputs for this command.
    func inputs(_ text: String) -> [String: JSONValue] {
        var inputs: [String: JSONValue] = ["csv": .string(text)]
        if reverse {
            inputs["reverse"] = true
            inputs["lonColumn"] = .string(lonColumn)
            inputs["latColumn"] = .string(latColumn)
        } else {
            inputs["column"] = .string(column)
        }
        return inputs
    }

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
        guard let text = encoding.decode(data) else {
            throw CommandFailure("\(file) is not valid \(encoding.rawValue) text (try --encoding \(encoding == .utf8 ? "GBK" : "UTF-8"))")
        }
        // The API's `geocoding` process, through the one runner (ProcessRunner): same checks, same answer.
        let bar = ProgressBar("geocoding \(URL(fileURLWithPath: file).lastPathComponent)")
        let started = ContinuousClock.now
        let result = try await ProcessRunner(store: store).run("geocoding", inputs(text), progress: bar.progress)
        guard let csv = result["csv"]?.stringValue, let rows = result["rows"]?.integerValue, let matched = result["matched"]?.integerValue else {
            throw CommandFailure("the geocoding process answered without a table")
        }
        let seconds = (ContinuousClock.now - started).seconds
        bar.finish(WorkProgress(stage: "", completed: Double(rows), total: Double(rows), unit: "rows"),
                   note: "\(matched) matched, \(Int(Double(rows) / max(seconds, 1e-9))) addresses/s (including loading the addresses)")
        if let output {
            try writeOutputFile(csv, to: output)
        } else {
            FileHandle.standardOutput.write(Data(csv.utf8))
        }
    }
}
