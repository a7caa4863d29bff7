import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import Testing
import TestSupport
import TwinStore
#if canImport(Glibc)
import Glibc
#endif

/// Issue 57 §4: a flood job over a city of 2 × 2 districts (`citytwin district build --scale 2`)
/// on PostGIS is one parent job with one child job per district's drainage network; two real
/// `citytwin worker` processes claim the children from the job table (a killed worker's child is
/// taken over after its lease), the parent's progress counts the children done, and its result
/// joins theirs into one merged run (every district's features in one set of layers, each with
/// its district; the taken-over district's part equals that district run alone). A dismissed
/// child fails the parent with the child named; dismissing the parent dismisses its children.
@Suite("Flood fan-out: a city's flood job as one child job per district on two workers", .serialized,
       .enabled(if: OutageHarness.enabled, "needs PostgreSQL (Scripts/setup.sh --test; CITYTWIN_TEST_POSTGRES_URL)"))
struct FloodFanOutTests {
    /// A quick run: 100 m cells, 3 % of the storm (as FloodRunLifecycleTests).
    static let inputs: [String: JSONValue] = ["scenario": "p50-waterlogging", "durationScale": 0.03, "demCoarsening": 10]
    static let districts = ["D000", "D001", "D002", "D003"]

    /// A PostgreSQL holding a 2 × 2 city, for `body`.
    static func withCity<T>(_ body: (PrivatePostgres, PostGISStore) async throws -> T) async throws -> T {
        try await PrivatePostgres.with { pg in
            let build = try await CommandProcess.run(try OutageHarness.binary(), ["district", "build", "--scale", "2", "--store", pg.url],
                                                     directory: OutageHarness.packageRoot.path, within: 1200)
            guard build.exitStatus == 0 else { throw HarnessFailure("district build --scale 2: \(build.output)") }
            // A minute's wait for a connection, not 5 s: two workers' flood runs and the rest of the
            // suite share this PostgreSQL and two cores (the 5 s wait ran out once in a whole-suite run).
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60))
            do {
                let value = try await body(pg, store)
                await store.shutdown()
                return value
            } catch {
                await store.shutdown()
                throw error
            }
        }
    }

    static func children(of parent: String, in store: PostGISStore) async throws -> [JobRecord] {
        var out: [JobRecord] = []
        for k in districts.indices {
            if let child = try await store.job(id: JobFanOut.childID(parent: parent, index: k)) { out.append(child) }
        }
        return out
    }

    /// One city for both parts (building it is most of the suite's time): the fan-out with a
    /// worker killed and the merged result, then cancellation.
    @Test("4 districts fan out over 2 workers, one killed mid-child, joined into one merged run; a dismissed child or parent ends the rest")
    func fanOutMergesDistricts() async throws {
        try await Self.withCity { pg, store in
            #expect(try await FloodDistrictPartKeys.keys(store) == Self.districts)
            let workers = [try await OutageHarness.worker(pg), try await OutageHarness.worker(pg)]
            defer { for w in workers { w.kill() } }
            try await Self.fanOut(store, workers)
            try await Self.cancellation(store)
        }
    }

    static func fanOut(_ store: PostGISStore, _ workers: [CommandProcess]) async throws {
        let parent = try await store.submitJob(process: "flood-scenario", inputs: .object(Self.inputs), caller: .admin)
        // Kill the worker of the first child that runs; the other takes it over once the 3 s lease lapses.
        var victim: JobRecord?
        try await OutageHarness.eventually("a child job runs", within: 300) {
            victim = try await Self.children(of: parent.id, in: store).first { $0.status == .running }
            return victim != nil
        }
        let child = try #require(victim), killedName = try #require(child.claimedBy)
        let names = try await Self.workerNames(workers)
        let killed = try #require(names.firstIndex(of: killedName).map { workers[$0] }, "\(killedName) among \(names)")
        killed.kill()
        var progress: [Double] = []
        try await OutageHarness.eventually("the parent job ends", within: 900) {
            let job = try await store.job(id: parent.id)
            if let p = job?.progress, progress.last != p { progress.append(p) }
            return job?.status.isFinal == true
        }
        let done = try #require(try await store.job(id: parent.id))
        #expect(done.status == .successful, "\(done.message ?? "") \(done.error.map { "\($0)" } ?? "")")
        #expect(progress.allSatisfy { [0, 25, 50, 75, 100].contains($0) }, "parent progress \(progress)")
        let taken = try #require(try await store.job(id: child.id))
        #expect(taken.status == .successful && taken.claimedBy != killedName, "child \(child.id) after \(killedName) was killed: \(taken)")
        let children = try await Self.children(of: parent.id, in: store)
        #expect(children.count == 4 && children.allSatisfy { $0.status == .successful })

        let result = try #require(done.result)
        let parts = try #require(result["districts"]?.arrayValue)
        #expect(parts.compactMap { $0["district"]?.stringValue } == Self.districts)
        // Every district its own run; the merged run names them and is one more run of the catalogue.
        let partRuns = parts.compactMap { $0["run"]?["id"]?.stringValue }
        #expect(Set(partRuns).count == 4)
        let run = try #require(result["run"]), stem = try #require(run["stem"]?.stringValue)
        #expect(run["status"] == "successful" && run["state"] == "draft", "\(run)")
        #expect(run["inputs"]?["parts"]?.arrayValue?.compactMap(\.stringValue) == partRuns)
        #expect(run["inputs"]?["districts"]?.arrayValue?.compactMap(\.stringValue) == Self.districts)
        let runID = try #require(run["id"]?.stringValue)
        let record = try #require(try await store.feature(layer: "flood_runs", id: runID, by: .admin))
        #expect(record.properties["status"] == "successful")
        // One result set: the merged layers hold every district's features, each with its district.
        let layers = try #require(result["layers"]?.arrayValue).compactMap(\.stringValue)
        #expect(layers.count >= 4 && layers.allSatisfy { $0.hasPrefix(stem + "_") }, "\(layers)")
        for suffix in ["depth", "roads", "buildings", "cutoff"] {
            let merged = try await Self.features(store, "\(stem)_\(suffix)")
            #expect(merged.allSatisfy { f in f.properties["district"]?.stringValue.map(Self.districts.contains) == true }, "\(suffix): a feature without its district")
            var fromParts: [Feature] = []
            for part in parts {
                let partStem = try #require(part["run"]?["stem"]?.stringValue)
                fromParts += try await Self.features(store, "\(partStem)_\(suffix)")
            }
            let ids = merged.compactMap { $0.id.map { "\($0)" } }
            #expect(Set(ids).count == ids.count, "\(suffix): ids repeat")
            if suffix == "depth" {
                #expect(merged.count == fromParts.count, "depth: \(merged.count) merged, \(fromParts.count) in the districts")
            } else {
                // A seam's road or building once, at the deeper of its districts' depths.
                let deepest = Dictionary(fromParts.map { ($0.id.map { "\($0)" } ?? "", $0.properties["max_depth_m"]?.doubleValue ?? 0) }, uniquingKeysWith: max)
                #expect(Set(ids) == Set(deepest.keys), "\(suffix): merged ids are not the districts' ids")
                for f in merged {
                    let id = f.id.map { "\($0)" } ?? ""
                    #expect((f.properties["max_depth_m"]?.doubleValue ?? 0) == deepest[id], "\(suffix) \(id)")
                }
            }
            if suffix == "buildings" { #expect(result["summary"]?["floodedBuildings"] == .integer(Int64(merged.count))) }
            if suffix == "roads" {
                // A seam's flooded road counted and measured once: the city's kilometres are at least
                // any district's and at most their sum (each district measures in its projected grid).
                let flooded = merged.filter { $0.properties["flooded"] == .bool(true) }
                #expect(result["summary"]?["floodedRoads"] == .integer(Int64(flooded.count)))
                let km = try #require(result["summary"]?["floodedRoadKilometres"]?.doubleValue)
                let partKm = parts.compactMap { $0["summary"]?["floodedRoadKilometres"]?.doubleValue }
                #expect(partKm.count == 4)
                #expect(km >= (partKm.max() ?? 0) * 0.999 && km <= partKm.reduce(0, +) * 1.001, "city \(km) km, districts \(partKm)")
                let seamRoads = fromParts.count - merged.count
                let seamFlooded = fromParts.filter { $0.properties["flooded"] == .bool(true) }.count - flooded.count
                if seamFlooded > 0 { #expect(km < partKm.reduce(0, +), "\(seamFlooded) of \(seamRoads) seam roads flooded, kilometres summed") }
            }
        }
        #expect(result["summary"]?["districts"] == .integer(4))
        // The district whose worker was killed, run alone in this process, equals its part of the result.
        let registry = ProcessRegistry.forStore(directory: nil)
        let k = try #require(children.firstIndex { $0.id == child.id })
        var inputs = Self.inputs
        inputs["district"] = .string(Self.districts[k])
        let alone = try await registry.run("flood-scenario", inputs: inputs, caller: .admin, store: store, progress: .ignored)
        let joined = try #require(parts[k]["summary"]), single = try #require(alone["summary"])
        for key in ["cells", "nodes", "links", "subcatchments", "linkedManholes", "floodedRoads", "floodedBuildings", "cutOffResources",
                    "surfaceSteps", "routingSteps"] {
            #expect(joined[key] == single[key], "\(Self.districts[k]) \(key): joined \(joined[key].map { "\($0)" } ?? "nil"), alone \(single[key].map { "\($0)" } ?? "nil")")
        }
        for key in ["peakFloodVolume", "spilledVolume", "outfallVolume", "floodedAreaSquareMetres"] {
            let a = try #require(joined[key]?.doubleValue), b = try #require(single[key]?.doubleValue)
            #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(Self.districts[k]) \(key): joined \(a), alone \(b)")
        }
    }

    static func features(_ store: PostGISStore, _ layer: String) async throws -> [Feature] {
        var out: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(limit: 2000), by: .admin) { out.append(f) }
        return out
    }

    static func cancellation(_ store: PostGISStore) async throws {
        // A child dismissed: the parent fails with the child named, the other children are dismissed.
        let first = try await store.submitJob(process: "flood-scenario", inputs: .object(Self.inputs), caller: .admin)
        try await OutageHarness.eventually("the children are submitted", within: 300) {
            try await Self.children(of: first.id, in: store).count == 4
        }
        let dismissed = JobFanOut.childID(parent: first.id, index: 3)
        _ = try await store.dismissJob(id: dismissed)
        try await OutageHarness.eventually("the parent fails", within: 300) {
            try await store.job(id: first.id)?.status == .failed
        }
        let failed = try #require(try await store.job(id: first.id))
        #expect(failed.message?.contains("district D003 (child job \(dismissed)) was dismissed") == true, "\(failed.message ?? "")")
        try await OutageHarness.eventually("no child of the failed parent is left running or waiting", within: 120) {
            try await Self.children(of: first.id, in: store).allSatisfy(\.status.isFinal)
        }

        // The parent dismissed: its children are dismissed (those not finished yet).
        let second = try await store.submitJob(process: "flood-scenario", inputs: .object(Self.inputs), caller: .admin)
        try await OutageHarness.eventually("the children are submitted", within: 300) {
            try await Self.children(of: second.id, in: store).count == 4
        }
        _ = try await store.dismissJob(id: second.id)
        try await OutageHarness.eventually("the children end", within: 120) {
            try await Self.children(of: second.id, in: store).allSatisfy(\.status.isFinal)
        }
        let ends = try await Self.children(of: second.id, in: store).map(\.status)
        #expect(ends.contains(.dismissed) && !ends.contains(.failed), "\(ends)")
    }

    /// The names the workers gave themselves (`worker-HOST-PID`), in `workers`' order.
    static func workerNames(_ workers: [CommandProcess]) async throws -> [String] {
        var names: [String] = []
        for w in workers {
            var name = ""
            try await OutageHarness.eventually("the worker says its name", within: 60) {
                name = w.output.split(separator: "\n").first { $0.contains(": running ") }.map { String($0.split(separator: ":")[0]) } ?? ""
                return !name.isEmpty
            }
            names.append(name)
        }
        return names
    }
}

/// The districts of the store's city as the flood run reads them.
enum FloodDistrictPartKeys {
    static func keys(_ store: PostGISStore) async throws -> [String] {
        var keys = Set<String>()
        for try await f in store.stream(layer: "drainage_outfalls", FeatureQuery(limit: 2000), by: .admin) {
            if case .string(let id)? = f.id { keys.insert(id.range(of: "^D[0-9]{3}-", options: .regularExpression).map { String(id[$0].dropLast()) } ?? "D000") }
        }
        return keys.sorted()
    }
}
