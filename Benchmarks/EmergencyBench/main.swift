// emergency-bench: the emergency and fire analyses on the sample district, timed through the process
// registry as the API and the CLI run them (Benchmarks/run.sh emergency). The timings the
// Emergency* tests used to print live here; tests assert behaviour only.
//
//   emergency-bench [ROUNDS=5]
//
// Builds the sample district into a temporary SpatiaLite store, then times
// each process once cold (road graphs built on first use) and ROUNDS times warm (cached graphs),
// keeping the best warm time. Prints one line per process and one JSON object.
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TwinStore

let rounds = CommandLine.arguments.count > 1 ? max(1, Int(CommandLine.arguments[1]) ?? 5) : 5
func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock(), start = clock.now
    try await body()
    let d = clock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// The whole sample district (`DistrictLoader`, as `citytwin district build` writes it) in a temporary SpatiaLite file.
func districtStore() async throws -> SpatiaLiteStore {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("emergency-bench-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let store = try SpatiaLiteStore(path: dir.appendingPathComponent("city.sqlite").path)
    _ = try await DistrictLoader.build(into: store, layersDirectory: URL(fileURLWithPath: "Layers"))
    return store
}

let store = try await districtStore()
let registry = ProcessRegistry.standard
let incident: JSONValue = [114.801, 30.842]
let (x, y, r) = (114.801, 30.842, 0.003)
let area: JSONValue = ["type": "Polygon", "coordinates": [[[.number(x - r), .number(y - r)], [.number(x + r), .number(y - r)],
                                                            [.number(x + r), .number(y + r)], [.number(x - r), .number(y + r)],
                                                            [.number(x - r), .number(y - r)]]]]
let cases: [(String, [String: JSONValue])] = [
    ("nearest-resources", ["incident": incident, "layer": "shelters", "count": 3, "minimumCapacity": 800]),
    ("service-area", ["origin": incident, "breaks": [2, 5]]),
    ("hazard-overlay", ["area": area, "origin": [114.79, 30.83], "route": ["from": [114.795, 30.838], "to": [114.807, 30.846]]]),
    ("coverage", ["suggestions": 2]),
    // Issue 54: the fire analyses; fire-pre-plan's "under a second" for a high-rise (BLD-00033, 48 m) is measured here.
    ("hydrant-coverage", ["maximumListed": 20]),
    ("fire-station-coverage", ["maximumListed": 20]),
    ("fire-pre-plan", ["building": "BLD-00033", "hydrants": 3]),
]
var report: [String: JSONValue] = ["rounds": .integer(Int64(rounds))]
for (id, inputs) in cases {
    let cold = try await milliseconds { _ = try await registry.run(id, inputs: inputs, caller: .admin, store: store) }
    var warm = Double.infinity
    for _ in 0..<rounds {
        warm = min(warm, try await milliseconds { _ = try await registry.run(id, inputs: inputs, caller: .admin, store: store) })
    }
    print("\(id): cold \(String(format: "%.1f", cold)) ms, warm best of \(rounds) \(String(format: "%.1f", warm)) ms")
    report[id] = ["cold_ms": .number((cold * 10).rounded() / 10), "warm_ms": .number((warm * 10).rounded() / 10)]
}
print(String(decoding: GeoJSON.encodeBytes(.object(report)), as: UTF8.self))
