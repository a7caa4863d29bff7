import Crypto
import Foundation
import GeoCore
import HummingbirdTesting
import JWTKit
import Server
import TestSupport
import Testing
import TwinStore

@Suite("Bearer tokens: signed, expiring, per department")
struct TokenTests {
    static let secret = Array("a test secret that is long enough!!".utf8)

    @Test("a token is an HS256 JWT jwt-kit verifies, carrying its department, role, subject and jti back to the caller")
    func roundTrip() async throws {
        let authority = try TokenAuthority(secret: Self.secret)
        let token = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 60))
        let jwt = try UnverifiedJWT(token)
        #expect(jwt.header == ["alg": "HS256", "typ": "JWT"])
        #expect(jwt.issuer == TokenAuthority.issuer && jwt.claims["jti"]?.stringValue?.isEmpty == false)
        let claims = try await authority.verify(token)
        #expect(claims.department == "应急管理局")
        #expect(claims.expiresAt - claims.issuedAt == 60)
        #expect(claims.id == jwt.claims["jti"]?.stringValue)
        #expect(claims.caller == .department(name: "应急管理局", role: .editor, user: "王工"))
        let admin = authority.issue(TokenClaims(department: "", role: .admin, subject: nil, lifetime: 60))
        #expect(try await authority.verify(admin).caller == .admin)
        // jwt-kit alone, given the secret, verifies the token and reads the same claims.
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Self.secret), digestAlgorithm: .sha256)
        let read = try await keys.verify(token, as: TestClaims.self)
        #expect(read.values["dept"] == "应急管理局" && read.values["role"] == "editor" && read.values["sub"] == "王工")
        // And a token jwt-kit signs with the secret is one of ours.
        var signedByKit = read.values
        signedByKit["jti"] = "another-id"
        #expect(try await authority.verify(try await keys.sign(TestClaims(values: signedByKit))).id == "another-id")
        // What jwt-kit's signer makes (citytwin token create) has the same header and claims.
        let kitSigned = try await authority.sign(claims)
        #expect(try UnverifiedJWT(kitSigned).header == jwt.header && UnverifiedJWT(kitSigned).claims == jwt.claims)
        #expect(try await authority.verify(kitSigned) == claims)
        // Two tokens of the same claims differ by their jti: each can be revoked alone.
        let again = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 60))
        #expect(try await authority.verify(again).revocationKey(token: again) != claims.revocationKey(token: token))
    }

    @Test("a changed claim, another secret, algorithm or issuer, an expired or a malformed token is rejected")
    func rejection() async throws {
        let authority = try TokenAuthority(secret: Self.secret)
        let token = authority.issue(TokenClaims(department: "水务局", role: .viewer, subject: nil, lifetime: 60))
        let parts = token.split(separator: ".").map(String.init)
        // Promote the viewer to editor and keep the old signature.
        let forged = String(decoding: try #require(Data(base64Encoded: Self.padded(parts[1]))), as: UTF8.self)
            .replacingOccurrences(of: "viewer", with: "editor")
        let tampered = parts[0] + "." + TestOpenIDProvider.base64URL(Data(forged.utf8)) + "." + parts[2]
        await #expect(throws: StoreError.self) { try await authority.verify(tampered) }
        let other = try TokenAuthority(secret: Array("another secret of at least 32 bytes".utf8))
        await #expect(throws: StoreError.self) { try await other.verify(token) }
        await #expect(throws: StoreError.self) { try await authority.verify(token, now: Date().addingTimeInterval(61)) }
        // alg none, and HS512 or another issuer under the right secret.
        let none = TestOpenIDProvider.base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + "."
        let hs512Signed = TestOpenIDProvider.base64URL(Data(#"{"alg":"HS512","typ":"JWT"}"#.utf8)) + "." + parts[1]
        let hs512 = hs512Signed + "." + TestOpenIDProvider.base64URL(Data(HMAC<SHA512>.authenticationCode(
            for: Data(hs512Signed.utf8), using: SymmetricKey(data: Self.secret))))
        let claims = try await JWTKeyCollection().unverified(token, as: TestClaims.self).values
        let keys256 = JWTKeyCollection()
        await keys256.add(hmac: HMACKey(from: Self.secret), digestAlgorithm: .sha256)
        var foreign = claims
        foreign["iss"] = "someone-else"
        let otherIssuer = try await keys256.sign(TestClaims(values: foreign))
        for (bad, says) in [(none, "'none'"), (hs512, "'HS512'"), (otherIssuer, "someone-else")] {
            do {
                _ = try await authority.verify(bad)
                Issue.record("accepted: \(says)")
            } catch let e as StoreError {
                #expect(e.message.contains(says), "\(e.message)")
            }
        }
        for bad in ["", "ct1", "ct1..", "v1.\(parts[1]).\(parts[2])", "\(parts[0]).\(parts[1]).\(parts[2])x=", token + ".", "a.b.c"] {
            await #expect(throws: StoreError.self, "\(bad)") { try await authority.verify(bad) }
        }
        #expect(throws: StoreError.self) { try TokenAuthority(secret: Array("short".utf8)) }
    }

    @Test("a ct1 token issued before the change to JWTs is still verified until it lapses; a tampered one is not")
    func legacyTokens() async throws {
        let authority = try TokenAuthority(secret: Self.secret)
        let now = Int64(Date().timeIntervalSince1970)
        let legacy = Self.legacyToken(#"{"dept":"应急管理局","exp":\#(now + 60),"iat":\#(now),"role":"editor","sub":"王工"}"#)
        let claims = try await authority.verify(legacy)
        #expect(claims.caller == .department(name: "应急管理局", role: .editor, user: "王工"))
        #expect(claims.id == nil && claims.revocationKey(token: legacy) == TokenAuthority.digest(legacy))
        let promoted = Self.legacyToken(#"{"dept":"应急管理局","exp":\#(now + 60),"iat":\#(now),"role":"admin","sub":"王工"}"#,
                                        signing: #"{"dept":"应急管理局","exp":\#(now + 60),"iat":\#(now),"role":"editor","sub":"王工"}"#)
        await #expect(throws: StoreError.self) { try await authority.verify(promoted) }
        let expired = Self.legacyToken(#"{"dept":"应急管理局","exp":\#(now - 1),"iat":\#(now - 61),"role":"editor"}"#)
        await #expect(throws: StoreError.self) { try await authority.verify(expired) }
    }

    @Test("the secret comes from CITYTWIN_TOKEN_SECRET or one 0600 file beside the store")
    func secretFile() async throws {
        try await withTemporaryDirectory("citytwin-token") { dir in
            let store = dir.appending("city.sqlite").path
            let first = try TokenAuthority.forStore(path: store, environment: [:])
            let attributes = try FileManager.default.attributesOfItem(atPath: store + ".token-secret")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let again = try TokenAuthority.forStore(path: store, environment: [:])
            let token = first.issue(TokenClaims(department: "应急管理局", role: .editor, subject: nil, lifetime: 60))
            #expect(try await again.verify(token).department == "应急管理局")
            let fromEnvironment = try TokenAuthority.forStore(path: store, environment: [TokenAuthority.secretVariable: String(repeating: "k", count: 40)])
            await #expect(throws: StoreError.self) { try await fromEnvironment.verify(token) }
            #expect(throws: StoreError.self) { try TokenAuthority.forStore(path: nil, environment: [:]) }
            // A secret others can read is refused.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store + ".token-secret")
            #expect(throws: StoreError.self) { try TokenAuthority.forStore(path: store, environment: [:]) }
        }
    }

    @Test("the server answers a bad or expired token with 401 and an invalid_token challenge")
    func serverRejectsBadTokens() async throws {
        try await WritableAPI.run { api in
            let expired = api.authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: nil,
                                                          issuedAt: 1_700_000_000, expiresAt: 1_700_000_060))
            let good = api.token("应急管理局")
            let tampered = String(good.dropLast(2)) + (good.hasSuffix("AA") ? "BB" : "AA")
            for token in [expired, tampered, "not-a-token"] {
                let r = try await api.client.get("/collections/shelters/items", headers: WritableAPI.bearer(token))
                try expectProblem(r, status: 401, type: "invalid-token")
                #expect(r.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                #expect(r.headers[.wwwAuthenticate]?.contains("error=\"invalid_token\"") == true)
            }
            // Without a header a read is anonymous; with a good token the owner sees clear values.
            let anonymous = try await api.client.get("/collections/shelters/items/s01").json
            #expect(anonymous["properties"]?["phone"]?.stringValue == "138****5678")
            let owner = try await api.client.get("/collections/shelters/items/s01", headers: WritableAPI.bearer(good)).json
            #expect(owner["properties"]?["phone"]?.stringValue == "13812345678")
        }
    }
}

extension TokenTests {
    /// A token of the earlier format, `ct1.<claims>.<HMAC-SHA256 of "ct1.<signed claims>">`, as
    /// CityTwin issued them before its tokens became JWTs.
    static func legacyToken(_ claims: String, signing signedClaims: String? = nil) -> String {
        let body = TestOpenIDProvider.base64URL(Data(claims.utf8))
        let signedText = "ct1." + TestOpenIDProvider.base64URL(Data((signedClaims ?? claims).utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signedText.utf8), using: SymmetricKey(data: secret))
        return "ct1." + body + "." + TestOpenIDProvider.base64URL(Data(mac))
    }

    static func padded(_ s: String) -> String {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return t
    }
}
