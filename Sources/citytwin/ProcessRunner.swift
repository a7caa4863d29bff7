import Foundation
import GeoCore
import Scenarios
import TwinStore

/// The CLI's one way to run an analysis: the process the API offers (`/processes/{id}`), from the
/// same registry and through the same checks, on a local store as the admin — so a command's
/// answer is the process's answer for the same inputs. A bad input fails with the process's own
/// `ProcessInputError`, naming the input.
struct ProcessRunner {
    let location: StoreLocation

    /// - Parameter store: the `--store` value.
    init(store: String) throws {
        location = try StoreLocation(store)
    }

    /// Runs process `id` with `inputs` (input id → value, as in an execute request); its result
    /// document (output id → value).
    /// - Parameter progress: where a long run reports (`ProgressBar.progress`); none by default.
    func run(_ id: String, _ inputs: [String: JSONValue], progress: JobProgress = .ignored, creating: Bool = false) async throws -> JSONValue {
        let registry = ProcessRegistry.forStore(directory: location.directory)
        guard let process = registry[id] else { throw CommandFailure("no process '\(id)'") }
        let store = try await creating ? location.open() : location.openExisting()
        try await registry.validate(inputs, for: process, store: store, caller: .admin)
        return try await registry.execute(process, inputs, store: store, caller: .admin, progress: progress)
    }

    /// Runs process `id` on inputs that read no layer (a signal intersection given inline), with
    /// no store of the user's: an empty SpatiaLite store in a temporary directory, removed after.
    static func runReadingNoLayer(_ id: String, _ inputs: [String: JSONValue], progress: JobProgress = .ignored) async throws -> JSONValue {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await ProcessRunner(store: directory.appendingPathComponent("empty.sqlite").path).run(id, inputs, progress: progress, creating: true)
    }
}

/// A `LON,LAT` option as a process's point input (`[lon, lat]`).
func lonLatInput(_ text: String, option: String) throws -> JSONValue {
    let p = try parseLonLat(text, option: option)
    return [.number(p.x), .number(p.y)]
}

/// A GeoJSON area file as a process's area input: its geometry (a Feature or the first feature
/// of a collection stands for its geometry).
func areaInput(_ path: String, option: String) throws -> JSONValue {
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
        throw CommandFailure("\(option) \(path): cannot be read (\(error.localizedDescription))")
    }
    guard var value = try? JSONDecoder().decode(JSONValue.self, from: data) else {
        throw CommandFailure("\(option) \(path): not JSON")
    }
    if value["type"] == "FeatureCollection", let first = value["features"]?.arrayValue?.first { value = first }
    if value["type"] == "Feature", let g = value["geometry"] { value = g }
    return value
}

/// A JSON document on standard output, pretty-printed with sorted keys.
func printJSONDocument(_ value: some Encodable) throws {
    let encoder = JSONOutput.encoder(.pretty)
    FileHandle.standardOutput.write(try encoder.encode(value))
    FileHandle.standardOutput.write(Data("\n".utf8))
}
