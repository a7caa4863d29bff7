import HummingbirdTesting
import Server
import Testing

@Suite("Unknown resources are 404 problems")
struct NotFoundTests {
    @Test("unknown collection, feature and route")
    func notFound() async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/collections/nope"), status: 404, type: "collection-not-found", naming: "nope")
            try expectProblem(try await client.get("/collections/nope/items"), status: 404, type: "collection-not-found")
            try expectProblem(try await client.get("/collections/shelters/items/nope"), status: 404, type: "feature-not-found", naming: "nope")
            try expectProblem(try await client.get("/no/such/route"), status: 404, type: "not-found")
            try expectProblem(try await client.execute(uri: "/collections", method: .delete), status: 404, type: "not-found")
        }
    }
}
