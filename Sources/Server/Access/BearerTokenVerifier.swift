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

    public init(caller: Caller, revocationKey: String, departmentNeedsCheck: Bool = false) {
        self.caller = caller
        self.revocationKey = revocationKey
        self.departmentNeedsCheck = departmentNeedsCheck
    }
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
            return VerifiedToken(caller: claims.caller, revocationKey: claims.revocationKey(token: token))
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
}
