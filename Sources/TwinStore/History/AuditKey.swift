import Crypto
import Foundation
import Synchronization

/// The secret that keys the audit chain: each entry's hash is an HMAC-SHA256 under it (RFC 2104)
/// of the entry and the hash before it, so that whoever can write the store's database, but does
/// not hold the key, cannot recompute the chain after editing, adding or removing an entry or a
/// feature version (`citytwin audit verify` checks both). The key is never in the database: it
/// comes from the environment variable `CITYTWIN_AUDIT_KEY` (at least 32 bytes of text; a
/// PostGIS store's processes all need it), else, for a SpatiaLite store, from the file beside it,
/// `<store>.audit-key` (64 hex digits, mode 0600, made with a new store or by `citytwin audit key`).
///
/// The store records where its chain became keyed (`AuditKeyRecord`: the entries before it were
/// chained with plain SHA-256 by earlier versions, and the record is sealed with the key), and
/// which key (its id, never the key): docs/operations.md, "The audit log".
public struct AuditKey: Sendable {
    /// The environment variable that holds the key (at least `minimumLength` bytes of UTF-8 text).
    public static let variable = "CITYTWIN_AUDIT_KEY"
    /// The shortest key accepted, in bytes (256 bits).
    public static let minimumLength = 32
    /// The suffix of the key file beside a SpatiaLite store.
    public static let fileSuffix = ".audit-key"

    /// The HMAC state after absorbing the key: copied for each entry, so the key is hashed once.
    private let prepared: HMAC<Crypto.SHA256>
    /// 16 hex digits that name the key (an HMAC of a fixed text under it), recorded in the store
    /// so that a process with another key is told so; it reveals nothing of the key.
    public let id: String

    /// - Throws: `StoreError` `.invalidToken` naming the key when it is shorter than `minimumLength`.
    public init(secret: [UInt8]) throws {
        guard secret.count >= Self.minimumLength else {
            throw StoreError(.invalidToken, "the audit key has \(secret.count) bytes; at least \(Self.minimumLength) are needed",
                             field: Self.variable)
        }
        prepared = HMAC(key: SymmetricKey(data: secret))
        var h = prepared
        h.update(data: Array("citytwin audit key id".utf8))
        id = String(SHA256.hexString(Array(h.finalize())).prefix(16))
    }

    /// The key from text (the environment variable's form).
    public init(text: String) throws {
        try self.init(secret: Array(text.utf8))
    }

    /// Lower-case hex HMAC-SHA256 of `bytes` under the key.
    func mac(_ bytes: [UInt8]) -> String {
        var h = prepared
        h.update(data: bytes)
        return SHA256.hexString(Array(h.finalize()))
    }

    /// The key of a store's processes: `CITYTWIN_AUDIT_KEY` when set, else the file beside a
    /// SpatiaLite store when it exists (`create`: made when missing); `nil` when there is none.
    /// - Parameters:
    ///   - path: the SpatiaLite file; `nil` for PostGIS, whose key only the environment gives.
    /// - Throws: `StoreError` `.invalidToken` for a key too short, or a file readable by others
    ///   or that cannot be read or made.
    public static func forStore(path: String?, create: Bool = false,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AuditKey? {
        if let text = environment[variable], !text.isEmpty { return try AuditKey(text: text) }
        guard let path, !path.isEmpty else { return nil }
        let file = SecretFile(path: path + fileSuffix, what: "audit key")
        if create { return try AuditKey(secret: try file.readOrCreate()) }
        return try file.readIfPresent().map { try AuditKey(secret: $0) }
    }
}

/// Where a store's audit chain is keyed from (`keyAuditChain`, `citytwin audit key`).
public struct AuditKeying: Sendable, Hashable {
    /// The last entry before the keyed ones (0: the chain is keyed from its first entry).
    public var sequence: Int64
    /// That entry's hash (the genesis hash for 0).
    public var hash: String
    /// The key's id (`AuditKey.id`).
    public var keyID: String
    /// Whether this call keyed the chain (else it already was).
    public var isNew: Bool

    public init(sequence: Int64, hash: String, keyID: String, isNew: Bool) {
        self.sequence = sequence
        self.hash = hash
        self.keyID = keyID
        self.isNew = isNew
    }

