import Foundation
import GeoCore
import JWTKit
import TwinStore

/// An external OpenID Connect provider whose tokens the server accepts (`citytwin serve
/// --oidc-issuer … --oidc-audience …`; docs/security.md, "Identity").
public struct OIDCConfiguration: Sendable, Hashable {
    /// The provider's issuer URL, exactly as its tokens' `iss` and its discovery document name it.
    public var issuer: String
    /// What a token's `aud` must contain (the client id the provider issues tokens for).
    public var audience: String
    /// The claim naming the caller's department (a dotted path reaches into objects: `org.department`).
    public var departmentClaim: String
    /// The claim naming the role: viewer, editor or admin (a string, or an array such as
    /// Keycloak's `realm_access.roles`, of which the highest known role counts).
    public var roleClaim: String
    /// The JWKS URL; `nil` reads `jwks_uri` from `<issuer>/.well-known/openid-configuration`.
    public var jwksURL: String?
    /// Seconds the provider's clock may differ from the server's for `exp`, `nbf` and `iat`.
    public var clockSkew: TimeInterval
    /// Seconds a fetched key set is used for, unless the JWKS answer's `Cache-Control: max-age` says otherwise (60 s … 1 day).
    public var keyLifetime: TimeInterval
    /// The shortest time between two fetches of the key set: a token with an unknown `kid`
    /// (a rotated key, or a forgery) fetches it again at most this often.
    public var refetchInterval: TimeInterval

    public static let defaultClockSkew: TimeInterval = 60
    public static let defaultKeyLifetime: TimeInterval = 3600
    public static let defaultRefetchInterval: TimeInterval = 30

    public init(issuer: String, audience: String, departmentClaim: String = "department", roleClaim: String = "role",
                jwksURL: String? = nil, clockSkew: TimeInterval = Self.defaultClockSkew,
                keyLifetime: TimeInterval = Self.defaultKeyLifetime, refetchInterval: TimeInterval = Self.defaultRefetchInterval) {
        self.issuer = issuer
        self.audience = audience
        self.departmentClaim = departmentClaim
        self.roleClaim = roleClaim
        self.jwksURL = jwksURL
        self.clockSkew = clockSkew
        self.keyLifetime = keyLifetime
        self.refetchInterval = refetchInterval
    }
}

