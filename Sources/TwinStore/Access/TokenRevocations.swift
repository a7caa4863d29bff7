import Foundation

/// The store's revocation list of bearer tokens (issue 21 §4): a token revoked here is refused by
/// every server on the store although its signature and expiry are good (a lost laptop, a person
/// leaving a department). Kept in `store_meta` under `revoked:<digest>`, the value its expiry, so
/// that entries of tokens that have lapsed anyway can be pruned. A digest is a `RevocationKey`.
public protocol TokenRevocations: Sendable {
    /// Records that the token with `digest` (a `RevocationKey`) may no longer be used; it
    /// would lapse at `expiresAt` (seconds since 1970) anyway.
    func revokeToken(digest: String, expiresAt: Int64) async throws
    /// Digests of the revoked tokens that have not lapsed yet at `now` (seconds since 1970).
    func revokedTokens(now: Int64) async throws -> Set<String>
}

/// A token's name on the revocation list, a SHA-256 in hex (the list never holds a usable token):
/// - a JWT with a `jti` (CityTwin's own, most OpenID providers'): its issuer and `jti`;
/// - a JWT without one: its issuer, `sub` and `iat` (every token the provider issued to that
///   subject in that second);
/// - a `ct1.` token: its text.
public enum RevocationKey {
    /// The key of a JWT with an id.
    public static func jwt(issuer: String, id: String) -> String {
        SHA256.hex(Array("jti\u{0}\(issuer)\u{0}\(id)".utf8))
    }

    /// The key of a JWT without an id.
    public static func jwt(issuer: String, subject: String, issuedAt: Int64) -> String {
        SHA256.hex(Array("sub\u{0}\(issuer)\u{0}\(subject)\u{0}\(issuedAt)".utf8))
    }

    /// The key of a `ct1.` token: the digest of its text.
    public static func token(_ text: String) -> String {
        SHA256.hex(Array(text.utf8))
    }
}

extension TokenAuthority {
    /// A `ct1.` token's identity on the revocation list: the SHA-256 of its text, in hex.
    public static func digest(_ token: String) -> String {
        RevocationKey.token(token)
    }
}

enum RevocationSQL {
    static let prefix = "revoked:"
}
