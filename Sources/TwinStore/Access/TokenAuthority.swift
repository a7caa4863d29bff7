import Crypto
import Foundation
import GeoCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Issues and verifies the bearer tokens a department presents to write to its layers
/// (cim-and-layers.md §6: write permission is per department).
///
/// A token is a JSON Web Token (RFC 7519) signed HS256 with the server's secret: the header
/// `{"alg":"HS256","typ":"JWT"}` and the claims `iss` ("citytwin"), `sub` (the person, when
/// named), `iat`, `exp` (whole seconds since 1970-01-01 UTC), `jti` (a random id, the token's
/// name on the revocation list), `dept` and `role`. Verification goes through jwt-kit: the
/// algorithm must be HS256 (never `none`, never another), the signature is checked before any
/// claim is trusted, then the issuer, the expiry and the issue time. The CLI (`citytwin token
/// create`) and the server share one secret: the environment variable `CITYTWIN_TOKEN_SECRET`,
/// else a file beside the store created once with mode 0600.
///
/// Tokens of the earlier format, `ct1.<claims>.<signature>` (HMAC-SHA256 under the same secret),
/// are still verified until they lapse (at most 366 days after they were issued; nothing issues
/// them any more): docs/security.md, "Identity".
///
/// ```swift
/// let authority = try TokenAuthority.forStore(path: "city.sqlite")
/// let token = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工",
///                                         lifetime: 30 * 86_400))
/// let caller = try await authority.verify(token).caller   // .department(name: "应急管理局", role: .editor, user: "王工")
/// ```
public struct TokenAuthority: Sendable {
    /// The environment variable that holds the secret (at least 32 bytes of UTF-8 text).
    public static let secretVariable = "CITYTWIN_TOKEN_SECRET"
    /// The version prefix of the earlier tokens (`ct1.<claims>.<signature>`), still verified until they lapse.
    public static let legacyPrefix = "ct1"
    /// The `iss` claim of every token CityTwin issues.
    public static let issuer = "citytwin"
    /// The shortest secret accepted, in bytes (HMAC-SHA256's block-size guidance: ≥ 256 bits).
    public static let minimumSecretLength = 32
    /// Tokens longer than this (bytes) are rejected before any decoding.
    static let maximumTokenLength = 4096
    /// Tolerated clock difference between issuer and verifier for `iat`, in seconds.
    static let clockSkew: TimeInterval = 300

    let key: SymmetricKey

    /// - Parameter secret: the signing secret, at least `minimumSecretLength` bytes.
    /// - Throws: `StoreError` `.invalidToken` naming `secret` when it is too short.
    public init(secret: [UInt8]) throws {
        guard secret.count >= Self.minimumSecretLength else {
            throw StoreError(.invalidToken, "the token secret has \(secret.count) bytes; at least \(Self.minimumSecretLength) are needed",
                             field: "secret")
        }
        key = SymmetricKey(data: secret)
    }

    /// The authority of the store at `path` (a SpatiaLite file): the secret from
    /// `CITYTWIN_TOKEN_SECRET` when set, else from `<path>.token-secret`, which is created
    /// (32 random bytes, hex, mode 0600) on first use. A secret file readable by group or
    /// others is refused.
    /// - Parameters:
    ///   - path: the store file; `nil` (a PostGIS store) requires the environment variable.
    ///   - environment: the process environment (injectable for tests).
    public static func forStore(path: String?,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TokenAuthority {
        if let text = environment[secretVariable], !text.isEmpty {
            guard text.utf8.count >= minimumSecretLength else {
                throw StoreError(.invalidToken, "\(secretVariable) has \(text.utf8.count) bytes; at least \(minimumSecretLength) are needed",
                                 field: secretVariable)
            }
            return try TokenAuthority(secret: Array(text.utf8))
        }
        guard let path, !path.isEmpty else {
            throw StoreError(.invalidToken, "set \(secretVariable): a store without a file has no place to keep the token secret",
                             field: secretVariable)
        }
        return try TokenAuthority(secret: try SecretFile(path: path + ".token-secret").readOrCreate())
    }

    /// The claims of a token of either format (`verifyJWT`, `verifyLegacy`), refused when it has
    /// expired at `now` or is issued in the future.
    /// - Throws: `StoreError` `.invalidToken` saying why (malformed, another algorithm, bad
    ///   signature, another issuer, expired, issued in the future, unknown role); the message
    ///   never echoes the token.
    public func verify(_ token: String, now: Date = TwinClock.current.now) async throws -> TokenClaims {
        guard token.utf8.count <= Self.maximumTokenLength else {
            throw Self.reject("the token is longer than \(Self.maximumTokenLength) bytes")
        }
        let claims = token.hasPrefix(Self.legacyPrefix + ".") ? try verifyLegacy(token) : try await verifyJWT(token)
        let t = Int64(now.timeIntervalSince1970.rounded(.down))
        guard claims.expiresAt > t else { throw Self.reject("the token expired at \(Self.format(claims.expiresAt))") }
        guard Double(claims.issuedAt) <= Double(t) + Self.clockSkew else {
            throw Self.reject("the token is issued in the future (\(Self.format(claims.issuedAt)))")
        }
        return claims
    }

    /// The claims of a `ct1.` token this authority's secret signed (expiry not checked here).
    func verifyLegacy(_ token: String) throws -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.legacyPrefix else {
            throw Self.reject("the token is not a CityTwin token (a JWT, or \(Self.legacyPrefix).<claims>.<signature>)")
        }
        guard let signature = Base64URL.decode(parts[2]) else { throw Self.reject("the token's signature is not base64url") }
        let signed = Data(parts[0].utf8) + Data(".".utf8) + Data(parts[1].utf8)
        guard HMAC<Crypto.SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key) else {
            throw Self.reject("the token's signature does not match (tampered, or signed with another secret)")
        }
        guard let json = Base64URL.decode(parts[1]) else { throw Self.reject("the token's claims are not base64url") }
        do {
            var claims = try JSONDecoder().decode(TokenClaims.self, from: json)
            claims.id = nil  // a ct1 token is named on the revocation list by its text (RevocationKey.token)
            return claims
        } catch {
            throw Self.reject("the token's claims are not {dept, role, sub, iat, exp} with a known role")
        }
    }

    static func reject(_ why: String) -> StoreError { StoreError(.invalidToken, why, field: "token") }

    static func format(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
}

