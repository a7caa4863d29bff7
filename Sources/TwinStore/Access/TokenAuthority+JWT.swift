import Crypto
import Foundation
import GeoCore
import JWTKit

extension TokenAuthority {
    /// The one algorithm of CityTwin's own tokens.
    public static let algorithm = "HS256"

    /// A JWT for `claims` signed by jwt-kit's HS256 signer with the secret: what `citytwin token
    /// create` prints.
    public func sign(_ claims: TokenClaims) async throws -> String {
        try await keyCollection().sign(OwnTokenPayload(claims))
    }

    /// The same token as `sign`, synchronously, for callers without an async context (the tests'
    /// helpers): header `{"alg":"HS256","typ":"JWT"}`, the claims of `OwnTokenPayload` serialized
    /// by jwt-kit's serializer, HMAC-SHA256 under the secret, exactly what jwt-kit's HS256 signer
    /// computes (jwt-kit's `sign` is async only); `verifyJWT` checks either through jwt-kit.
    public func issue(_ claims: TokenClaims) -> String {
        let serializer = DefaultJWTSerializer()
        // Encoding a struct of strings and integers cannot fail.
        let header = (try? serializer.jsonEncoder.encode(OwnTokenHeader())) ?? Data()
        let payload = (try? serializer.serialize(OwnTokenPayload(claims), header: JWTHeader())) ?? Data()
        let signed = Base64URL.encode(header) + "." + String(decoding: payload, as: UTF8.self)
        let mac = HMAC<Crypto.SHA256>.authenticationCode(for: Data(signed.utf8), using: key)
        return signed + "." + Base64URL.encode(Data(mac))
    }

    /// The claims of a JWT this authority's secret signed (expiry not checked here): HS256 only,
    /// the signature checked by jwt-kit before the claims are read, `iss` must be CityTwin's.
    func verifyJWT(_ token: String) async throws -> TokenClaims {
        let unverified = try UnverifiedJWT(token)
        guard unverified.algorithm == Self.algorithm else {
            throw Self.reject("the token is signed with '\(unverified.algorithm ?? "no algorithm")'; CityTwin's own tokens are \(Self.algorithm)")
        }
        let payload: OwnTokenPayload
        do {
            payload = try await keyCollection().verify(token, as: OwnTokenPayload.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw Self.reject("the token's signature does not match (tampered, or signed with another secret)")
        } catch {
            throw Self.reject("the token's claims are not {iss, sub, iat, exp, jti, dept, role}")
        }
        guard payload.iss == Self.issuer else {
            throw Self.reject("the token is issued by '\(payload.iss ?? "nobody")', not by CityTwin ('\(Self.issuer)')")
        }
        guard let role = payload.role.flatMap(TokenClaims.Role.init(rawValue:)) else {
            throw Self.reject("the token's role '\(payload.role ?? "")' is not one of \(TokenClaims.Role.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let iat = payload.iat, let exp = payload.exp, let jti = payload.jti, !jti.isEmpty else {
            throw Self.reject("the token lacks iat, exp or jti")
        }
        return TokenClaims(department: payload.dept ?? "", role: role, subject: payload.sub, issuedAt: iat, expiresAt: exp, id: jti)
    }

    /// jwt-kit's keys: the secret as the one HS256 key.
    private func keyCollection() async -> JWTKeyCollection {
        await JWTKeyCollection().add(hmac: HMACKey(key: key), digestAlgorithm: .sha256)
    }
}

/// The JSON header of a CityTwin token.
private struct OwnTokenHeader: Encodable {
    let alg = TokenAuthority.algorithm
    let typ = "JWT"
}

/// The claims of CityTwin's own JWT. Every member is optional when decoding so that a token
/// whose signature is good but whose claims are incomplete is told apart from a forged one.
struct OwnTokenPayload: JWTPayload {
    var iss: String?
    var sub: String?
    var iat: Int64?
    var exp: Int64?
    var jti: String?
    var dept: String?
    var role: String?

    init(_ claims: TokenClaims) {
        iss = TokenAuthority.issuer
        sub = claims.subject
        iat = claims.issuedAt
        exp = claims.expiresAt
        jti = claims.id ?? UUID().uuidString.lowercased()
        dept = claims.department
        role = claims.role.rawValue
    }

    /// The times, issuer and role are checked by `TokenAuthority.verify` with its clock and messages.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A JWT's header and claims read before (and without) any signature check: to choose the
/// verifier by `iss`, the key by `kid`, to refuse an algorithm before a key sees the token, and
/// to name a token on the revocation list. Nothing read here is trusted.
public struct UnverifiedJWT: Sendable {
    public let header: [String: JSONValue]
    public let claims: [String: JSONValue]

    /// - Throws: `StoreError` `.invalidToken` unless `token` is three parts in canonical base64url
    ///   (`Base64URL.decode`: one spelling per token, whatever jwt-kit's decoder would accept)
    ///   whose first two are JSON objects.
    public init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw TokenAuthority.reject("the token is not a JWT (<header>.<claims>.<signature>, base64url)")
        }
        guard parts[2].isEmpty || Base64URL.isCanonical(parts[2]) else {
            throw TokenAuthority.reject("the token's signature is not canonical base64url")
        }
        func object(_ part: Substring, _ what: String) throws -> [String: JSONValue] {
            guard let data = Base64URL.decode(part), let value = try? JSONDecoder().decode(JSONValue.self, from: data),
                  let object = value.objectValue else {
                throw TokenAuthority.reject("the token's \(what) is not base64url JSON")
            }
            return object
        }
        header = try object(parts[0], "header")
        claims = try object(parts[1], "claims")
    }

    /// The header's `alg`.
    public var algorithm: String? { header["alg"]?.stringValue }
    /// The header's `kid`.
    public var keyID: String? { header["kid"]?.stringValue }
    /// The `iss` claim.
    public var issuer: String? { claims["iss"]?.stringValue }
}
