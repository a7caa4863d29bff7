import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import TestSupport
import Testing
import TwinStore
@testable import Utilities

/// The sample district's utility layers (and the layers critical customers are found from) in a
/// temporary SpatiaLite store, built once per test process.
enum UtilityDistrict {
    static let layerIDs = ["drainage_manholes", "drainage_pipes", "drainage_outfalls", "drainage_storage", "drainage_pumps",
                           "water_nodes", "water_mains", "water_valves", "water_connections",
                           "hospitals", "shelters", "buildings", "addresses"]

    static let layersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL

    /// A feature of the sample district's `layer` made over as `id` with `changes`: the parts of the
    /// small networks a test draws by hand.
    static func like(_ layer: String, _ id: String, _ changes: [String: JSONValue]) throws -> Feature {
        var f = try #require(try district.get()[layer: layer].first)
        f.id = .string(id)
        f.properties.merge(changes) { $1 }
        return f
    }

    /// S —M1— A —M2— B with source S; valve V1 on M1 next to S (open), V2 on M2 next to A (normally
    /// closed); connections C1 on M1 (address X1) and C2 on M2 (X2).
    static func insertSmallWaterNetwork(into store: SpatiaLiteStore) async throws {
        try await store.insert(layer: "water_nodes", features: [
            try like("water_nodes", "S", ["node_type": "水源"]), try like("water_nodes", "A", ["node_type": "节点"]),
            try like("water_nodes", "B", ["node_type": "节点"]),
        ], by: .admin, at: nil)
        try await store.insert(layer: "water_mains", features: [
            try like("water_mains", "M1", ["from_node": "S", "to_node": "A"]), try like("water_mains", "M2", ["from_node": "A", "to_node": "B"]),
        ], by: .admin, at: nil)
        try await store.insert(layer: "water_valves", features: [
            try like("water_valves", "V1", ["main": "M1", "near_node": "S", "status": "常开"]),
            try like("water_valves", "V2", ["main": "M2", "near_node": "A", "status": "常闭"]),
        ], by: .admin, at: nil)
        try await store.insert(layer: "water_connections", features: [
            try like("water_connections", "C1", ["main": "M1", "address_code": "X1"]),
            try like("water_connections", "C2", ["main": "M2", "address_code": "X2"]),
        ], by: .admin, at: nil)
    }

    /// A store with the `ids` layers created, removed when the test case ends (or, `shared`, when the test process exits).
    static func emptyStore(_ ids: [String], shared: Bool = false) async throws -> SpatiaLiteStore {
        let store = try (shared ? TemporaryDirectory.forProcess("utility") : TemporaryDirectory.forTestCase("utility")).openStore()
        let catalog = try LayerCatalog.load(directory: layersDirectory)
        for id in ids {
            guard let definition = catalog[id] else { throw GeometryError(.invalidArgument, "no layer \(id) in Layers/") }
            try await store.createLayer(definition)
        }
        return store
    }

    private static let built = Task { () throws -> (SpatiaLiteStore, SampleDistrict) in
        let store = try await emptyStore(layerIDs, shared: true)
        let catalog = try LayerCatalog.load(directory: layersDirectory)
        let district = try UtilityDistrict.district.get()
        for id in layerIDs {
            var features = district[layer: id]
            if catalog[id]?.hasZ == false {
                for i in features.indices where features[i].geometry?.hasZ == true {
                    features[i].geometry = features[i].geometry?.mapPositions { $0.xy }
                }
            }
            try await store.insert(layer: id, features: features, by: .admin, at: nil)
        }
        return (store, district)
    }

    static func store() async throws -> (SpatiaLiteStore, SampleDistrict) { try await built.value }
}

extension UtilityDistrict {
    /// The default sample district (seed 2026), generated once per test process.
    static let district: Result<SampleDistrict, any Error> = Result { try SampleDistrict.generate() }
}

/// A small deterministic generator so a failing pick can be replayed.
private struct Picker {
    var state: UInt64
    mutating func next(_ n: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(n))
    }
}

private func text(_ f: Feature, _ key: String) -> String? { f.properties[key]?.stringValue }
private func fid(_ f: Feature) -> String { f.id.map { "\($0)" } ?? "" }

