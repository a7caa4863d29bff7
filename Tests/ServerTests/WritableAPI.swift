import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Testing
import TwinStore

/// The API over a fresh fixture store with a `TokenAuthority` verifying bearer tokens, so
/// tests can write as a department and then read the store's audit log.
struct WritableAPI: Sendable {
    let client: any TestClientProtocol
    let store: SpatiaLiteStore
    let authority: TokenAuthority

    /// A token of `department` with `role`, valid for an hour from now.
    func token(_ department: String, _ role: TokenClaims.Role = .editor, subject: String? = "测试员") -> String {
        authority.issue(TokenClaims(department: department, role: role, subject: subject, lifetime: 3600))
    }

    /// The `Authorization` header of a token.
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// A request with a JSON text body.
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, contentType: String = "application/geo+json",
              headers: HTTPFields = [:], body: String? = nil) async throws -> TestResponse {
        var h = headers
        if let token { h[.authorization] = "Bearer \(token)" }
        if body != nil { h[.contentType] = contentType }
        return try await client.execute(uri: uri, method: method, headers: h, body: body.map { ByteBuffer(string: $0) })
    }

    /// The audit entries of `layer`, oldest first (read as the admin).
    func audit(_ layer: String = "shelters") async throws -> [AuditEntry] {
        try await store.auditLog(layer: layer, after: 0, limit: 1000, by: .admin)
    }

    static func run(_ body: @Sendable (WritableAPI) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await ServerFixture.withStore { store in
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger,
                                                                              tokenVerifier: authority))
            try await server.makeApplication().test(.router) { client in
                try await body(WritableAPI(client: client, store: store, authority: authority))
            }
        }
    }
}
