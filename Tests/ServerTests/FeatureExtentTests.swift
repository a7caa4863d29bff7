import Foundation
import GeoCore
import HummingbirdTesting
import Server
import Testing
import TwinStore

/// Issue 58 §5: a shelter placed in Beijing was stored in a Wuhan catalogue.
@Suite("Items: writes checked against the city's extent")
struct FeatureExtentTests {
    static let beijing = """
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [116.4074, 39.9042]},
         "properties": {"name": "北京的避难所", "capacity": 250}}
        """

    @Test("a feature far outside the catalogue's extent is a 400 naming $.geometry and the extent allowed; allowOutsideExtent=true writes it; PATCH and PUT are checked too")
    func outsideExtent() async throws {
        try await WritableAPI.run { api in
            let token = api.token(FeatureWriteTests.emergency)
            let refused = try await api.send(.post, "/collections/shelters/items", token: token, body: Self.beijing)
            try expectProblem(refused, status: 400, type: "invalid-body", naming: "$.geometry")
            let detail = try refused.json["detail"]?.stringValue ?? ""
            #expect(detail.contains("[116.4074, 39.9042] lies outside the city's extent") && detail.contains("widened by 10 km")
                    && detail.contains("allowOutsideExtent=true"), "\(detail)")
            #expect(try refused.json["position"] == "$.geometry")
            #expect(try await api.audit().count == ServerFixture.shelterCount, "nothing written")

            // Moving a feature there is refused the same way; its properties alone may still change.
            let moved = try await api.send(.patch, "/collections/shelters/items/s03", token: token, contentType: "application/merge-patch+json",
                                           body: #"{"geometry": {"type": "Point", "coordinates": [116.4074, 39.9042]}}"#)
            try expectProblem(moved, status: 400, type: "invalid-body", naming: "$.geometry")
            let renamed = try await api.send(.patch, "/collections/shelters/items/s03", token: token, contentType: "application/merge-patch+json",
                                             body: #"{"properties": {"capacity": 90}}"#)
            #expect(renamed.status == .ok, "\(renamed.text)")
            let replaced = try await api.send(.put, "/collections/shelters/items/s04", token: token, body: Self.beijing)
            try expectProblem(replaced, status: 400, type: "invalid-body", naming: "$.geometry")

            // Near the city (within the margin) is fine; data that really lies far away is written when the writer says so.
            let near = try await api.send(.post, "/collections/shelters/items", token: token, body: """
                {"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.39, 30.64]}, "properties": {"name": "近郊", "capacity": 10}}
                """)
            #expect(near.status == .created, "\(near.text)")
            let bad = try await api.send(.post, "/collections/shelters/items?allowOutsideExtent=yes", token: token, body: Self.beijing)
            try expectProblem(bad, status: 400, type: "invalid-parameter", naming: "allowOutsideExtent")
            let allowed = try await api.send(.post, "/collections/shelters/items?allowOutsideExtent=true", token: token, body: Self.beijing)
            #expect(allowed.status == .created, "\(allowed.text)")
            #expect(try allowed.json["geometry"]?["coordinates"] == [116.4074, 39.9042])
        }
    }
}
