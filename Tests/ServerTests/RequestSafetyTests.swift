import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import TestSupport
import Testing

/// Browser-facing safety (issue 21 §4): security headers on HTML pages, CORS open for reads and
/// closed for writes unless configured, tile coordinates out of any range and path traversal
/// refused with a problem (never a 500, never a file).
@Suite("Request safety: security headers, CORS, tile coordinates, path traversal")
struct RequestSafetyTests {
    static func withAPI(_ crossOrigin: CrossOriginPolicy = CrossOriginPolicy(),
                        _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, crossOrigin: crossOrigin))
            try await server.makeApplication().test(.router) { client in try await body(client) }
        }
    }

    static let csp = HTTPField.Name("Content-Security-Policy")!
    static let origin = HTTPField.Name("Origin")!
    static let requestMethod = HTTPField.Name("Access-Control-Request-Method")!
    static let allowOrigin = HTTPField.Name("Access-Control-Allow-Origin")!
    static let allowMethods = HTTPField.Name("Access-Control-Allow-Methods")!

    @Test("HTML pages carry a Content-Security-Policy that forbids framing, X-Frame-Options, nosniff and no referrer; JSON carries nosniff")
    func securityHeaders() async throws {
        try await Self.withAPI { client in
            for path in ["/?f=html", "/collections?f=html", "/collections/shelters/items?f=html", "/map"] {
                let r = try await client.get(path)
                #expect(r.status == .ok, "\(path)")
                let policy = try #require(r.headers[Self.csp], "\(path) has no Content-Security-Policy")
                #expect(policy.contains("frame-ancestors 'none'"), "\(path): \(policy)")
                #expect(r.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(path)")
                #expect(r.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
                #expect(r.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
                if path == "/map" {
                    #expect(policy.contains("worker-src blob:"), "MapLibre's workers need blob: \(policy)")
                } else {
                    #expect(policy.contains("default-src 'none'") && !policy.contains("script-src"), "the API's pages run no script: \(policy)")
                }
            }
            let json = try await client.get("/collections")
            #expect(json.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(json.headers[Self.csp] == nil)
        }
    }

    @Test("CORS by default: any origin may read, no origin may write; writes and single origins when configured")
    func crossOrigin() async throws {
        try await Self.withAPI { client in
            let read = try await client.get("/collections", headers: [Self.origin: "https://map.example.org"])
            #expect(read.headers[Self.allowOrigin] == "*")
            let preflight = try await client.execute(uri: "/collections/shelters/items/s01", method: .options,
                                                     headers: [Self.origin: "https://map.example.org", Self.requestMethod: "DELETE"])
            let methods = preflight.headers[Self.allowMethods] ?? ""
            #expect(!methods.contains("DELETE") && !methods.contains("POST") && !methods.contains("PUT") && !methods.contains("PATCH"),
                    "a write is offered cross-origin by default: \(methods)")
            #expect(methods.contains("GET"))
        }
        try await Self.withAPI(CrossOriginPolicy(origins: ["https://map.example.org"], allowsWrites: true)) { client in
            let preflight = try await client.execute(uri: "/collections/shelters/items/s01", method: .options,
                                                     headers: [Self.origin: "https://map.example.org", Self.requestMethod: "DELETE"])
            #expect(preflight.headers[Self.allowMethods]?.contains("DELETE") == true)
            #expect(preflight.headers[Self.allowOrigin] == "https://map.example.org")
            let other = try await client.get("/collections", headers: [Self.origin: "https://evil.example"])
            #expect(other.headers[Self.allowOrigin] == nil, "an origin outside the list may read: \(other.headers)")
        }
        try await Self.withAPI(.closed) { client in
            let read = try await client.get("/collections", headers: [Self.origin: "https://map.example.org"])
            #expect(read.headers[Self.allowOrigin] == nil)
        }
    }

    @Test("tile coordinates beyond any matrix or any integer are refused with a problem",
          arguments: ["15/99999999999999999999999/1", "15/1/99999999999999999999999", "9223372036854775807/0/0", "15/40000/40000",
                      "30/0/0", "-1/0/0", "15/-5/3", "15/1e3/2", "15/0x10/2"])
    func tileCoordinates(_ coordinates: String) async throws {
        try await Self.withAPI { client in
            let r = try await client.get("/collections/shelters/tiles/WebMercatorQuad/\(coordinates)")
            #expect([400, 404].contains(r.status.code), "\(coordinates): \(r.status)")
            #expect(r.headers[.contentType] == "application/problem+json", "\(coordinates)")
        }
    }

    @Test("path traversal reaches no file", arguments: [
        "/static/..%2f..%2f..%2fetc%2fpasswd", "/static/../../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
        "/collections/..%2f..%2fetc%2fpasswd/items", "/collections/shelters/items/..%2f..%2f..%2fetc%2fpasswd",
        "/static/maplibre-gl.js%00.css", "/static/....//....//etc/passwd",
    ])
    func pathTraversal(_ path: String) async throws {
        try await Self.withAPI { client in
            let r = try await client.get(path)
            #expect(r.status.code == 404 || r.status.code == 400, "\(path): \(r.status)")
            #expect(!r.text.contains("root:"), "\(path) served a system file")
        }
    }
}
