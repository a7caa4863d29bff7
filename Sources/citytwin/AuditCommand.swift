import ArgumentParser
import Foundation
import TwinStore

/// `citytwin audit verify`: recomputes the store's audit hash chain (keyed: an HMAC under the
/// store's audit key, `AuditKey`) and names the first entry that breaks it (an edited row, or one
/// removed or reordered before it), finds entries removed from its end (the store's head, kept
/// by the database on every audit insert, counts more than the log holds; or a head recorded
/// earlier outside the store is no longer in it), and checks every stored feature version,
/// current and historic, against the entries that describe it (a version edited, added or
/// removed behind the store's back is named by layer and feature, never its data).
/// `citytwin audit key` keys a store's chain from its current head (stores from before keys).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check the store's tamper-evident audit log and the data it describes.",
        subcommands: [Verify.self, Key.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Recompute the audit log's keyed hash chain, check it ends where its head says and that every stored feature version is the one it records; exit 1 naming what is wrong.",
            discussion: "The chain's key is CITYTWIN_AUDIT_KEY, else (SpatiaLite) the <store>.audit-key file beside the store. An intact log prints its head (entries and last hash): record it elsewhere and pass it back later with --expect-entries and --expect-hash, so that even a log cut short together with the store's own head record is found.")

        @OptionGroup var storeOption: StoreOption

        @Option(help: "An entry count printed by an earlier verify: the log must still hold that many entries…")
        var expectEntries: Int?

        @Option(help: "…and the hash that verify printed for its last entry then.")
        var expectHash: String?

        @Flag(help: "Check the log only, not the stored feature versions against it.")
        var logOnly = false

        func validate() throws {
            guard (expectEntries == nil) == (expectHash == nil) else {
                throw ValidationError("--expect-entries and --expect-hash go together (both from one earlier `audit verify`)")
            }
            if let n = expectEntries, n < 0 { throw ValidationError("--expect-entries must be 0 or more, got \(n)") }
            if let h = expectHash, h.count != 64 || !h.allSatisfy(\.isHexDigit) {
                throw ValidationError("--expect-hash must be 64 hexadecimal digits, got '\(h)'")
            }
        }

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let expected = expectEntries.map { AuditHead(entries: $0, lastHash: (expectHash ?? "").lowercased()) }
            let check: AuditChainCheck
            switch store {
            case let s as SpatiaLiteStore: check = try await s.checkAuditChain(by: .admin, expected: expected, data: !logOnly)
            case let s as PostGISStore: check = try await s.checkAuditChain(by: .admin, expected: expected, data: !logOnly)
            default: throw CommandFailure("this store keeps no audit log")
            }
            switch check.keying {
            case .keyMissing(let id):
                throw CommandFailure("the audit chain is keyed (key \(id)) and no audit key was given: set \(AuditKey.variable), or keep the store's \(AuditKey.fileSuffix) file beside it")
            case .wrongKey(let id):
                throw CommandFailure("the audit chain is keyed with key \(id), not with the audit key given: give the store's key")
            case .recordForged:
                throw CommandFailure("audit log tampered: the record of where the chain became keyed is not sealed by the key (it was edited, to pass off rewritten entries as from before the key)")
            case .recordMissing:
                throw CommandFailure("audit log not keyed: an audit key is set but the store holds no key record and its first entry is not keyed: the chain was never keyed (run `citytwin audit key`), or its key record was removed and the log rewritten")
            case .boundaryMissing(let seq):
                throw CommandFailure("audit log tampered: the chain was keyed after entry \(seq), and the log no longer ends in that entry as it was: entries before the key were rewritten or removed")
            case .unkeyed, .keyed: break
            }
            if let seq = check.firstBreak {
                throw CommandFailure("audit log tampered: entry \(seq) does not follow from the entries before it (it was edited, or an entry before it was removed or reordered, or the log was rewritten without the key); \(check.entries - 1) entries before it are intact")
            }
            if check.missingAtEnd > 0, let head = check.head {
                throw CommandFailure("audit log truncated: its head records \(head.entries) entries ending in hash \(head.lastHash), but the log holds \(check.entries) ending in \(check.lastHash): entries were removed from its end")
            }
            if check.expectedFound == false, let e = check.expected {
                throw CommandFailure("audit log truncated or rewritten: entry \(e.entries) with hash \(e.lastHash) (recorded earlier) is not in the log, which holds \(check.entries) entries ending in \(check.lastHash)")
            }
            if let data = check.data, !data.isIntact {
                let lines = data.findings.map { "  layer \($0.layer), feature \($0.feature): \($0.problem)" }
                let more = data.findingCount > data.findings.count ? "\n  … and \(data.findingCount - data.findings.count) more" : ""
                throw CommandFailure("stored data tampered: \(data.findingCount) feature version\(data.findingCount == 1 ? "" : "s") not as the audit log records them:\n"
                                     + lines.joined(separator: "\n") + more)
            }
            switch check.keying {
            case .keyed(let from):
                print("audit log intact: \(check.entries) entries, each hash follows from the one before, keyed\(from > 0 ? " from entry \(from + 1) (the \(from) before it plain SHA-256, from before the store's chain was keyed)" : ""), ending where its head says")
            default:
                print("audit log intact: \(check.entries) entries, each hash follows from the one before, ending where its head says")
                FileHandle.standardError.write(Data("warning: the audit chain is not keyed (plain SHA-256): whoever can write the database can recompute it. Set \(AuditKey.variable) (PostGIS) and run `citytwin audit key` (docs/operations.md)\n".utf8))
            }
            if let data = check.data {
                print("stored data intact: \(data.versions) feature versions in \(data.layers) layers, each as the audit log records it")
            }
            print("head: --expect-entries \(check.entries) --expect-hash \(check.lastHash)")
        }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key",
            abstract: "Key the store's audit chain from its current head (a store from before audit keys; a new store's chain is keyed from its first entry).",
            discussion: "The key is CITYTWIN_AUDIT_KEY, else (SpatiaLite) the <store>.audit-key file beside the store, made when missing. The entries written so far stay plain SHA-256 and are checked as before; every later entry is an HMAC under the key. Run `audit verify` first: what was tampered with before the chain was keyed cannot be told afterwards.")

        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let keyed: AuditKeying
            switch store {
            case let s as SpatiaLiteStore: keyed = try await s.keyAuditChain(by: .admin)
            case let s as PostGISStore: keyed = try await s.keyAuditChain(by: .admin)
            default: throw CommandFailure("this store keeps no audit log")
            }
            guard keyed.isNew else {
                print("The audit chain is already keyed with key \(keyed.keyID), from entry \(keyed.sequence + 1); nothing to do.")
                return
            }
            print("audit chain keyed with key \(keyed.keyID) from entry \(keyed.sequence + 1): the \(keyed.sequence) entries before it stay plain SHA-256, the last ending in \(keyed.hash)")
        }
    }
}
