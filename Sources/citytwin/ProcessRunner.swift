import Foundation
import GeoCore
import ProcessRuntime
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
    func run(_ id: String, _ inputs: [String: JSONValue], progress: JobProgress = .ignored) async throws -> JSONValue {
        let store = try await location.openExisting()
        return try await Self.run(id, inputs, store: store, directory: location.directory, progress: progress)
    }

    /// Runs process `id` on inputs that read no layer (a signal intersection given inline), with
    /// no store at all.
    static func runReadingNoLayer(_ id: String, _ inputs: [String: JSONValue], progress: JobProgress = .ignored) async throws -> JSONValue {
        try await run(id, inputs, store: nil, directory: nil, progress: progress)
    }

    /// Runs process `id` through the registry's `run`, its errors as the CLI's.
    private static func run(_ id: String, _ inputs: [String: JSONValue], store: (any FeatureStore)?, directory: URL?,
                            progress: JobProgress) async throws -> JSONValue {
        do {
            return try await ProcessRegistry.forStore(directory: directory).run(id, inputs: inputs, caller: .admin, store: store, progress: progress)
        } catch let e as UnknownProcessError {
            throw CommandFailure("no process '\(e.id)'")
        } catch let e as ProcessInputError {
            throw CommandFailure(e.description)
        } catch let e as ScenarioError {
            throw CommandFailure(e.message)
        }
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
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    FileHandle.standardOutput.write(try encoder.encode(value))
    FileHandle.standardOutput.write(Data("\n".utf8))
}
