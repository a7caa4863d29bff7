import ArgumentParser
import Foundation
import TwinStore

/// `citytwin audit verify`: recomputes the store's audit hash chain and names the first entry
/// that breaks it (an edited row, or one removed or reordered before it), and finds entries
/// removed from its end (the store's head, kept by the database on every audit insert, counts
/// more than the log holds; or a head recorded earlier outside the store is no longer in it).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check the store's tamper-evident audit log.",
        subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Recompute the audit log's hash chain and check it ends where its head says; exit 1 naming what is wrong.",
            discussion: "An intact log prints its head (entries and last hash): record it elsewhere and pass it back later with --expect-entries and --expect-hash, so that even a log cut short together with the store's own head record is found.")

        @OptionGroup var storeOption: StoreOption

        @Option(help: "An entry count printed by an earlier verify: the log must still hold that many entries…")
        var expectEntries: Int?

        @Option(help: "…and the hash that verify printed for its last entry then.")
        var expectHash: String?

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
            case let s as SpatiaLiteStore: check = try await s.checkAuditChain(by: .admin, expected: expected)
            case let s as PostGISStore: check = try await s.checkAuditChain(by: .admin, expected: expected)
            default: throw CommandFailure("this store keeps no audit log")
            }
            if let seq = check.firstBreak {
                throw CommandFailure("audit log tampered: entry \(seq) does not follow from the entries before it (it was edited, or an entry before it was removed or reordered); \(check.entries - 1) entries before it are intact")
            }
            if check.missingAtEnd > 0, let head = check.head {
                throw CommandFailure("audit log truncated: its head records \(head.entries) entries ending in hash \(head.lastHash), but the log holds \(check.entries) ending in \(check.lastHash): entries were removed from its end")
            }
            if check.expectedFound == false, let e = check.expected {
                throw CommandFailure("audit log truncated or rewritten: entry \(e.entries) with hash \(e.lastHash) (recorded earlier) is not in the log, which holds \(check.entries) entries ending in \(check.lastHash)")
            }
            print("audit log intact: \(check.entries) entries, each hash follows from the one before, ending where its head says")
            print("head: --expect-entries \(check.entries) --expect-hash \(check.lastHash)")
        }
    }
}
