// parking-bench: parking guidance on the sample district, timed through the process registry as the
// API and the CLI run it (Benchmarks/run.sh parking). Issue 17's targets: a guidance query ≤ 5 ms p50
// on the district, a day of the district's guided-vs-unguided simulation ≤ 10 s.
//
//   parking-bench [ROUNDS=50]
//
// Builds the sample district into a temporary SpatiaLite store, then times parking-guidance (readings
// given, and forecast from the store's history) ROUNDS times after one cold run, printing p50 and p90,
// and the parking-forecast and parking-simulation processes, and an observation's way to the signs'
// content (write + live view refresh). Prints one line each and one JSON object.
import CityModel
import Foundation
import GeoCore
import Parking
import ProcessRuntime
import Scenarios
import TwinStore

let rounds = CommandLine.arguments.count > 1 ? max(1, Int(CommandLine.arguments[1]) ?? 50) : 50
func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock(), start = clock.now
    try await body()
    let d = clock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parking-bench-\(UUID().uuidString)", isDirectory: true)
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
let store = try SpatiaLiteStore(path: dir.appendingPathComponent("city.sqlite").path)
_ = try await DistrictLoader.build(into: store, layersDirectory: URL(fileURLWithPath: "Layers"))
let registry = ProcessRegistry.standard
let trip: [String: JSONValue] = ["from": [114.780, 30.830], "to": [114.7985, 30.8405]]
let readings: JSONValue = [["lot": "PK-001", "occupied": 250, "age_s": 30], ["lot": "PK-004", "occupied": 100, "age_s": 30]]
let cases: [(String, String, [String: JSONValue], Int)] = [
    ("guidance (readings given)", "parking-guidance", trip.merging(["occupancy": readings, "drivers": 20]) { a, _ in a }, rounds),
    ("guidance (forecast at ETA from history)", "parking-guidance", trip.merging(["at": "2026-06-17T09:30:00"]) { a, _ in a }, max(1, rounds / 10)),
    ("forecast (all lots)", "parking-forecast", ["at": "2026-06-17T09:30:00"], max(1, rounds / 10)),
    ("simulation (one day, both strategies)", "parking-simulation", [:], 3),
]
var report: [String: JSONValue] = ["rounds": .integer(Int64(rounds))]
for (label, id, inputs, n) in cases {
    let cold = try await milliseconds { _ = try await registry.run(id, inputs: inputs, caller: .admin, store: store) }
    var times: [Double] = []
    for _ in 0..<n { times.append(try await milliseconds { _ = try await registry.run(id, inputs: inputs, caller: .admin, store: store) }) }
    times.sort()
    let p50 = times[times.count / 2], p90 = times[min(times.count - 1, Int(Double(times.count) * 0.9))]
    print("\(label): cold \(String(format: "%.1f", cold)) ms, p50 \(String(format: "%.2f", p50)) ms, p90 \(String(format: "%.2f", p90)) ms (\(n) runs)")
    report[label] = ["cold_ms": .number((cold * 10).rounded() / 10), "p50_ms": .number((p50 * 100).rounded() / 100),
                     "p90_ms": .number((p90 * 100).rounded() / 100)]
}
// Observation → screen: one reading written, then the signs' new content handed to the push feed (what
// the server does in the request that wrote it: the push latency less HTTP), and the whole live view
// refreshed (forecasts included).
final class Stamp: @unchecked Sendable { var at: ContinuousClock.Instant? }
var pushTimes: [Double] = [], viewTimes: [Double] = []
let lot = try await StoreParkingLot.load(from: store, by: .admin).first(where: \.smart)!
let base = ParkingLiveView.localTime(Date(timeIntervalSince1970: 1_781_661_600))   // 2026-06-17 10:00 +08:00
_ = try await ParkingLiveView.refresh(store, now: base)
for k in 0..<max(2, rounds / 5) {
    let t = base + Double(k + 1) * 20
    let stamp = Stamp()
    let clock = ContinuousClock(), start = clock.now
    try await store.insert(layer: "parking_occupancy", features: [Feature(id: .string("bench-\(k)"), geometry: nil, properties: [
        "lot": .string(lot.id), "observed_at": .string(ParkingLiveView.iso(t)), "occupied": .integer(Int64(k % 2 == 0 ? lot.capacity - 3 : lot.capacity / 2)),
        "capacity": .integer(Int64(lot.capacity)), "source": "检测器"])], by: .admin, at: nil)
    let update = try await ParkingLiveView.refresh(store, now: t) { _ in stamp.at = ContinuousClock.now }
    let end = clock.now
    precondition(!update.signs.isEmpty, "the reading changed no sign")
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    pushTimes.append(ms(stamp.at! - start))
    viewTimes.append(ms(end - start))
}
pushTimes.sort(); viewTimes.sort()
for (label, times) in [("observation to sign content pushed", pushTimes), ("observation to live view refreshed", viewTimes)] {
    let p50 = times[times.count / 2], p90 = times[min(times.count - 1, Int(Double(times.count) * 0.9))]
    print("\(label): p50 \(String(format: "%.1f", p50)) ms, p90 \(String(format: "%.1f", p90)) ms (\(times.count) runs)")
    report[label] = ["p50_ms": .number((p50 * 10).rounded() / 10), "p90_ms": .number((p90 * 10).rounded() / 10)]
}
print(String(decoding: GeoJSON.encodeBytes(.object(report)), as: UTF8.self))
