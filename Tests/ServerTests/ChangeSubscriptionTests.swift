import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
@testable import Server
import HTTPTypes
import Logging
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

    /// Runs `body` against a live server (requests from 127.0.0.1) over a fresh store, with `limits`.
    static func live(_ limits: RequestLimits = RequestLimits(),
                     _ body: @Sendable (_ base: String, _ store: SpatiaLiteStore) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger,
                                                                             tokenVerifier: RequestLimitTests.authority, limits: limits))
            try await server.makeApplication(address: .hostname("127.0.0.1", port: 0)).test(.live) { client in
                try await body("http://127.0.0.1:\(try #require(client.port))", store)
            }
        }
    }

    @Test("event streams are counted per address and per token: one more than the bound is 429 too-many-streams with Retry-After (2,000 anonymous streams were taken from one address)")
    func streamsCounted() async throws {
        try await Self.live(RequestLimits(tokenStreams: 2, addressStreams: 3)) { base, _ in
            let endpoint = HTTPEndpoint(baseURL: base)
            let anonymous = try await (0..<3).asyncMap { _ in try await EventStreamReader.open(base + "/changes") }
            defer { anonymous.forEach { $0.close() } }
            for s in anonymous { try await s.waitFor("event: position") }
            let refused = try #require(try await endpoint.http("/collections/shelters/changes", within: 30), "a fourth stream of the address was taken")
            #expect(refused.status == 429 && refused.headers["retry-after"] != nil, "\(refused.status) \(refused.headers)")
            #expect(refused.headers["content-type"] == "application/problem+json" && refused.body.contains("too-many-streams")
                    && refused.body.contains("--address-streams"), "\(refused.body)")
            // A token is counted as itself, however its header is spelt (HTTP Basic with any user name).
            let token = RequestLimitTests.token()
            func basic(_ user: String) -> String { "Authorization: Basic " + Data("\(user):\(token)".utf8).base64EncodedString() }
            let signed = try await ["a", "b"].asyncMap { try await EventStreamReader.open(base + "/changes", headers: [basic($0)]) }
            defer { signed.forEach { $0.close() } }
            for s in signed { try await s.waitFor("event: position") }
            let third = try #require(try await endpoint.http("/changes", headers: [basic("c")], within: 30), "a third stream of the token was taken")
            #expect(third.status == 429 && third.body.contains("--token-streams"), "\(third.status) \(third.body)")
            // A closed stream frees its place: the server notices at a heartbeat's write (every 15 s; the
            // first write after the peer closed may still be taken by the socket, the next fails), so
            // within two heartbeats and room for a loaded machine.
            anonymous[0].close()
            try await OutageHarness.eventually("a stream's place is free again once it is closed", within: 75) {
                let next = try await EventStreamReader.open(base + "/changes")
                defer { next.close() }
                try? await next.waitFor("event: position", within: 5)
                return next.text.contains("event: position")
            }
        }
    }

    @Test("the feed is read once per change for every stream, and each event written once per access class (each of 2,000 streams read and wrote every change itself)")
    func feedFannedOut() async throws {
        try await Self.live(RequestLimits(addressStreams: 0)) { base, store in
            let streams = try await (0..<12).asyncMap { i in try await EventStreamReader.open(base + (i % 2 == 0 ? "/changes" : "/collections/shelters/changes")) }
            defer { streams.forEach { $0.close() } }
            for s in streams { try await s.waitFor("event: position") }
            let endpoint = HTTPEndpoint(baseURL: base)
            func value(_ metrics: String, _ name: String, _ reader: String) -> Int? {
                metrics.split(separator: "\n").first { $0.hasPrefix("\(name){reader=\"\(reader)\"}") }
                    .flatMap { $0.split(separator: " ").last }.flatMap { Int(Double($0) ?? -1) }
            }
            // Every stream has read the feed up to its end by itself (its one read as it starts).
            try await OutageHarness.eventually("each stream has caught up by itself", within: 60) {
                value(try await endpoint.http("/metrics").body, "citytwin_change_feed_reads_total", "stream") == 12
            }
            for capacity in [301, 302, 303] {
                var s03 = try #require(try await store.feature(layer: "shelters", id: "s03", by: Self.emergency))
                s03.properties["capacity"] = .integer(Int64(capacity))
                try await store.upsert(layer: "shelters", features: [s03], by: Self.emergency, at: nil)
                for s in streams { try await s.waitFor("\"capacity\":\(capacity)") }
            }
            for s in streams { #expect(!s.text.contains("13812345678"), "masked as the public sees it") }
            let metrics = try await endpoint.http("/metrics").body
            // Three updates, one access class (the public): three events written in all, none by a stream itself.
            #expect(value(metrics, "citytwin_change_events_serialised_total", "shared") == 3, "\(metrics)")
            #expect(value(metrics, "citytwin_change_events_serialised_total", "stream") ?? 0 == 0, "\(metrics)")
            // No stream read the feed again: only the shared reading did, about once a write.
            #expect(value(metrics, "citytwin_change_feed_reads_total", "stream") == 12, "\(metrics)")
            #expect((value(metrics, "citytwin_change_feed_reads_total", "shared") ?? 0) <= 6, "\(metrics)")
        }
    }

    @Test("a layer secret to the caller is invisible in its stream: writes to the not-shared wells send an anonymous stream nothing, not even a position, and do not move where a new stream starts")
    func secretLayersInvisible() async throws {
        try await Self.live { base, store in
            let anonymous = try await EventStreamReader.open(base + "/changes")
            defer { anonymous.close() }
            try await anonymous.waitFor("event: position")
            let start = try #require(anonymous.text.split(separator: "\n").first { $0.hasPrefix("id: ") })
            for i in 0..<5 {
                try await store.insert(layer: "wells", features: [
                    Feature(id: .string("secret-\(i)"), geometry: .point(x: 114.32 + Double(i) * 0.001, y: 30.61), properties: ["depth_m": 10.0]),
                ], by: ServerFixture.water, at: nil)
            }
            // The owner's stream sees them (the feed has moved on).
            let owner = try await EventStreamReader.open(base + "/changes?since=0", headers: ["Authorization: Bearer \(RequestLimitTests.authority.issue(TokenClaims(department: "水务局", role: .viewer, subject: nil, lifetime: 600)))"])
            defer { owner.close() }
            try await owner.waitFor("\"id\":\"secret-4\"")
            // A new anonymous stream starts where the first did: the secret writes moved nothing it sees.
            let later = try await EventStreamReader.open(base + "/changes")
            defer { later.close() }
            try await later.waitFor("event: position")
            #expect(later.text.split(separator: "\n").first { $0.hasPrefix("id: ") } == start, "\(later.text)")
            // Then a public change: the first stream's next message is its event, with nothing before it.
            var s03 = try #require(try await store.feature(layer: "shelters", id: "s03", by: Self.emergency))
            s03.properties["capacity"] = 404
            try await store.upsert(layer: "shelters", features: [s03], by: Self.emergency, at: nil)
            try await anonymous.waitFor("\"capacity\":404")
            let events = anonymous.text.split(separator: "\n").filter { $0.hasPrefix("event: ") }
            #expect(events == ["event: position", "event: update"], "\(anonymous.text)")
            #expect(!anonymous.text.contains("wells") && !anonymous.text.contains("secret-"))
        }
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

extension Sequence {
    /// `map` with an asynchronous transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out = [T]()
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
