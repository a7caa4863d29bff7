import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Testing
import TestSupport
import TwinStore

/// Token revocation (issue 21 §4): `citytwin token revoke` puts a token on the store's list and
/// the server refuses it from then on (401 invalid-token) while other tokens keep working; the
/// list works the same on PostGIS, and a lapsed entry drops off it.
@Suite("Token revocation: citytwin token revoke, refused by the server, on both backends", .serialized, .temporaryDirectories)
struct TokenRevocationTests {
    static let secret = "revocation-test-secret-0123456789abcdef0123"

    @Test("a token revoked with citytwin token revoke is refused within the refresh interval; another token still works")
    func revokedTokenRefused() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-revoke")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await AuditVerifyCommandTests.fill(store)
        let authority = try TokenAuthority(secret: Array(Self.secret.utf8))
        let lost = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "丢失的电脑", lifetime: 3600))
        let kept = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 3600))
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority))
        try await server.makeApplication().test(.router) { client in
            let items = "/collections/shelters/items?limit=1"
            #expect(try await client.get(items, headers: [.authorization: "Bearer \(lost)"]).status == .ok)

            let other = try TokenAuthority(secret: Array("another-secret-0123456789abcdef0123456789".utf8))
            let foreign = try await Self.revoke(other.issue(TokenClaims(department: "应急管理局", role: .editor, subject: nil, lifetime: 60)), store: path)
            #expect(foreign.exitStatus == 1, "a token of another secret was taken: \(foreign.output)")

            let revoked = try await Self.revoke(lost, store: path)
            #expect(revoked.exitStatus == 0, "\(revoked.output)")
            #expect(revoked.output.contains("revoked the editor token of 应急管理局 for 丢失的电脑"), "\(revoked.output)")
            try await OutageHarness.eventually("the revoked token is refused", within: 10) {
                try await client.get(items, headers: [.authorization: "Bearer \(lost)"]).status == .unauthorized
            }
            let refused = try await client.get(items, headers: [.authorization: "Bearer \(lost)"])
            try expectProblem(refused, status: 401, type: "invalid-token")
            #expect(refused.text.contains("revoked"), "\(refused.text)")
            #expect(try await client.get(items, headers: [.authorization: "Bearer \(kept)"]).status == .ok)
        }
    }

    @Test("PostGIS keeps the same list; an entry past its token's expiry drops off",
          .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
    func postGISList() async throws {
        try await PrivatePostgres.with { pg in
            let store = try await PostGISStore.connect(url: pg.url, connectionWait: .seconds(60))
            try await store.revokeToken(digest: "aa", expiresAt: 2_000)
            try await store.revokeToken(digest: "bb", expiresAt: 1_000)
            #expect(try await store.revokedTokens(now: 1_500) == ["aa"])
            #expect(try await store.revokedTokens(now: 500) == ["aa", "bb"])
            await store.shutdown()
            let spatiaLite = try TemporaryDirectory.forTestCase("citytwin-revoke").openStore()
            try await spatiaLite.revokeToken(digest: "aa", expiresAt: 2_000)
            try await spatiaLite.revokeToken(digest: "bb", expiresAt: 1_000)
            #expect(try await spatiaLite.revokedTokens(now: 1_500) == ["aa"])
        }
    }

    @Test("citytwin token rotate-secret replaces the secret (mode 0600): a running server refuses every older token (401) and takes new ones")
    func rotatedSecret() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-rotate")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await AuditVerifyCommandTests.fill(store)
        let verifier = try ReloadingTokenAuthority(storePath: path)
        let old = try verifier.current().issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 3600))
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: verifier))
        try await server.makeApplication().test(.router) { client in
            let items = "/collections/shelters/items?limit=1"
            #expect(try await client.get(items, headers: [.authorization: "Bearer \(old)"]).status == .ok)
            // A secret from the environment is not the file's to rotate: the command says what to do instead.
            let fromEnvironment = try await CommandProcess.run(try OutageHarness.binary(), ["token", "rotate-secret", "--store", path],
                                                               environment: ["CITYTWIN_TOKEN_SECRET": Self.secret], within: 60)
            #expect(fromEnvironment.exitStatus == 1 && fromEnvironment.output.contains("CITYTWIN_TOKEN_SECRET"), "\(fromEnvironment.output)")
            let rotated = try await CommandProcess.run(try OutageHarness.binary(), ["token", "rotate-secret", "--store", path],
                                                       environment: ["CITYTWIN_TOKEN_SECRET": nil], within: 60)
            #expect(rotated.exitStatus == 0, "\(rotated.output)")
            let attributes = try FileManager.default.attributesOfItem(atPath: path + ".token-secret")
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            try await OutageHarness.eventually("the old token is refused", within: 10) {
                try await client.get(items, headers: [.authorization: "Bearer \(old)"]).status == .unauthorized
            }
            try expectProblem(try await client.get(items, headers: [.authorization: "Bearer \(old)"]), status: 401, type: "invalid-token")
            let new = try ReloadingTokenAuthority(storePath: path).current()
                .issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 3600))
            #expect(try await client.get(items, headers: [.authorization: "Bearer \(new)"]).status == .ok)
        }
    }

    @Test("a revoked ct1 token stays revoked in every spelling: with its last character changed (the same bytes in base64url) it is refused, for reads and writes")
    func legacyTokenHasOneSpelling() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-revoke-ct1")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await AuditVerifyCommandTests.fill(store)
        let authority = try TokenAuthority(secret: Array(Self.secret.utf8))
        let now = Int64(Date().timeIntervalSince1970)
        let claims = #"{"dept":"应急管理局","exp":\#(now + 3600),"iat":\#(now),"role":"editor","sub":"王工"}"#
        let signedText = "ct1." + TestOpenIDProvider.base64URL(Data(claims.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signedText.utf8), using: SymmetricKey(data: Array(Self.secret.utf8)))
        let legacy = signedText + "." + TestOpenIDProvider.base64URL(Data(mac))
        // The signature's 32 bytes take 43 characters; the last one carries 4 bits of them and 2 bits
        // a decoder ignores: flipping the lowest gives another text of the same bytes.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(legacy.last.flatMap { alphabet.firstIndex(of: $0) })
        let respelt = String(legacy.dropLast()) + String(alphabet[last ^ 1])
        #expect(Data(base64Encoded: TokenTests.padded(String(respelt.split(separator: ".")[2]))) == Data(mac), "the same signature bytes")
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority))
        try await server.makeApplication().test(.router) { client in
            let items = "/collections/shelters/items?limit=1"
            #expect(try await client.get(items, headers: [.authorization: "Bearer \(legacy)"]).status == .ok)
            let revoked = try await Self.revoke(legacy, store: path)
            #expect(revoked.exitStatus == 0, "\(revoked.output)")
            try await OutageHarness.eventually("the revoked ct1 token is refused", within: 10) {
                try await client.get(items, headers: [.authorization: "Bearer \(legacy)"]).status == .unauthorized
            }
            try expectProblem(try await client.get(items, headers: [.authorization: "Bearer \(respelt)"]), status: 401, type: "invalid-token")
            let write = try await client.execute(uri: "/collections/shelters/items", method: .post,
                                                 headers: [.authorization: "Bearer \(respelt)", .contentType: "application/geo+json"],
                                                 body: ByteBuffer(string: #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.31, 30.6]}, "properties": {"name": "冒名"}}"#))
            try expectProblem(write, status: 401, type: "invalid-token")
        }
    }

    static func revoke(_ token: String, store: String) async throws -> CommandProcess {
        try await CommandProcess.run(try OutageHarness.binary(), ["token", "revoke", token, "--store", store],
                                     environment: ["CITYTWIN_TOKEN_SECRET": secret], within: 60)
    }
}