/// Verifies the tokens of an external OpenID Connect provider: RS256 or ES256 only (never
/// `none`, never HS256, whose "secret" would be the provider's public key), the key named by the
/// token's `kid` from the provider's JWKS (`OIDCKeySet`: discovered, cached, fetched again when
/// it lapses or a token names an unknown `kid`, at most every `refetchInterval`), the signature
/// checked by jwt-kit; then `iss`, `aud`, `exp`, `nbf` and `iat` with `clockSkew`; then the
/// department and role from the configured claims. A role outside viewer/editor/admin, or none,
/// is refused (403), never read as another; the department is checked against the store's by
/// `CallerMiddleware`.
public actor OIDCVerifier: BearerTokenVerifier {
    public nonisolated let configuration: OIDCConfiguration
    private let keys: OIDCKeySet

    public init(_ configuration: OIDCConfiguration) {
        self.configuration = configuration
        self.keys = OIDCKeySet(configuration)
    }

    /// The accepted algorithms and the key types they need.
    static let algorithms = ["RS256": "RSA", "ES256": "EC"]

    public func verifiedToken(_ token: String) async throws -> VerifiedToken {
        let provider = configuration.issuer
        func reject(_ why: String) -> Problem { Problem(.invalidToken, why + " (token of \(provider))") }
        let jwt: UnverifiedJWT
        do { jwt = try UnverifiedJWT(token) } catch let e as StoreError { throw reject(e.message) }
        let algorithm = jwt.algorithm ?? "none"
        guard Self.algorithms[algorithm] != nil else {
            throw reject("the token is signed with '\(algorithm)'; the provider's tokens must be RS256 or ES256")
        }
        guard let kid = jwt.keyID, !kid.isEmpty else { throw reject("the token names no key (kid)") }
        let set = try await keys.keySet(naming: kid)
        guard let keyAlgorithm = set.algorithms[kid] else {
            throw reject("the provider's key set has no key '\(kid)' (a forgery, or a key it no longer publishes)")
        }
        guard keyAlgorithm == algorithm else {
            throw reject("the token says \(algorithm) but the provider's key '\(kid)' is for \(keyAlgorithm)")
        }
        let claims: ProviderClaims
        do {
            claims = try await set.collection.verify(token, as: ProviderClaims.self)
        } catch {
            throw reject("the token's signature does not match the provider's key '\(kid)'")
        }
        try checkStandardClaims(claims, reject: reject)
        var verified = try identity(claims, reject: reject)
        verified.refusedFrom = claims["exp"]?.doubleValue.map { $0 + configuration.clockSkew }
        return verified
    }

    /// `iss`, `aud`, `exp`, `nbf`, `iat`.
    private func checkStandardClaims(_ claims: ProviderClaims, reject: (String) -> Problem) throws {
        guard claims["iss"]?.stringValue == configuration.issuer else {
            throw reject("the token's issuer is '\(claims["iss"]?.stringValue ?? "")', not '\(configuration.issuer)'")
        }
        let audiences = ProviderClaims.strings(claims["aud"])
        guard audiences.contains(configuration.audience) else {
            throw reject("the token is for \(audiences.isEmpty ? "no audience" : audiences.joined(separator: ", ")), not '\(configuration.audience)'")
        }
        let now = TwinClock.current.now.timeIntervalSince1970
        let skew = configuration.clockSkew
        guard let exp = claims["exp"]?.doubleValue else { throw reject("the token has no exp claim") }
        guard now < exp + skew else { throw reject("the token expired at \(RFC3339.formatSeconds(Date(timeIntervalSince1970: exp)))") }
        if let nbf = claims["nbf"]?.doubleValue, nbf > now + skew {
            throw reject("the token is not valid before \(RFC3339.formatSeconds(Date(timeIntervalSince1970: nbf)))")
        }
        if let iat = claims["iat"]?.doubleValue, iat > now + skew {
            throw reject("the token is issued in the future (\(RFC3339.formatSeconds(Date(timeIntervalSince1970: iat))))")
        }
    }

    /// The caller and revocation key of verified claims.
    private func identity(_ claims: ProviderClaims, reject: (String) -> Problem) throws -> VerifiedToken {
        let revocationKey: String
        if let id = claims["jti"]?.stringValue, !id.isEmpty {
            revocationKey = RevocationKey.jwt(issuer: configuration.issuer, id: id)
        } else if let subject = claims["sub"]?.stringValue, let iat = claims["iat"]?.integerValue {
            revocationKey = RevocationKey.jwt(issuer: configuration.issuer, subject: subject, issuedAt: iat)
        } else {
            throw reject("the token has neither jti nor sub and iat, so it could not be revoked")
        }
        let named = ProviderClaims.strings(claims.value(at: configuration.roleClaim))
        // Of the roles the provider granted, the highest CityTwin knows; other entries (Keycloak's
        // offline_access, …) are ignored, and a token granting none of the three is refused.
        guard let role = TokenClaims.Role.allCases.last(where: { named.contains($0.rawValue) }) else {
            throw Problem(.forbidden, "the token of \(configuration.issuer) grants no CityTwin role in its '\(configuration.roleClaim)' claim"
                          + " (\(named.isEmpty ? "none" : named.joined(separator: ", "))); one of viewer, editor or admin is needed")
        }
        let user = claims["preferred_username"]?.stringValue ?? claims["sub"]?.stringValue
        if role == .admin { return VerifiedToken(caller: .admin, revocationKey: revocationKey) }
        let departments = ProviderClaims.strings(claims.value(at: configuration.departmentClaim))
        guard departments.count == 1, let department = departments.first?.trimmingCharacters(in: .whitespaces), !department.isEmpty else {
            throw Problem(.forbidden, "the token of \(configuration.issuer) must name exactly one department in its '\(configuration.departmentClaim)' claim"
                          + " (it names \(departments.isEmpty ? "none" : departments.joined(separator: ", ")))")
        }
        let caller: Caller = .department(name: department, role: role == .editor ? .editor : .viewer, user: user)
        return VerifiedToken(caller: caller, revocationKey: revocationKey, departmentNeedsCheck: true)
    }
}

/// An OpenID provider token's claims, whatever they are: read after jwt-kit checked the signature.
struct ProviderClaims: JWTPayload {
    let values: [String: JSONValue]

    init(from decoder: any Decoder) throws {
        guard let object = try JSONValue(from: decoder).objectValue else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "the claims are not a JSON object"))
        }
        values = object
    }

    func encode(to encoder: any Encoder) throws { try JSONValue.object(values).encode(to: encoder) }

    /// The times and names are checked by `OIDCVerifier` with its clock, skew and messages.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    subscript(name: String) -> JSONValue? { values[name] }

    /// A claim that is one string or an array of them (`aud`, roles), as an array.
    static func strings(_ value: JSONValue?) -> [String] {
        guard let value else { return [] }
        return value.arrayValue?.compactMap(\.stringValue) ?? [value.stringValue].compactMap { $0 }
    }

    /// The claim `name`, or when there is none the value at its dotted path (`realm_access.roles`).
    func value(at name: String) -> JSONValue? {
        if let value = values[name] { return value }
        var current: JSONValue? = .object(values)
        for part in name.split(separator: ".") { current = current?[String(part)] }
        return current
    }
}

extension Problem.Kind {
    /// The OpenID provider's discovery document or key set cannot be fetched (and none is cached).
    static let identityProviderUnavailable = Problem.Kind(slug: "identity-provider-unavailable", title: "Identity provider unavailable",
                                                          status: .serviceUnavailable)
}
