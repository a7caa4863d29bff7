import Foundation
import GeoCore
import Sensing
@testable import Server
import TestSupport
import Testing
import TwinStore

/// `/alerts/events` follows the store's change feed, so an alert reaches its subscribers whoever
/// wrote it: the server's threshold monitor or a flood nowcast run by a job worker in another process.
@Suite("Alert feed: alerts written to the store are pushed")
struct AlertFeedTests {
    static func alert(_ id: String, level: String) -> Feature {
        Feature(id: .string(id), geometry: .point(Point(Position(x: 114.8, y: 30.84))), properties: [
            "source": "flood-nowcast", "scenario": "nowcast-p50-waterlogging", "road_id": "R-1", "level": .string(level),
            "value": 0.21, "phenomenonTime": "2026-07-01T08:10:00Z", "raised_at": "2026-07-01T08:12:00Z", "cleared_at": .null,
        ])
    }

    /// The next non-heartbeat item of `stream`, or nil after `seconds`.
    static func next(_ stream: AsyncStream<Feature?>, within seconds: Double) async -> Feature? {
        await withTaskGroup(of: Feature?.self) { group in
            group.addTask {
                for await item in stream { if let item { return item } }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test("a subscriber gets the alerts written after it subscribed, and not those before")
    func pushesStoreWrites() async throws {
        try await withTemporaryDirectory("alertfeed") { dir in
            let store = try dir.openStore()
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("iot_devices.json"))))
            try await SensingAlerts.ensureLayer(in: store)
            try await store.upsert(layer: SensingAlerts.layer, features: [Self.alert("before", level: "warning")], by: .admin, at: nil)

            let feed = AlertFeed(store: store, heartbeat: .seconds(60), poll: .milliseconds(50))
            let stream = try await feed.subscribe()
            #expect(feed.subscriberCount == 1)
            try await store.upsert(layer: SensingAlerts.layer, features: [Self.alert("after", level: "danger")], by: .admin, at: nil)
            // Arrival, not speed (the poll is 50 ms here; latency is measured, not asserted: a loaded
            // machine stretches it): the generous wait only bounds a feed that never sends.
            let pushed = await Self.next(stream, within: 30)
            #expect(pushed?.id == .string("after"), "the alert written before subscribing is not sent")
            #expect(pushed?.properties["level"] == "danger")

            // Another process on the same store (a job worker running a nowcast) creates a layer this
            // one has never seen, writes more than a page of its features, then an alert: pushed all the same.
            let worker = try dir.openStore()
            var def = try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("iot_devices.json")))
            def.id = "worker_results"
            try await worker.createLayer(def)
            let many = (0..<1200).map { i in
                Feature(id: .string("W-\(i)"), geometry: .point(Point(Position(x: 114.8, y: 30.84))), properties: [
                    "name": "x", "kind": "水位计", "quantity": "水位", "unit": "m", "target_layer": "river_gauges", "target": "GA-01", "status": "在线",
                ])
            }
            try await worker.insert(layer: "worker_results", features: many, by: .admin, at: nil)
            try await worker.upsert(layer: SensingAlerts.layer, features: [Self.alert("from-worker", level: "warning")], by: .admin, at: nil)
            #expect(await Self.next(stream, within: 30)?.id == .string("from-worker"))
        }
    }
}
