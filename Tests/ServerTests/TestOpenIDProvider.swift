import CryptoExtras
import Foundation
import GeoCore
import Hummingbird
import JWTKit
import NIOCore
import Synchronization

/// An OpenID Connect provider for the tests, over real HTTP on 127.0.0.1: its keys are made
/// here (RSA 2048 and EC P-256, each under a `kid`), its discovery document and JWKS are served
/// by a small Hummingbird app, and it signs tokens with jwt-kit as a provider such as Keycloak
/// would. `publish` changes the JWKS it serves (key rotation); `jwksFetches` counts its answers.
final class TestOpenIDProvider: Sendable {
    /// The provider's issuer URL (`http://127.0.0.1:<port>/realms/city`).
    var issuer: String { issuerURL.withLock { $0 } }
    private let issuerURL = Mutex("")
    /// The keys that sign: `rsa-1`, `ec-1` and `rsa-2` (published only after `publish`).
    let signing: JWTKeyCollection
    /// The RSA key `rsa-1`'s public key in PEM, the "secret" of an HS256 key-confusion forgery.
    let rsaPublicPEM: String
    private let jwks: Mutex<[JSONValue]>
    private let fetches = Mutex(0)

    let allKeys: [String: JSONValue]

    /// Runs a provider for the duration of `body`.
    static func run<T: Sendable>(_ body: @Sendable (TestOpenIDProvider) async throws -> T) async throws -> T {
        let rsa1 = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let rsa2 = try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let ec1 = ES256PrivateKey()
        let signing = JWTKeyCollection()
        await signing.add(rsa: rsa1, digestAlgorithm: .sha256, kid: "rsa-1")
        await signing.add(rsa: rsa2, digestAlgorithm: .sha256, kid: "rsa-2")
        await signing.add(ecdsa: ec1, kid: "ec-1")
        let keys: [String: JSONValue] = [
            "rsa-1": try Self.jwk(rsa1.publicKey, kid: "rsa-1"),
            "rsa-2": try Self.jwk(rsa2.publicKey, kid: "rsa-2"),
            "ec-1": try Self.jwk(ec1.publicKey, kid: "ec-1"),
        ]
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let provider = TestOpenIDProvider(signing: signing, rsaPublicPEM: rsa1.publicKey.pemRepresentation, allKeys: keys)
        let router = Router()
        router.get("/realms/city/.well-known/openid-configuration") { _, _ -> Response in
            Self.json(["issuer": .string(provider.issuer), "jwks_uri": .string(provider.issuer + "/protocol/openid-connect/certs"),
                              "id_token_signing_alg_values_supported": ["RS256", "ES256"]])
        }
        router.get("/realms/city/protocol/openid-connect/certs") { _, _ -> Response in
            provider.fetches.withLock { $0 += 1 }
            return Self.json(["keys": .array(provider.jwks.withLock { $0 })])
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  if let port = channel.localAddress?.port { portSink.yield(port) }
                              })
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            defer { group.cancelAll() }
            guard let port = await ports.first(where: { _ in true }) else { throw CancellationError() }
            provider.issuerURL.withLock { $0 = "http://127.0.0.1:\(port)/realms/city" }
            return try await body(provider)
        }
    }

    private init(signing: JWTKeyCollection, rsaPublicPEM: String, allKeys: [String: JSONValue]) {
        self.signing = signing
        self.rsaPublicPEM = rsaPublicPEM
        self.allKeys = allKeys
        self.jwks = Mutex(["rsa-1", "ec-1"].compactMap { allKeys[$0] })
    }

    /// Serves the keys `kids` from now on.
    func publish(_ kids: [String]) { jwks.withLock { $0 = kids.compactMap { allKeys[$0] } } }

    /// How often the JWKS was fetched.
    var jwksFetches: Int { fetches.withLock { $0 } }

    /// Standard claims for `department` and `role`, valid for an hour, with a new `jti`; `extra`
    /// replaces or adds claims (a `.null` removes one).
    func claims(department: String, role: String = "editor", _ extra: [String: JSONValue] = [:]) -> [String: JSONValue] {
        let now = Int64(Date().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": ["account", "citytwin"], "sub": .string(UUID().uuidString),
            "iat": .integer(now), "nbf": .integer(now), "exp": .integer(now + 3600), "jti": .string(UUID().uuidString),
            "preferred_username": "provider-user", "department": .string(department), "role": .string(role),
        ]
        for (name, value) in extra { claims[name] = value.isNull ? nil : value }
        return claims
    }

    /// `claims` signed with the key `kid` (RS256 for `rsa-*`, ES256 for `ec-*`).
    func token(_ claims: [String: JSONValue], kid: String = "rsa-1") async throws -> String {
        try await signing.sign(TestClaims(values: claims), kid: JWKIdentifier(string: kid))
    }

    private static func jwk(_ key: JWTKit.Insecure.RSA.PublicKey, kid: String) throws -> JSONValue {
        let (modulus, exponent) = try key.getKeyPrimitives()
        return ["kty": "RSA", "use": "sig", "kid": .string(kid), "n": .string(base64URL(modulus)), "e": .string(base64URL(exponent))]
    }

    private static func jwk(_ key: ES256PublicKey, kid: String) throws -> JSONValue {
        guard let (x, y) = key.parameters else { throw CancellationError() }
        return ["kty": "EC", "crv": "P-256", "use": "sig", "kid": .string(kid), "x": .string(x), "y": .string(y)]
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func json(_ value: JSONValue) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data()
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Any claims, as a provider's token carries them.
struct TestClaims: JWTPayload {
    var values: [String: JSONValue]

    init(values: [String: JSONValue]) { self.values = values }
    init(from decoder: any Decoder) throws { values = try JSONValue(from: decoder).objectValue ?? [:] }
    func encode(to encoder: any Encoder) throws { try JSONValue.object(values).encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
