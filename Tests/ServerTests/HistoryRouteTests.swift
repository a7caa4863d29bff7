import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TwinStore

/// A feature's history, a layer's diff between two instants and its audit trail over HTTP.
@Suite("History, diff and audit routes")
struct HistoryRouteTests {
    static let emergency = "应急管理局"

    @Test("an edited feature's versions, the diff around the edit, and the audit trail for its owner only")
    func historyDiffAudit() async throws {
        try await WritableAPI.run { api in
            let token = api.token(Self.emergency)
            let before = Date()
            try await Task.sleep(for: .milliseconds(20))
            let put = try await api.send(.put, "/collections/shelters/items/s03", token: token, body: """
                {"type": "Feature", "id": "s03", "geometry": {"type": "Point", "coordinates": [114.3333, 30.6111]},
                 "properties": {"name": "改建避难所", "capacity": 999}}
                """)
            #expect(put.status == .ok)
            let history = try await api.client.get("/collections/shelters/items/s03/history", headers: WritableAPI.bearer(token)).json
            let versions = try #require(history["versions"]?.arrayValue)
            #expect(versions.count == 2)
            #expect(versions.first?["valid_to"] != .null && versions.last?["valid_to"] == .null)
            #expect(versions.last?["feature"]?["properties"]?["capacity"] == 999)
            #expect(versions.last?["department"]?.stringValue == Self.emergency)
            try expectProblem(try await api.client.get("/collections/shelters/items/nope/history"), status: 404, type: "feature-not-found")

            let from = before.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            let diff = try await api.client.get("/collections/shelters/diff?from=\(from)").json
            #expect(diff["changed"] == ["s03"] && diff["added"] == [] && diff["removed"] == [], "\(diff)")
            try expectProblem(try await api.client.get("/collections/shelters/diff"), status: 400, type: "invalid-parameter", naming: "from")
            try expectProblem(try await api.client.get("/collections/shelters/diff?from=yesterday"), status: 400, type: "invalid-parameter", naming: "from")

            let audit = try await api.client.get("/collections/shelters/audit", headers: WritableAPI.bearer(token)).json
            let entries = try #require(audit["entries"]?.arrayValue)
            #expect(entries.contains { $0["feature"] == "s03" && $0["kind"] == "update" && $0["entry_hash"]?.stringValue?.isEmpty == false })
            let anonymous = try await api.client.get("/collections/shelters/audit")
            #expect(anonymous.status == .unauthorized, "\(anonymous.status) \(anonymous.text)")
            #expect(try await api.client.get("/collections/shelters/audit", headers: WritableAPI.bearer(api.token("公安局"))).status == .forbidden)
        }
    }
}
