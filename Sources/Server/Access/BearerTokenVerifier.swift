import TwinStore

/// Turns the token of an `Authorization: Bearer <token>` header into a `Caller`.
///
/// CityTwin's implementation is `TokenAuthority` (HMAC-SHA256 signed `ct1.` tokens, secret from
/// `CITYTWIN_TOKEN_SECRET` or the file beside the store), shared with `citytwin token create`.
/// A server without a verifier treats every request as anonymous (least privilege, never elevated).
public protocol BearerTokenVerifier: Sendable {
    /// The caller the token stands for.
    /// - Throws: a `Problem` of kind `.invalidToken` (malformed, expired or badly signed token),
    ///   answered as 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
    func caller(forToken token: String) throws -> Caller
}

extension TokenAuthority: BearerTokenVerifier {
    public func caller(forToken token: String) throws -> Caller {
        do {
            return try verify(token).caller
        } catch let e as StoreError {
            throw Problem(.invalidToken, e.message)
        }
    }
}

extension ReloadingTokenAuthority: BearerTokenVerifier {
    public func caller(forToken token: String) throws -> Caller {
        do {
            return try current().verify(token).caller
        } catch let e as StoreError {
            throw Problem(.invalidToken, e.message)
        }
    }
}