/// The sample district's water network, modelled independently of the kernel: node and main
/// vertices, each main joined to its two end nodes; a closed valve cuts the join at its node.
private struct WaterModel {
    var mainEnds: [String: (String, String)] = [:]
    var mainsAtNode: [String: [String]] = [:]
    /// Valve id → (main, near node).
    var valves: [String: (main: String, node: String)] = [:]
    var sources: [String] = []
    var connectionMain: [String: String] = [:]

    init(_ district: SampleDistrict) {
        for f in district[layer: "water_mains"] {
            let (a, b) = (text(f, "from_node") ?? "", text(f, "to_node") ?? "")
            mainEnds[fid(f)] = (a, b)
            mainsAtNode[a, default: []].append(fid(f))
            mainsAtNode[b, default: []].append(fid(f))
        }
        for f in district[layer: "water_valves"] { valves[fid(f)] = (text(f, "main") ?? "", text(f, "near_node") ?? "") }
        sources = district[layer: "water_nodes"].filter { text($0, "node_type") == "水源" }.map(fid)
        for f in district[layer: "water_connections"] { connectionMain[fid(f)] = text(f, "main") }
    }

    /// Mains reached from `starts` (node ids) without crossing a closed valve or entering `removed`.
    func reachedMains(from starts: [String], closed: Set<String>, removed: String? = nil) -> Set<String> {
        var cut = Set<String>()   // "main|node" joins that a closed valve cuts
        for v in closed { if let x = valves[v] { cut.insert("\(x.main)|\(x.node)") } }
        var seenNodes = Set(starts), seenMains = Set<String>()
        var queue = starts
        while let n = queue.popLast() {
            for m in mainsAtNode[n] ?? [] where m != removed && !seenMains.contains(m) && !cut.contains("\(m)|\(n)") {
                seenMains.insert(m)
                guard let (a, b) = mainEnds[m] else { continue }
                for other in [a, b] where !seenNodes.contains(other) && !cut.contains("\(m)|\(other)") {
                    seenNodes.insert(other)
                    queue.append(other)
                }
            }
        }
        return seenMains
    }

    /// Mains connected to `main` when every valve but the failed ones is a barrier.
    func valveFreeSegment(of main: String, failed: Set<String>) -> Set<String> {
        var segment: Set<String> = [main], queue = [main]
        let cut = Set(valves.filter { !failed.contains($0.key) }.map { "\($0.value.main)|\($0.value.node)" })
        var seenNodes = Set<String>()
        while let m = queue.popLast() {
            guard let (a, b) = mainEnds[m] else { continue }
            for n in [a, b] where !cut.contains("\(m)|\(n)") && !seenNodes.contains(n) {
                seenNodes.insert(n)
                for next in mainsAtNode[n] ?? [] where !segment.contains(next) && !cut.contains("\(next)|\(n)") {
                    segment.insert(next)
                    queue.append(next)
                }
            }
        }
        return segment
    }

    func segmentHoldsSource(_ segment: Set<String>) -> Bool {
        segment.contains { m in mainEnds[m].map { sources.contains($0.0) || sources.contains($0.1) } ?? false }
    }
}

@Suite("Utility networks read from the one map", .temporaryDirectories)
struct UtilityNetworkStoreTests {
    @Test("empty utility layers give empty networks, and a trace from an unknown id names it")
    func emptyLayers() async throws {
        let store = try await UtilityDistrict.emptyStore(["drainage_manholes", "drainage_pipes", "drainage_outfalls",
                                                          "water_nodes", "water_mains", "water_valves", "water_connections"])
        let drainage = try await StoreDrainageNetwork.load(from: store)
        #expect(drainage.graph.nodes.isEmpty && drainage.graph.pipes.isEmpty)
        #expect(throws: UtilityNetworkError.self) { try drainage.trace(from: "YS-J00001", direction: .downstream) }
        let water = try await StorePressureNetwork.load(.water, from: store)
        #expect(water.network.mains.isEmpty && water.criticalCustomers.isEmpty)
        #expect(throws: UtilityNetworkError.self) { try water.isolate(main: "WM-0001") }
    }

