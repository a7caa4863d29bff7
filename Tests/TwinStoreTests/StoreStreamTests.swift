import Foundation
import GeoCore
import Testing
import TwinStore

@Suite("Streaming large results in bounded chunks", .dropsTestSchemas)
struct StoreStreamTests {
    @Test(arguments: StoreBackend.available)
    func twentyThousandFeaturesStreamOnceEachInOrder(backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let n = 20_000
        var features = [Feature]()
        features.reserveCapacity(n)
        for i in 0..<n {
            let x: Double = 114.0 + Double(i % 200) * 0.001
            let y: Double = 30.0 + Double(i / 200) * 0.001
            let props: [String: JSONValue] = ["name": .string("点\(i)"), "kind": "紧急", "capacity": .integer(Int64(i % 7))]
            features.append(Feature(id: .string(String(format: "p%05d", i)), geometry: .point(x: x, y: y), properties: props))
        }
        try await store.insert(layer: "shelters", features: features, by: Fixtures.emergency, at: nil)
        var seen = 0
        var previous = ""
        var unique = Set<String>()
        for try await f in store.stream(layer: "shelters", FeatureQuery(limit: 1_000), by: .admin) {
            let id = f.id?.description ?? ""
            #expect(id > previous)
            previous = id
            unique.insert(id)
            seen += 1
        }
        #expect(seen == n)
        #expect(unique.count == n)
        // A filtered, sorted stream agrees with count.
        let q = FeatureQuery(filter: .comparison(.equal, "capacity", .literal(3)), sortBy: [SortKey("capacity")], limit: 500)
        var filtered = 0
        for try await _ in store.stream(layer: "shelters", q, by: .anonymous) { filtered += 1 }
        #expect(filtered == (0..<n).filter { $0 % 7 == 3 }.count)
        #expect(try await store.count(layer: "shelters", q, by: .anonymous) == filtered)
    }

    @Test func everyConnectionHasSpatiaLite() async throws {
        let store = try #require(try await StoreBackend.spatiaLite.makeStore(layers: []) as? SpatiaLiteStore)
        // Several concurrent reads use several reader connections; each must know spatialite_version().
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await store.spatialiteVersion() } }
            for try await v in group { #expect(v.hasPrefix("5.")) }
        }
    }
}