    /// A chain already keyed by `record`, asked to be keyed with `key`.
    /// - Throws: `StoreError` `.backend` when `record` names another key.
    init(already record: AuditKeyRecord, key: AuditKey) throws {
        guard record.keyID == key.id else {
            throw StoreError(.backend, "the audit chain is already keyed with key \(record.keyID), not with this process's key \(key.id)")
        }
        self.init(sequence: record.seq, hash: record.hash, keyID: record.keyID, isNew: false)
    }
}

/// Which key a store's process signs new audit entries with, decided when the store opens.
public enum AuditKeySource: Sendable {
    /// `CITYTWIN_AUDIT_KEY`, else a SpatiaLite store's key file (`AuditKey.forStore`); a new
    /// SpatiaLite store gets a key file of its own.
    case automatic
    /// This key (tests, or a key read elsewhere).
    case key(AuditKey)
    /// No key: an unkeyed chain stays unkeyed; a keyed one cannot be written.
    case none
}

/// Where a store's audit chain became keyed: the entries up to `seq` (0: none) were chained with
/// plain SHA-256, the one at `seq` ending in `hash` (the genesis hash for 0); every later entry
/// is an HMAC under the key `keyID` names. `seal` is an HMAC of the rest under the key, so the
/// record cannot be moved, and removing it leaves keyed entries no unkeyed chain explains.
struct AuditKeyRecord: Sendable, Hashable {
    var keyID: String
    var seq: Int64
    var hash: String
    var seal: String

    init(keyID: String, seq: Int64, hash: String, seal: String) {
        self.keyID = keyID
        self.seq = seq
        self.hash = hash
        self.seal = seal
    }

    /// The record of a chain keyed with `key` after entry `seq` (hash `hash`).
    init(key: AuditKey, seq: Int64, hash: String) {
        self.init(keyID: key.id, seq: seq, hash: hash, seal: Self.seal(key: key, seq: seq, hash: hash))
    }

    static func seal(key: AuditKey, seq: Int64, hash: String) -> String {
        key.mac(Array("citytwin audit chain keyed\u{1F}\(key.id)\u{1F}\(seq)\u{1F}\(hash)".utf8))
    }

    /// Whether `key` sealed this record.
    func isSealed(by key: AuditKey) -> Bool {
        keyID == key.id && seal == Self.seal(key: key, seq: seq, hash: hash)
    }

    /// The table that holds the record (one row at most), in `prefix` (a PostgreSQL schema and a dot).
    static func createTable(prefix: String = "", integer: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(prefix)audit_key (
            id integer PRIMARY KEY CHECK (id = 1), key_id text NOT NULL, from_seq \(integer) NOT NULL,
            from_hash text NOT NULL, seal text NOT NULL)
        """
    }
}

/// Which key a write signs its audit entries with, decided in the write's transaction from the
/// store's key record, so that a chain keyed while a process runs (`citytwin audit key`) is
/// written keyed from then on by every process that holds the key.
enum AuditSigning {
    /// The key for new entries: none while the chain is unkeyed (no record), the process's key
    /// when the record names it.
    /// - Parameters:
    ///   - recorded: the key id of the store's record (`nil`: none).
    ///   - held: this process's key.
    /// - Throws: `StoreError` `.backend` when the chain is keyed and the process has no key or
    ///   another one: an entry it wrote would break the chain, so nothing is written.
    static func key(recorded: String?, held: AuditKey?) throws -> AuditKey? {
        guard let recorded else { return nil }
        guard let held else {
            throw StoreError(.backend, "the store's audit chain is keyed (key \(recorded)) and this process has no audit key: set \(AuditKey.variable), or keep the store's \(AuditKey.fileSuffix) file beside it; nothing was written")
        }
        guard held.id == recorded else {
            throw StoreError(.backend, "the store's audit chain is keyed with key \(recorded), and this process holds key \(held.id): give it the store's key; nothing was written")
        }
        return held
    }
}

/// The audit key a store's process holds: the one it opened with, or, for a SpatiaLite store that
/// had no key file then, the file once `citytwin audit key` has made it (read when a write finds
/// the chain keyed), so a running server writes the keyed chain without a restart.
final class HeldAuditKey: Sendable {
    private let state: Mutex<AuditKey?>
    private let path: String?

    /// - Parameter rereading: the store whose key file to read when there is no key yet.
    init(_ key: AuditKey?, rereading path: String?) {
        state = Mutex(key)
        self.path = path
    }

    /// The key, reading the store's key file when there was none.
    func current() throws -> AuditKey? {
        try state.withLock { key in
            if key == nil, let path { key = try AuditKey.forStore(path: path, environment: [:]) }
            return key
        }
    }
}
