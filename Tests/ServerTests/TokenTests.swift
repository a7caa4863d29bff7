import Foundation
import GeoCore
import HummingbirdTesting
import Server
import TestSupport
import Testing
import TwinStore

@Suite("Bearer tokens: signed, expiring, per department")
struct TokenTests {
    static let secret = Array("a test secret that is long enough!!".utf8)

    @Test("a token carries its department, role and subject back to the caller")
    func roundTrip() throws {
        let authority = try TokenAuthority(secret: Self.secret)
        let token = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 60))
        #expect(token.hasPrefix("ct1."))
        #expect(token.split(separator: ".").count == 3)
        let claims = try authority.verify(token)
        #expect(claims.department == "应急管理局")
        #expect(claims.expiresAt - claims.issuedAt == 60)
        #expect(claims.caller == .department(name: "应急管理局", role: .editor, user: "王工"))
        let admin = authority.issue(TokenClaims(department: "", role: .admin, subject: nil, lifetime: 60))
        #expect(try authority.verify(admin).caller == .admin)
    }

    @Test("a changed claim, another secret, an expired or a malformed token is rejected")
    func rejection() throws {
        let authority = try TokenAuthority(secret: Self.secret)
        let token = authority.issue(TokenClaims(department: "水务局", role: .viewer, subject: nil, lifetime: 60))
        let parts = token.split(separator: ".").map(String.init)
        // Promote the viewer to editor and keep the old signature.
        let forged = String(decoding: try #require(Data(base64Encoded: Self.padded(parts[1]))), as: UTF8.self)
            .replacingOccurrences(of: "viewer", with: "editor")
        let tampered = "ct1." + Data(forged.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "") + "." + parts[2]
        #expect(throws: StoreError.self) { try authority.verify(tampered) }
        let other = try TokenAuthority(secret: Array("another secret of at least 32 bytes".utf8))
        #expect(throws: StoreError.self) { try other.verify(token) }
        #expect(throws: StoreError.self) { try authority.verify(token, now: Date().addingTimeInterval(61)) }
        for bad in ["", "ct1", "ct1..", "v1.\(parts[1]).\(parts[2])", "ct1.\(parts[1]).\(parts[2])x=", token + "."] {
            #expect(throws: StoreError.self, "\(bad)") { try authority.verify(bad) }
        }
        #expect(throws: StoreError.self) { try TokenAuthority(secret: Array("short".utf8)) }
    }

    @Test("the secret comes from CITYTWIN_TOKEN_SECRET or one 0600 file beside the store")
    func secretFile() throws {
        try withTemporaryDirectory("citytwin-token") { dir in
            let store = dir.appending("city.sqlite").path
            let first = try TokenAuthority.forStore(path: store, environment: [:])
            let attributes = try FileManager.default.attributesOfItem(atPath: store + ".token-secret")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let again = try TokenAuthority.forStore(path: store, environment: [:])
            let token = first.issue(TokenClaims(department: "应急管理局", role: .editor, subject: nil, lifetime: 60))
            #expect(try again.verify(token).department == "应急管理局")
            let fromEnvironment = try TokenAuthority.forStore(path: store, environment: [TokenAuthority.secretVariable: String(repeating: "k", count: 40)])
            #expect(throws: StoreError.self) { try fromEnvironment.verify(token) }
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
    static func padded(_ s: String) -> String {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.count % 4 != 0 { t += "=" }
        return t
    }
}