    @Test("a downstream trace from a manhole follows the pipes' flow direction and reaches an outfall")
    func downstreamTrace() async throws {
        let (store, district) = try await UtilityDistrict.store()
        let drainage = try await StoreDrainageNetwork.load(from: store)
        let pipes = district[layer: "drainage_pipes"]
        let outfalls = Set(district[layer: "drainage_outfalls"].map(fid))
        let pipeEnds = Dictionary(uniqueKeysWithValues: pipes.map { (fid($0), (text($0, "upstream_node") ?? "", text($0, "downstream_node") ?? "")) })
        let manholes = district[layer: "drainage_manholes"].map(fid)
        var pick = Picker(state: 17)
        for _ in 0..<8 {
            let start = manholes[pick.next(manholes.count)]
            let trace = try drainage.trace(from: start, direction: .downstream)
            #expect(trace.nodes.contains(start))
            #expect(!outfalls.isDisjoint(with: trace.nodes), "\(start) drains to no outfall")
            let nodes = Set(trace.nodes)
            for link in trace.links {
                if let (up, down) = pipeEnds[link] {
                    #expect(nodes.contains(up) && nodes.contains(down), "\(link) leaves the trace")
                }
            }
            // Walking pipes downstream from the start by hand reaches exactly the traced pipes.
            var reached: Set<String> = [start], walked = Set<String>(), queue = [start]
            while let n = queue.popLast() {
                for p in pipes where text(p, "upstream_node") == n {
                    walked.insert(fid(p))
                    if let d = text(p, "downstream_node"), reached.insert(d).inserted { queue.append(d) }
                }
            }
            #expect(Set(trace.links.filter { pipeEnds[$0] != nil }) == walked)
            let collection = drainage.features(of: trace)
            #expect(collection.features.allSatisfy { $0.geometry != nil && $0.properties["layer"] != nil })
            #expect(collection.features.filter { $0.properties["trace_role"] == "link" }.count
                    == trace.links.filter { drainage.linkFeatures[$0] != nil }.count)
        }
    }

    @Test("every node of an upstream trace drains to the start, and every node that drains to it is traced")
    func upstreamTrace() async throws {
        let (store, district) = try await UtilityDistrict.store()
        let drainage = try await StoreDrainageNetwork.load(from: store)
        var downstream: [String: [String]] = [:]
        for p in district[layer: "drainage_pipes"] {
            if let a = text(p, "upstream_node"), let b = text(p, "downstream_node") { downstream[a, default: []].append(b) }
        }
        func drains(_ from: String, to target: String) -> Bool {
            var seen: Set<String> = [from], queue = [from]
            while let n = queue.popLast() {
                if n == target { return true }
                for d in downstream[n] ?? [] where seen.insert(d).inserted { queue.append(d) }
            }
            return false
        }
        let starts = district[layer: "drainage_outfalls"].map(fid) + [district[layer: "drainage_manholes"][40]].map(fid)
        let allNodes = district[layer: "drainage_manholes"].map(fid) + district[layer: "drainage_outfalls"].map(fid)
        for start in starts {
            let trace = try drainage.trace(from: start, direction: .upstream)
            #expect(trace.nodes.count > 1)
            let expected = Set(allNodes.filter { drains($0, to: start) })
            #expect(Set(trace.nodes.filter { drainage.nodeFeatures[$0]?.layer != "drainage_storage" }) == expected)
        }
    }

    @Test("the valves closed around random bursts cut every source off the burst main, and exactly the unfed customers lose water")
    func isolation() async throws {
        let (store, district) = try await UtilityDistrict.store()
        let water = try await StorePressureNetwork.load(.water, from: store)
        let model = WaterModel(district)
        let mains = district[layer: "water_mains"].map(fid)
        var pick = Picker(state: 2026)
        var checked = 0, widened = 0
        for _ in 0..<60 where checked < 6 {
            let burst = mains[pick.next(mains.count)]
            // A burst whose valve-free segment holds the plant cannot be isolated from it.
            guard !model.segmentHoldsSource(model.valveFreeSegment(of: burst, failed: [])) else { continue }
            let report = try water.isolate(main: burst)
            try expectIsolates(report.isolation, burst: burst, failed: [], model: model)
            #expect(report.valves.count == report.isolation.valvesToClose.count)
            #expect(report.mains.count == report.isolation.mainsCutOff.count)
            checked += 1
            // A failed valve (one whose far node stays fed) widens what is cut off.
            let fedNodes = Set(water.network.nodes).subtracting(report.isolation.nodesCutOff)
            guard let failed = report.isolation.valvesToClose.first(where: { model.valves[$0].map { fedNodes.contains($0.node) } ?? false })
            else { continue }
            guard !model.segmentHoldsSource(model.valveFreeSegment(of: burst, failed: [failed])) else { continue }
            let wider = try water.isolate(main: burst, failedValves: [failed])
            try expectIsolates(wider.isolation, burst: burst, failed: [failed], model: model)
            #expect(wider.isolation.failedValvesPassed.contains(failed))
            #expect(!wider.isolation.valvesToClose.contains(failed))
            #expect(Set(wider.isolation.mainsCutOff).isSuperset(of: report.isolation.mainsCutOff))
            #expect(Set(wider.isolation.connectionsCutOff).isSuperset(of: report.isolation.connectionsCutOff))
            #expect(Set(wider.isolation.nodesCutOff).isStrictSuperset(of: report.isolation.nodesCutOff))
            widened += 1
        }
        #expect(checked == 6)
        #expect(widened > 0)
    }

    private func expectIsolates(_ i: MainIsolation, burst: String, failed: Set<String>, model: WaterModel) throws {
        let closed = Set(i.valvesToClose)
        #expect(closed.isDisjoint(with: failed))
        let fed = model.reachedMains(from: model.sources, closed: closed)
        #expect(!fed.contains(burst), "closing \(i.valvesToClose) leaves \(burst) connected to a source")
        #expect(i.segmentMains.contains(burst))
        let unfedMains = Set(model.mainEnds.keys).subtracting(fed)
        #expect(Set(i.mainsCutOff) == unfedMains)
        let unfedCustomers = Set(model.connectionMain.filter { !fed.contains($0.value) }.keys)
        #expect(Set(i.connectionsCutOff) == unfedCustomers)
        #expect(Set(i.criticalConnections).isSubset(of: i.connectionsCutOff))
    }

    @Test("a survey flow direction of - reverses a pipe, and a normally closed valve keeps its main dry")
    func surveyAttributes() async throws {
        let district = try UtilityDistrict.district.get()
        func like(_ layer: String, _ id: String, _ changes: [String: JSONValue]) throws -> Feature {
            var f = try #require(district[layer: layer].first)
            f.id = .string(id)
            f.properties.merge(changes) { $1 }
            return f
        }
        let store = try await UtilityDistrict.emptyStore(["drainage_manholes", "drainage_pipes", "drainage_outfalls",
                                                          "water_nodes", "water_mains", "water_valves", "water_connections"])
        try await store.insert(layer: "drainage_manholes", features: [try like("drainage_manholes", "J1", [:]),
                                                                      try like("drainage_manholes", "J2", [:])], by: .admin, at: nil)
        try await store.insert(layer: "drainage_outfalls", features: [try like("drainage_outfalls", "O1", [:])], by: .admin, at: nil)
        try await store.insert(layer: "drainage_pipes", features: [
            try like("drainage_pipes", "P1", ["upstream_node": "J1", "downstream_node": "J2", "flow_dir": "+"]),
            // Surveyed from the outfall end: it flows J2 → O1.
            try like("drainage_pipes", "P2", ["upstream_node": "O1", "downstream_node": "J2", "flow_dir": "-"]),
        ], by: .admin, at: nil)
        let drainage = try await StoreDrainageNetwork.load(from: store)
        #expect(try drainage.trace(from: "J1", direction: .downstream) == NetworkTrace(nodes: ["J1", "J2", "O1"], links: ["P1", "P2"]))
        #expect(try drainage.trace(from: "O1", direction: .downstream) == NetworkTrace(nodes: ["O1"], links: []))

        try await UtilityDistrict.insertSmallWaterNetwork(into: store)
        let water = try await StorePressureNetwork.load(.water, from: store)
        #expect(try water.trace(from: "S") == NetworkTrace(nodes: ["A", "S"], links: ["M1"]))
        let dry = try water.isolate(main: "M2")
        #expect(dry.isolation.valvesToClose.isEmpty)
        #expect(dry.isolation.segmentMains == ["M2"] && dry.isolation.nodesCutOff == ["B"])
        #expect(dry.isolation.connectionsCutOff == ["C2"] && dry.isolation.addressesToNotify == ["X2"])
        let burst = try water.isolate(main: "M1")
        #expect(burst.isolation.valvesToClose == ["V1"])
        #expect(burst.valves.map { fid($0) } == ["V1"])
        #expect(burst.isolation.connectionsCutOff == ["C1", "C2"])
    }

    @Test("the shared networks are read once and again when a layer changes: opening a normally closed valve changes the next isolation")
    func cachedNetworkFollowsEdits() async throws {
        let store = try await UtilityDistrict.emptyStore(["water_nodes", "water_mains", "water_valves", "water_connections"])
        try await UtilityDistrict.insertSmallWaterNetwork(into: store)
        let networks = StorePressureNetworks()
        // V2 is normally closed: M2 hangs dry off A, nothing to close for a burst on it.
        #expect(try await networks.network(.water, in: store, by: .admin).isolate(main: "M2").isolation.valvesToClose.isEmpty)
        #expect(try await networks.network(.water, in: store, by: .admin).isolate(main: "M2").isolation.valvesToClose.isEmpty)
        try await store.upsert(layer: "water_valves", features: [try UtilityDistrict.like("water_valves", "V2", ["main": "M2", "near_node": "A", "status": "常开"])],
                               by: .admin, at: nil)
        // Opened, it is the valve to close.
        let burst = try await networks.network(.water, in: store, by: .admin).isolate(main: "M2")
        #expect(burst.isolation.valvesToClose == ["V2"] && burst.isolation.connectionsCutOff == ["C2"])
    }

    @Test("connections supplying hospitals and shelters are critical, and a burst on their main names them")
    func criticalCustomers() async throws {
        let (store, district) = try await UtilityDistrict.store()
        let water = try await StorePressureNetwork.load(.water, from: store)
        // Each hospital stands in a building footprint (checked here by its bounding rectangle);
        // the connections at that building's address are critical.
        let buildings = district[layer: "buildings"]
        func codes(_ layer: String) -> Set<String> {
            var out: Set<String> = []
            for h in district[layer: layer] {
                guard case .point(let p)? = h.geometry, let at = p.position else { continue }
                let b = buildings.first { $0.geometry?.envelope?.contains(at) ?? false }
                if let code = b.flatMap({ text($0, "address_code") }) { out.insert(code) }
            }
            return out
        }
        let hospitalCodes = codes("hospitals"), shelterCodes = codes("shelters")
        #expect(!hospitalCodes.isEmpty && !shelterCodes.isEmpty)
        let connections = district[layer: "water_connections"]
        let expected = Set(connections.filter { hospitalCodes.contains(text($0, "address_code") ?? "") }.map(fid))
        let shelterExpected = Set(connections.filter { shelterCodes.contains(text($0, "address_code") ?? "") }.map(fid))
        #expect(!expected.isEmpty && !shelterExpected.isEmpty)
        let hospitalCustomers = Set(water.criticalCustomers.values.filter { $0.facilityLayer == "hospitals" }.map(\.connection))
        #expect(hospitalCustomers == expected)
        let byBuilding = Set(water.criticalCustomers.values.filter { $0.facilityLayer == "shelters" && $0.match == "building" }.map(\.connection))
        #expect(byBuilding == shelterExpected)
        #expect(water.criticalCustomers.values.allSatisfy { $0.match == "building" || $0.match == "address_point" })
        // Bursting the main a critical customer hangs on cuts it off and flags it.
        for id in expected.sorted().prefix(2) {
            guard let main = connections.first(where: { fid($0) == id }).flatMap({ text($0, "main") }) else { continue }
            let report = try water.isolate(main: main)
            #expect(report.isolation.criticalConnections.contains(id))
            #expect(report.critical.contains { $0.connection == id && $0.facilityLayer == "hospitals" })
            let json = try report.json()
            #expect(json["critical_customers"]?.arrayValue?.isEmpty == false)
            #expect(json["mains_cut_off_geojson"]?["type"] == "FeatureCollection")
            #expect(json["valves_to_close"]?.arrayValue?.allSatisfy { $0["lon"]?.doubleValue != nil } == true)
        }
        #expect(throws: UtilityNetworkError.self) { try water.isolate(main: "WM-0001", failedValves: ["WV-9999"]) }
    }
}
