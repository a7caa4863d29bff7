import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Testing
import TwinStore

@Suite("Items: OGC API Features Part 4 writes with tokens, ETags and audit")
struct FeatureWriteTests {
    static let emergency = "应急管理局"
    static let newShelter = """
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.3201, 30.6102]},
         "properties": {"name": "新建避难所", "capacity": 250, "phone": "02788886666"}}
        """

    @Test("POST creates a feature with a server-assigned id, a Location, an ETag and an audit entry")
    func create() async throws {
        try await WritableAPI.run { api in
            let r = try await api.send(.post, "/collections/shelters/items", token: api.token(Self.emergency), body: Self.newShelter)
            #expect(r.status == .created)
            let location = try #require(r.headers[.location])
            #expect(location.hasPrefix("http://test.local/collections/shelters/items/"))
            let etag = try #require(r.headers[.eTag])
            #expect(etag.hasPrefix("\"") && etag.count == 66)
            let created = try r.json
            let id = try #require(created["id"]?.stringValue)
            #expect(location.hasSuffix("/" + id))
            // The feature is served at its Location with the same ETag.
            let read = try await api.client.get(relative(location), headers: WritableAPI.bearer(api.token(Self.emergency)))
            #expect(read.status == .ok)
            #expect(read.headers[.eTag] == etag)
            #expect(try read.json["properties"]?["capacity"]?.integerValue == 250)
            let entry = try #require(try await api.audit().last)
            #expect(entry.featureID == id)
            #expect(entry.kind == .insert)
            #expect(entry.department == Self.emergency)
            #expect(entry.actor == "测试员")
            #expect(entry.afterHash != nil)
        }
    }

    @Test("writing needs a token (401) of the owner department's editor (403)")
    func authorization() async throws {
        try await WritableAPI.run { api in
            let anonymous = try await api.send(.post, "/collections/shelters/items", body: Self.newShelter)
            try expectProblem(anonymous, status: 401, type: "unauthorized")
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let water = try await api.send(.post, "/collections/shelters/items", token: api.token("水务局"), body: Self.newShelter)
            try expectProblem(water, status: 403, type: "forbidden")
            let viewer = try await api.send(.delete, "/collections/shelters/items/s01", token: api.token(Self.emergency, .viewer))
            try expectProblem(viewer, status: 403, type: "forbidden")
            let anonymousDelete = try await api.send(.delete, "/collections/shelters/items/s01")
            try expectProblem(anonymousDelete, status: 401, type: "unauthorized")
            // Nothing was written by any of them.
            #expect(try await api.audit().count == ServerFixture.shelterCount)
            // A layer the department cannot see is not found rather than forbidden.
            let hidden = try await api.send(.delete, "/collections/wells/items/w1", token: api.token(Self.emergency))
            try expectProblem(hidden, status: 404, type: "collection-not-found")
        }
    }