/// The authority of a store's secret file for a long-running server: the file is looked at
/// again at most every `recheckInterval` and re-read when it was replaced (`citytwin token
/// rotate-secret`), so every token the old secret signed is refused from then on, without a restart.
public final class ReloadingTokenAuthority: Sendable {
    /// How often the file is looked at, at most.
    public static let recheckInterval: Duration = .seconds(1)

    private let file: SecretFile
    private struct State {
        var authority: TokenAuthority
        var stamp: [Int64]?
        var checked: ContinuousClock.Instant
        /// How many times the file was read again.
        var epoch = 0
    }
    private let state: Mutex<State>

    /// The authority of the secret file beside the store at `path` (created when missing).
    public init(storePath path: String) throws {
        file = SecretFile(path: path + ".token-secret")
        let authority = try TokenAuthority(secret: try file.readOrCreate())
        state = Mutex(State(authority: authority, stamp: file.stamp(), checked: .now))
    }

    /// The authority as of now: the file's secret, re-read when the file changed.
    /// - Throws: `StoreError` `.invalidToken` when the replaced file cannot be read (every token is refused then).
    public func current() throws -> TokenAuthority {
        try currentWithEpoch().authority
    }

    /// The authority as of now and how many times the file has been read again: a token a
    /// stream holds is verified again when the number changed (the secret was rotated).
    public func currentWithEpoch() throws -> (authority: TokenAuthority, epoch: Int) {
        try state.withLock { state in
            let now = ContinuousClock.now
            guard now - state.checked >= Self.recheckInterval else { return (state.authority, state.epoch) }
            state.checked = now
            let stamp = file.stamp()
            guard stamp != state.stamp else { return (state.authority, state.epoch) }
            state.authority = try TokenAuthority(secret: try file.readOrCreate())
            state.stamp = stamp
            state.epoch += 1
            return (state.authority, state.epoch)
        }
    }
}

extension TokenAuthority {
    /// Replaces the secret in the file beside the SpatiaLite store at `path` with a new random
    /// one: every token signed before is refused from then on (servers on the store re-read the
    /// file within `ReloadingTokenAuthority.recheckInterval`).
    /// - Throws: `StoreError` `.invalidToken` when the secret comes from `CITYTWIN_TOKEN_SECRET`
    ///   (change that instead) or the file cannot be written.
    public static func rotateSecret(storePath path: String?,
                                    environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if let text = environment[secretVariable], !text.isEmpty {
            throw StoreError(.invalidToken, "the secret comes from \(secretVariable): set a new value (at least \(minimumSecretLength) bytes) there and restart the servers",
                             field: secretVariable)
        }
        guard let path, !path.isEmpty else {
            throw StoreError(.invalidToken, "a store without a file keeps its secret in \(secretVariable): set a new value there and restart the servers",
                             field: secretVariable)
        }
        try SecretFile(path: path + ".token-secret").rotate()
    }
}

/// What a token asserts: who (department, person), with which role, from when until when.
public struct TokenClaims: Codable, Hashable, Sendable {
    /// The role a token grants.
    public enum Role: String, Codable, Hashable, Sendable, CaseIterable {
        /// Reads the layers shared with the department (and those it owns), writes nothing.
        case viewer
        /// Reads like a viewer and writes the layers the department owns.
        case editor
        /// The platform administrator: reads and writes every layer, unmasked.
        case admin
    }

    /// The department (e.g. "应急管理局"); may be empty for `admin`.
    public var department: String
    public var role: Role
    /// The person or system the token was issued to (version author and audit actor).
    public var subject: String?
    /// Issued at, in seconds since 1970-01-01 UTC.
    public var issuedAt: Int64
    /// Expires at (exclusive), in seconds since 1970-01-01 UTC.
    public var expiresAt: Int64
    /// The token's id (`jti`), its name on the revocation list; `nil` for a `ct1.` token, which
    /// the list names by its text.
    public var id: String?

