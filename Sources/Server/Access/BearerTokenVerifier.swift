import TwinStore

/// Turns the token of an `Authorization: Bearer <token>` header into a `Caller`.
///
/// CityTwin's own implementation is `TokenAuthority` (HS256 JWTs, and until they lapse the
/// earlier `ct1.` tokens; secret from `CITYTWIN_TOKEN_SECRET` or the file beside the store),
/// shared with `citytwin token create`. `OIDCVerifier` verifies an external OpenID Connect
/// provider's tokens, and `IdentityVerifiers` accepts both side by side. A server without a
/// verifier treats every request as anonymous (least privilege, never elevated).
public protocol BearerTokenVerifier: Sendable {
    /// Who the token stands for and its name on the revocation list.
    /// - Throws: a `Problem` of kind `.invalidToken` (malformed, expired or badly signed token),
    ///   answered as 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
    func verifiedToken(_ token: String) async throws -> VerifiedToken

    /// A number that changes when the keys tokens are checked with change (`citytwin token
    /// rotate-secret` replaced the secret): a stream holding a token verifies it again then
    /// (`TokenLife`). Verifiers whose keys never invalidate a token they accepted answer 0.
    var keyEpoch: Int { get }
}

extension BearerTokenVerifier {
    public var keyEpoch: Int { 0 }
}

/// A token whose signature and times were checked.
public struct VerifiedToken: Sendable, Hashable {
    /// The caller the token stands for.
    public var caller: Caller
    /// The token's name on the store's revocation list (`RevocationKey`).
    public var revocationKey: String
    /// Whether another system (an OpenID provider) named the department: the server then checks
    /// that the store knows it (`KnownDepartments`), as `citytwin token create` does for its own.
    public var departmentNeedsCheck: Bool
    /// From when (seconds since 1970) the token is refused as expired, the clock skew allowed
    /// included; `nil` when it does not expire. A stream holding the token ends then (`TokenLife`).
    public var refusedFrom: Double?

    public init(caller: Caller, revocationKey: String, departmentNeedsCheck: Bool = false, refusedFrom: Double? = nil) {
        self.caller = caller
        self.revocationKey = revocationKey
        self.departmentNeedsCheck = departmentNeedsCheck
        self.refusedFrom = refusedFrom
    }

    /// The name the limits count the caller by (`RequestLimitMiddleware`, `LiveStreams`): the
    /// verified identity, the same as its name on the revocation list (a JWT's issuer and `jti`,
    /// or issuer, `sub` and `iat`; a `ct1.` token's canonical text), never the header's text, which
    /// one token can be spelt many ways in (HTTP Basic with any user name).
    public var identity: String { revocationKey }
}

extension BearerTokenVerifier {
    /// The caller the token stands for (revocation not checked).
    public func caller(forToken token: String) async throws -> Caller {
        try await verifiedToken(token).caller
    }
}

extension TokenAuthority: BearerTokenVerifier {
    public func verifiedToken(_ token: String) async throws -> VerifiedToken {
        do {
            let claims = try await verify(token)
            return VerifiedToken(caller: claims.caller, revocationKey: claims.revocationKey(token: token), refusedFrom: Double(claims.expiresAt))
        } catch let e as StoreError {
            throw Problem(.invalidToken, e.message)
        }
    }
}

extension ReloadingTokenAuthority: BearerTokenVerifier {
    public func verifiedToken(_ token: String) async throws -> VerifiedToken {
        let authority: TokenAuthority
        do {
            authority = try current()
        } catch let e as StoreError {
            throw Problem(.invalidToken, e.message)
        }
        return try await authority.verifiedToken(token)
    }

    /// How many times the secret file has been read again since the server started.
    public var keyEpoch: Int { (try? currentWithEpoch().epoch) ?? -1 }
}

/// CityTwin's own tokens and an OpenID Connect provider's, side by side: a token whose (not yet
/// trusted) `iss` is the provider's goes to `external`, every other one to `own`, which accepts
/// only its own issuer. Each verifier then checks the signature with its own keys, so choosing by
/// `iss` grants nothing: a forged `iss` only picks the verifier that refuses it.
public struct IdentityVerifiers: BearerTokenVerifier {
    public let own: any BearerTokenVerifier
    public let external: OIDCVerifier

    public init(own: any BearerTokenVerifier, external: OIDCVerifier) {
        self.own = own
        self.external = external
    }

    public func verifiedToken(_ token: String) async throws -> VerifiedToken {
        if !token.hasPrefix(TokenAuthority.legacyPrefix + "."), let jwt = try? UnverifiedJWT(token) {
            if jwt.issuer == external.configuration.issuer { return try await external.verifiedToken(token) }
            if jwt.issuer != TokenAuthority.issuer {
                throw Problem(.invalidToken, "the token is issued by '\(jwt.issuer ?? "nobody")', neither by CityTwin ('\(TokenAuthority.issuer)')"
                              + " nor by the configured identity provider (\(external.configuration.issuer))")
            }
        }
        return try await own.verifiedToken(token)
    }

    /// The provider's keys never invalidate a token they verified (a key it stops publishing
    /// only refuses new requests); the own secret's rotation does.
    public var keyEpoch: Int { own.keyEpoch }
}
