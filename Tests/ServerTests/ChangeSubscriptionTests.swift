import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
@testable import Server
import TestSupport
import Testing
import TwinStore

/// The change subscription's pages (what `/changes` streams) and its refusals. The stream itself
/// is followed by a second process in Tests/Clients/test_change_subscription.py.
@Suite("Change subscription", .temporaryDirectories)
struct ChangeSubscriptionTests {
    static let emergency = ServerFixture.owner

    @Test("an anonymous subscriber gets the open layer's changes, masked, and nothing of a hidden layer")
    func accessIsTheCallers() async throws {
        let store = try await ServerFixture.makeStore(in: .forTestCase("citytwin-server"))
        let start = try await store.latestChange()
        try await store.upsert(layer: "wells", features: [
            Feature(id: .string("w2"), geometry: .point(x: 114.33, y: 30.62), properties: ["depth_m": 55.0]),
        ], by: ServerFixture.water, at: nil)
        var s03 = try #require(try await store.feature(layer: "shelters", id: "s03", by: Self.emergency))
        s03.properties["capacity"] = 777
        try await store.upsert(layer: "shelters", features: [s03], by: Self.emergency, at: nil)
        try await store.delete(layer: "shelters", ids: ["s04"], by: Self.emergency, at: nil)

        let everything = ChangeSubscription(store: store, caller: .anonymous, layers: nil)
        let page = try await everything.page(after: start)
        #expect(page.messages.map(\.event.layer) == ["shelters", "shelters"], "the not-shared wells never leave")
        #expect(page.messages.map(\.event.kind) == [.update, .delete])
        let sent = try #require(page.messages.first?.feature)
        #expect(sent.properties["capacity"] == 777)
        #expect(sent.properties["phone"] == "138****5678" && sent.properties["manager"] != "张三", "masked as the public sees it: \(sent.properties)")
        let text = ChangeSubscription.eventText(page.messages[0])
        #expect(text.hasPrefix("id: \(page.messages[0].event.sequence)\nevent: update\ndata: {") && text.hasSuffix("}\n\n"))
        #expect(!text.contains("13812345678") && !text.contains("张三"))
        #expect(page.messages[1].feature == nil)

        let water = ChangeSubscription(store: store, caller: ServerFixture.water, layers: ["wells"])
        let wells = try await water.page(after: start)
        #expect(wells.messages.map(\.event.featureID) == ["w2"] && wells.messages.first?.feature?.properties["depth_m"] == 55.0)
    }

    @Test("a subscriber walks past pages of changes it may not read without skipping the next one it may")
    func hiddenPagesAreSkippedNotTheEventAfter() async throws {
        let store = try await ServerFixture.makeStore(in: .forTestCase("citytwin-server"))
        let start = try await store.latestChange()
        for i in 0..<12 {
            try await store.insert(layer: "wells", features: [
                Feature(id: .string("h\(i)"), geometry: .point(x: 114.3 + Double(i) * 0.001, y: 30.6), properties: ["depth_m": 1.0]),
            ], by: ServerFixture.water, at: nil)
        }
        var s01 = try #require(try await store.feature(layer: "shelters", id: "s01", by: Self.emergency))
        s01.properties["name"] = "改名"
        try await store.upsert(layer: "shelters", features: [s01], by: Self.emergency, at: nil)

        var subscription = ChangeSubscription(store: store, caller: .anonymous, layers: ["shelters"])
        subscription.pageSize = 5
        var cursor = start, seen = [ChangeSubscription.Message](), pages = 0
        while true {
            let page = try await subscription.page(after: cursor)
            seen += page.messages
            #expect(page.cursor >= cursor)
            cursor = page.cursor
            pages += 1
            if !page.more && page.messages.isEmpty || pages > 20 { break }
        }
        #expect(seen.map(\.event.featureID) == ["s01"] && seen.first?.feature?.properties["name"] == "改名")
        #expect(cursor == (try await store.latestChange()))
    }

    @Test("a feature deleted after its update is sent as null, so the copy ends without it")
    func deletedSinceIsNull() async throws {
        let store = try await ServerFixture.makeStore(in: .forTestCase("citytwin-server"))
        let start = try await store.latestChange()
        var s05 = try #require(try await store.feature(layer: "shelters", id: "s05", by: Self.emergency))
        s05.properties["capacity"] = 1
        try await store.upsert(layer: "shelters", features: [s05], by: Self.emergency, at: nil)
        try await store.delete(layer: "shelters", ids: ["s05"], by: Self.emergency, at: nil)
        let page = try await ChangeSubscription(store: store, caller: Self.emergency, layers: nil).page(after: start)
        #expect(page.messages.map(\.event.kind) == [.update, .delete])
        #expect(page.messages.allSatisfy { $0.feature == nil })
    }

    @Test("bad resume points and unknown collections are problems naming what is wrong")
    func refusals() async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/shelters/changes?since=yesterday"), status: 400, type: "invalid-parameter", naming: "since")
            try expectProblem(try await client.get("/collections/shelters/changes?since=-3"), status: 400, type: "invalid-parameter", naming: "since")
            try expectProblem(try await client.get("/collections/shelters/changes?since=999999999"), status: 400, type: "invalid-parameter", naming: "since")
            try expectProblem(try await client.execute(uri: "/collections/shelters/changes", method: .get, headers: [.lastEventID: "abc"]),
                              status: 400, type: "invalid-parameter", naming: "Last-Event-ID")
            try expectProblem(try await client.get("/collections/wells/changes"), status: 404, type: "collection-not-found")
            try expectProblem(try await client.get("/changes?collections=wells"), status: 400, type: "invalid-parameter", naming: "collections")
            try expectProblem(try await client.get("/changes?limit=3"), status: 400, type: "unknown-parameter", naming: "limit")
        }
    }
}
