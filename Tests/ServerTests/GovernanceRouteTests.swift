import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TwinStore

/// Issue 54 §5–6 over HTTP: a collection's quality report and its summary in the collection's
/// metadata; the sandbox's aggregates for departments, refusals (401, 403) audited.
@Suite("Quality and sandbox routes")
struct GovernanceRouteTests {
    @Test("GET /collections/{id}/quality reports every check; the collection's metadata then carries its summary")
    func quality() async throws {
        try await WritableAPI.run { api in
            let r = try await api.send(.get, "/collections/shelters/quality")
            #expect(r.status == .ok)
            let doc = try r.json
            #expect(doc.objectValue?["features"] == .integer(Int64(ServerFixture.shelterCount)))
            let checks = doc.objectValue?["checks"]?.arrayValue ?? []
            #expect(checks.compactMap { $0.objectValue?["check"]?.stringValue }
                    == ["geometry-validity", "completeness", "value-range", "code-list", "schema", "duplicate-geometries", "freshness", "outside-extent"])
            #expect(checks.allSatisfy { $0.objectValue?["count"] == .integer(0) })
            let collection = try await api.send(.get, "/collections/shelters?f=json").json
            let quality = collection.objectValue?["quality"]?.objectValue
            #expect(quality?["href"]?.stringValue == "http://test.local/collections/shelters/quality")
            #expect(quality?["summary"]?.objectValue?["issues"] == .integer(0))
            try expectProblem(try await api.send(.get, "/collections/shelters/quality?limit=0"), status: 400, type: "invalid-parameter", naming: "limit")
        }
    }

    @Test("POST /collections/{id}/aggregate answers departments with aggregates, refuses isolating queries, audits both")
    func sandbox() async throws {
        try await WritableAPI.run { api in
            let civil = api.token("民政局", .viewer)
            let count = #"{"aggregates": [{"op": "count"}, {"op": "sum", "property": "capacity"}, {"op": "max", "property": "capacity"}]}"#
            try expectProblem(try await api.send(.post, "/collections/shelters/aggregate", contentType: "application/json", body: count),
                              status: 401, type: "unauthorized")
            let answer = try await api.send(.post, "/collections/shelters/aggregate", token: civil, contentType: "application/json", body: count)
            #expect(answer.status == .ok)
            let total = try answer.json.objectValue?["total"]?.objectValue
            let capacities = ServerFixture.shelters.compactMap { $0.properties["capacity"]?.doubleValue }
            #expect(total?["count"] == .integer(Int64(ServerFixture.shelterCount)))
            #expect(total?["sum(capacity)"]?.doubleValue == capacities.reduce(0, +))
            #expect(total?["max(capacity)"]?.doubleValue == capacities.max())
            // A filter on a masked attribute singles people out; one well is fewer than k = 5.
            let masked = #"{"aggregates": [{"op": "count"}], "filter": "phone = '13812345678'"}"#
            let r1 = try await api.send(.post, "/collections/shelters/aggregate", token: civil, contentType: "application/json", body: masked)
            try expectProblem(r1, status: 403, type: "forbidden")
            let wells = try await api.send(.post, "/collections/wells/aggregate", token: civil, contentType: "application/json",
                                           body: #"{"aggregates": [{"op": "mean", "property": "depth_m"}]}"#)
            try expectProblem(wells, status: 403, type: "forbidden")
            #expect(try wells.json.objectValue?["detail"]?.stringValue?.contains("fewer than 5") == true)
            try expectProblem(try await api.send(.post, "/collections/shelters/aggregate", token: civil, contentType: "application/json",
                                                 body: #"{"aggregates": [{"op": "sum"}]}"#), status: 400, type: "invalid-parameter")
            let acts = try await api.audit("shelters").filter { !$0.kind.changesData }
            #expect(acts.map(\.kind) == [.access, .refused])
            #expect(acts.allSatisfy { $0.department == "民政局" })
            #expect(try await api.audit("wells").filter { !$0.kind.changesData }.map(\.kind) == [.refused])
        }
    }
}
