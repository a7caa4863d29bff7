import Foundation

/// The store's revocation list of bearer tokens (issue 21 §4): a token revoked here is refused by
/// every server on the store although its signature and expiry are good (a lost laptop, a person
/// leaving a department). Kept in `store_meta` under `revoked:<digest>`, the value its expiry, so
/// that entries of tokens that have lapsed anyway can be pruned.
public protocol TokenRevocations: Sendable {
    /// Records that the token with `digest` (`TokenAuthority.digest`) may no longer be used; it
    /// would lapse at `expiresAt` (seconds since 1970) anyway.
    func revokeToken(digest: String, expiresAt: Int64) async throws
    /// Digests of the revoked tokens that have not lapsed yet at `now` (seconds since 1970).
    func revokedTokens(now: Int64) async throws -> Set<String>
}

extension TokenAuthority {
    /// A token's identity on the revocation list: the SHA-256 of its text, in hex (the list
    /// never holds a usable token).
    public static func digest(_ token: String) -> String {
        SHA256.hex(Array(token.utf8))
    }
}

enum RevocationSQL {
    static let prefix = "revoked:"
}