    @Test("PUT replaces a feature, PATCH merges into it, DELETE ends it; each is audited")
    func replaceUpdateDelete() async throws {
        try await WritableAPI.run { api in
            let token = api.token(Self.emergency)
            let put = try await api.send(.put, "/collections/shelters/items/s03", token: token, body: """
                {"type": "Feature", "id": "s03", "geometry": {"type": "Point", "coordinates": [114.3333, 30.6111]},
                 "properties": {"name": "改建避难所", "capacity": 999}}
                """)
            #expect(put.status == .ok)
            #expect(try put.json["properties"] == ["name": "改建避难所", "capacity": 999])
            #expect(try put.json["geometry"]?["coordinates"] == [114.3333, 30.6111])

            let patch = try await api.send(.patch, "/collections/shelters/items/s03", token: token, contentType: "application/merge-patch+json",
                                           body: #"{"properties": {"capacity": 1000, "manager": "李四", "name": null}}"#)
            // `name` is required by the schema: removing it is a body error naming the path.
            try expectProblem(patch, status: 400, type: "invalid-feature", naming: "name")
            #expect(try patch.json["position"]?.stringValue == "$.properties.name")

            let patch2 = try await api.send(.patch, "/collections/shelters/items/s03", token: token, contentType: "application/merge-patch+json",
                                            body: #"{"properties": {"capacity": 1000, "manager": "李四"}, "geometry": {"type": "Point", "coordinates": [114.34, 30.62]}}"#)
            #expect(patch2.status == .ok)
            let patched = try patch2.json
            #expect(patched["properties"] == ["name": "改建避难所", "capacity": 1000, "manager": "李四"])
            #expect(patched["geometry"]?["coordinates"] == [114.34, 30.62])

            let unset = try await api.send(.patch, "/collections/shelters/items/s03", token: token, contentType: "application/merge-patch+json",
                                           body: #"{"properties": {"manager": null}}"#)
            #expect(try unset.json["properties"] == ["name": "改建避难所", "capacity": 1000], "\(unset.status) \(unset.text)")

            let delete = try await api.send(.delete, "/collections/shelters/items/s03", token: token)
            #expect(delete.status == .noContent)
            #expect(delete.body.readableBytes == 0)
            try expectProblem(try await api.client.get("/collections/shelters/items/s03"), status: 404, type: "feature-not-found")

            let kinds = try await api.audit().filter { $0.featureID == "s03" }.map(\.kind)
            #expect(kinds == [.insert, .update, .update, .update, .delete])
            // The history keeps every version.
            let versions = try await api.store.history(layer: "shelters", featureID: "s03", by: .admin)
            #expect(versions.count == 4)
            #expect(versions.allSatisfy { $0.validTo != nil })
        }
    }

    @Test("PUT and PATCH of a missing feature are 404; a changed id or a bad body is a 400 naming the JSON path")
    func badWrites() async throws {
        try await WritableAPI.run { api in
            let token = api.token(Self.emergency)
            try expectProblem(try await api.send(.put, "/collections/shelters/items/nope", token: token, body: Self.newShelter),
                              status: 404, type: "feature-not-found")
            try expectProblem(try await api.send(.patch, "/collections/shelters/items/nope", token: token,
                                                 contentType: "application/merge-patch+json", body: "{}"),
                              status: 404, type: "feature-not-found")
            try expectProblem(try await api.send(.delete, "/collections/shelters/items/nope", token: token),
                              status: 404, type: "feature-not-found")
            let idChange = try await api.send(.patch, "/collections/shelters/items/s01", token: token,
                                              contentType: "application/merge-patch+json", body: #"{"id": "s99"}"#)
            try expectProblem(idChange, status: 400, type: "invalid-body", naming: "$.id")
            let badGeometry = try await api.send(.post, "/collections/shelters/items", token: token, body: """
                {"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.3]}, "properties": {"name": "x"}}
                """)
            try expectProblem(badGeometry, status: 400, type: "invalid-body", naming: "$.geometry.coordinates")
            let wrongType = try await api.send(.post, "/collections/shelters/items", token: token, body: """
                {"type": "Feature", "geometry": null, "properties": {"name": "x", "capacity": "many"}}
                """)
            try expectProblem(wrongType, status: 400, type: "invalid-feature", naming: "capacity")
            #expect(try wrongType.json["position"]?.stringValue == "$.properties.capacity")
            let patchGeometry = try await api.send(.patch, "/collections/shelters/items/s01", token: token,
                                                   contentType: "application/merge-patch+json",
                                                   body: #"{"geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0]]]}}"#)
            try expectProblem(patchGeometry, status: 400, type: "invalid-body", naming: "$.geometry")
            let collection = try await api.send(.post, "/collections/shelters/items", token: token,
                                                body: #"{"type": "FeatureCollection", "features": []}"#)
            try expectProblem(collection, status: 400, type: "invalid-body", naming: "Feature")
            let text = try await api.send(.post, "/collections/shelters/items", token: token, contentType: "text/plain", body: "hello")
            try expectProblem(text, status: 415, type: "unsupported-media-type")
            let duplicate = try await api.send(.post, "/collections/shelters/items", token: token, body: """
                {"type": "Feature", "id": "s01", "geometry": null, "properties": {"name": "x"}}
                """)
            try expectProblem(duplicate, status: 409, type: "conflict")
            #expect(try await api.audit().count == ServerFixture.shelterCount)
        }
    }

    @Test("If-Match: the current ETag lets a write through, a stale one or a missing feature is 412")
    func optimisticLocking() async throws {
        try await WritableAPI.run { api in
            let token = api.token(Self.emergency)
            let read = try await api.client.get("/collections/shelters/items/s05", headers: WritableAPI.bearer(token))
            let etag = try #require(read.headers[.eTag])
            // The public sees masked values, so its tag differs from the owner's.
            let publicTag = try await api.client.get("/collections/shelters/items/s05").headers[.eTag]
            #expect(publicTag != nil && publicTag != etag)

            let first = try await api.send(.patch, "/collections/shelters/items/s05", token: token, contentType: "application/merge-patch+json",
                                           headers: [.ifMatch: etag], body: #"{"properties": {"capacity": 1}}"#)
            #expect(first.status == .ok)
            let newTag = try #require(first.headers[.eTag])
            #expect(newTag != etag)

            let stale = try await api.send(.patch, "/collections/shelters/items/s05", token: token, contentType: "application/merge-patch+json",
                                           headers: [.ifMatch: etag], body: #"{"properties": {"capacity": 2}}"#)
            try expectProblem(stale, status: 412, type: "precondition-failed")
            let staleDelete = try await api.send(.delete, "/collections/shelters/items/s05", token: token, headers: [.ifMatch: etag])
            try expectProblem(staleDelete, status: 412, type: "precondition-failed")
            let weak = try await api.send(.delete, "/collections/shelters/items/s05", token: token, headers: [.ifMatch: "W/" + newTag])
            try expectProblem(weak, status: 412, type: "precondition-failed")
            let missing = try await api.send(.put, "/collections/shelters/items/nope", token: token, headers: [.ifMatch: "*"],
                                             body: Self.newShelter)
            try expectProblem(missing, status: 412, type: "precondition-failed")

            let current = try await api.send(.put, "/collections/shelters/items/s05", token: token, headers: [.ifMatch: "\"x\", \(newTag)"],
                                             body: Self.newShelter)
            #expect(current.status == .ok)
            #expect(try await api.client.get("/collections/shelters/items/s05", headers: WritableAPI.bearer(token)).headers[.eTag]
                    == current.headers[.eTag])
            let kinds = try await api.audit().filter { $0.featureID == "s05" }.map(\.kind)
            #expect(kinds == [.insert, .update, .update])
        }
    }

    @Test("two servers on one store (processes behind a load balancer) PATCH one feature at the same time: each patch applies to the feature as stored, none is lost; of two holding one If-Match tag, one gets through")
    func patchesThroughTwoServers() async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await ServerFixture.withStore { store in
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let options = ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority)
            // Each server has its own in-process write queue, as separate processes do.
            let one = CityTwinServer(store: store, options: options), other = CityTwinServer(store: store, options: options)
            try await one.makeApplication().test(.router) { a in
                try await other.makeApplication().test(.router) { b in
                    let token = authority.issue(TokenClaims(department: Self.emergency, role: .editor, subject: "测试员", lifetime: 3600))
                    func patch(_ client: any TestClientProtocol, _ body: String, _ headers: HTTPFields = [:]) async throws -> TestResponse {
                        var h = headers
                        h[.authorization] = "Bearer \(token)"
                        h[.contentType] = "application/merge-patch+json"
                        return try await client.execute(uri: "/collections/shelters/items/s05", method: .patch, headers: h, body: ByteBuffer(string: body))
                    }
                    for round in 0..<12 {
                        async let named = patch(a, #"{"properties": {"name": "避难所 \#(round)"}}"#)
                        async let sized = patch(b, #"{"properties": {"capacity": \#(1000 + round)}}"#)
                        let (r1, r2) = try await (named, sized)
                        #expect(r1.status == .ok && r2.status == .ok)
                        let stored = try #require(try await store.feature(layer: "shelters", id: "s05", by: .admin))
                        #expect(stored.properties["name"] == .string("避难所 \(round)") && stored.properties["capacity"] == .integer(Int64(1000 + round)),
                                "round \(round): \(stored.properties)")
                    }
                    // A tag read through one server, the feature changed through the other: 412 through either.
                    let tag = try #require(try await a.execute(uri: "/collections/shelters/items/s05", method: .get,
                                                               headers: [.authorization: "Bearer \(token)"]).headers[.eTag])
                    #expect(try await patch(b, #"{"properties": {"capacity": 7}}"#).status == .ok)
                    try expectProblem(try await patch(a, #"{"properties": {"capacity": 8}}"#, [.ifMatch: tag]), status: 412, type: "precondition-failed")
                    #expect(try await store.feature(layer: "shelters", id: "s05", by: .admin)?.properties["capacity"] == 7)
                    // Two writers holding the same tag at the same time: exactly one gets through.
                    for round in 0..<8 {
                        let current = try #require(try await a.execute(uri: "/collections/shelters/items/s05", method: .get,
                                                                       headers: [.authorization: "Bearer \(token)"]).headers[.eTag])
                        async let first = patch(a, #"{"properties": {"capacity": \#(2000 + round)}}"#, [.ifMatch: current])
                        async let second = patch(b, #"{"properties": {"capacity": \#(3000 + round)}}"#, [.ifMatch: current])
                        let statuses = try await [first.status.code, second.status.code].sorted()
                        #expect(statuses == [200, 412], "round \(round)")
                    }
                }
            }
        }
    }

    @Test("a body in EPSG:4547 (northing, easting in metres) lands at Hankou's lon/lat")
    func contentCRS() async throws {
        try await WritableAPI.run { api in
            let token = api.token(Self.emergency)
            // PROJ's worked example (tiles-and-crs.md §4): N 3,385,869.45 m, E 529,299.86 m.
            let r = try await api.send(.post, "/collections/shelters/items", token: token,
                                       headers: [.init("Content-Crs")!: "<http://www.opengis.net/def/crs/EPSG/0/4547>"],
                                       body: """
                {"type": "Feature", "id": "gk", "geometry": {"type": "Point", "coordinates": [3385869.45, 529299.86]},
                 "properties": {"name": "高斯-克吕格"}}
                """)
            #expect(r.status == .created)
            let stored = try #require(try await api.store.feature(layer: "shelters", id: "gk", by: .admin))
            guard case .point(let point)? = stored.geometry, let p = point.position else {
                Issue.record("expected a point, got \(String(describing: stored.geometry))")
                return
            }
            #expect(abs(p.x - ServerFixture.hankou.x) < 1e-7, "longitude \(p.x)")
            #expect(abs(p.y - ServerFixture.hankou.y) < 1e-7, "latitude \(p.y)")
            // EPSG:4490 bodies are latitude first.
            let lat = try await api.send(.patch, "/collections/shelters/items/gk", token: token, contentType: "application/merge-patch+json",
                                         headers: [.init("Content-Crs")!: "<http://www.opengis.net/def/crs/EPSG/0/4490>"],
                                         body: #"{"geometry": {"type": "Point", "coordinates": [30.6, 114.3]}}"#)
            #expect(try lat.json["geometry"]?["coordinates"] == [114.3, 30.6])
            let unknown = try await api.send(.post, "/collections/shelters/items", token: token,
                                             headers: [.init("Content-Crs")!: "<EPSG:999999>"], body: Self.newShelter)
            try expectProblem(unknown, status: 400, type: "invalid-crs", naming: "Content-Crs")
        }
    }
}
