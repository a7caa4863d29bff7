import TwinStore

/// Turns the token of an `Authorization: Bearer <token>` header into a `Caller`.
///
/// The planned implementation is an HMAC-SHA256 `TokenAuthority` (`v1.<base64url(json{dept,role,exp})>.<sig>`,
/// secret from `CITYTWIN_TOKEN_SECRET` or the store directory). It needs swift-crypto as a
/// declared dependency of the Server target, which it is not yet; until then the server runs
/// without a verifier and every request is anonymous (least privilege, never elevated).
public protocol BearerTokenVerifier: Sendable {
    /// The caller the token stands for.
    /// - Throws: a `Problem` of kind `.unauthorized` (malformed, expired or badly signed token).
    func caller(forToken token: String) throws -> Caller
}