    enum CodingKeys: String, CodingKey {
        case department = "dept", role, subject = "sub", issuedAt = "iat", expiresAt = "exp", id = "jti"
    }

    /// - Parameter id: the token's `jti`; a new random one by default.
    public init(department: String, role: Role, subject: String?, issuedAt: Int64, expiresAt: Int64,
                id: String? = UUID().uuidString.lowercased()) {
        self.department = department
        self.role = role
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.id = id
    }

    /// Claims valid from `now` for `lifetime` seconds, with a new random id.
    public init(department: String, role: Role, subject: String?, lifetime: TimeInterval, now: Date = TwinClock.current.now) {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        self.init(department: department, role: role, subject: subject, issuedAt: iat,
                  expiresAt: iat + Int64(lifetime.rounded(.down)))
    }

    /// The token's name on the store's revocation list: its `jti` under CityTwin's issuer, or
    /// for a `ct1.` token (no id) the digest of its text.
    public func revocationKey(token: String) -> String {
        id.map { RevocationKey.jwt(issuer: TokenAuthority.issuer, id: $0) } ?? RevocationKey.token(token)
    }

    /// The store caller the token stands for: `.admin` for the admin role, else the
    /// department with the role and the subject as the user.
    public var caller: Caller {
        switch role {
        case .admin: .admin
        case .editor: .department(name: department, role: .editor, user: subject)
        case .viewer: .department(name: department, role: .viewer, user: subject)
        }
    }
}

extension StoreError.Code {
    /// A bearer token (or its secret) is malformed, badly signed or expired.
    public static let invalidToken = StoreError.Code(rawValue: "invalid-token")
}

/// RFC 4648 §5 base64url without padding, as JWTs use it.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        var s = data.base64EncodedString()
        s = s.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while s.hasSuffix("=") { s.removeLast() }
        return s
    }

    /// `nil` unless `text` is unpadded base64url in its one canonical form: the bits a last
    /// character carries beyond the data must be zero (RFC 4648 §3.5). Base64 decoders ignore
    /// them, so without this check one token had several texts (its last character changed,
    /// the same bytes): a `ct1.` token named on the revocation list by its text came back in
    /// another spelling (issue 78 §7). Every encoding of one token is now the same token.
    static func decode(_ text: some StringProtocol) -> Data? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let rem = s.utf8.count % 4
        if rem == 1 { return nil }
        if rem > 0 { s += String(repeating: "=", count: 4 - rem) }
        guard let data = Data(base64Encoded: s), encode(data) == text else { return nil }
        return data
    }

    /// Whether `text` is unpadded base64url in its canonical form (`decode` answers it).
    static func isCanonical(_ text: some StringProtocol) -> Bool { decode(text) != nil }
}

/// A secret kept beside a SpatiaLite store (the token secret, the audit key): 64 hex digits,
/// owner read/write only.
struct SecretFile {
    let path: String
    /// What the secret is, for messages: "token secret", "audit key".
    var what = "token secret"

    init(path: String, what: String = "token secret") {
        self.path = path
        self.what = what
    }

    /// The secret, `nil` when the file does not exist.
    func readIfPresent() throws -> [UInt8]? { try read() }

    func readOrCreate() throws -> [UInt8] {
        if let existing = try read() { return existing }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let text = SHA256.hexString(key) + "\n"
        // Written whole to a private temporary file, then hard-linked into place: when two
        // processes race, exactly one link succeeds and the other reads the winner's secret.
        let temporary = path + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw failure("cannot create", temporary) }
        defer { unlink(temporary) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0 else { throw failure("cannot write", temporary) }
        if link(temporary, path) != 0 {
            if errno == EEXIST, let existing = try read() { return existing }
            throw failure("cannot create", path)
        }
        return Array(bytes.dropLast())
    }

    /// Replaces the secret with a new random one, atomically (a private temporary file renamed
    /// over the old): from then on every token the old secret signed fails verification.
    func rotate() throws {
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        let bytes = Array((SHA256.hexString(key) + "\n").utf8)
        let temporary = path + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw failure("cannot create", temporary) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            let error = failure("cannot write", path)
            unlink(temporary)
            throw error
        }
    }

    /// What identifies the file's current content cheaply: inode, size and modification time.
    func stamp() -> [Int64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec)]
    }

    private func failure(_ what: String, _ file: String) -> StoreError {
        StoreError(.invalidToken, "\(what) the \(self.what) file \(file): \(String(cString: strerror(errno)))", field: "secret")
    }

    /// The secret, `nil` when the file does not exist.
    private func read() throws -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard info.st_mode & 0o077 == 0 else {
            throw StoreError(.invalidToken, "the \(what) file \(path) is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it",
                             field: "secret")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError(.invalidToken, "cannot read the \(what) file \(path)", field: "secret")
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count >= TokenAuthority.minimumSecretLength else {
            throw StoreError(.invalidToken, "the \(what) file \(path) holds fewer than \(TokenAuthority.minimumSecretLength) bytes",
                             field: "secret")
        }
        return Array(text.utf8)
    }
}
