import ArgumentParser
import Foundation
import TwinStore

/// `citytwin audit verify`: recomputes the store's audit hash chain and names the first entry
/// that breaks it (an edited row, or one removed or reordered before it).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Check the store's tamper-evident audit log.",
        subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Recompute the audit log's hash chain; exit 1 naming the first entry that breaks it.")

        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let check: AuditChainCheck
            switch store {
            case let s as SpatiaLiteStore: check = try await s.checkAuditChain(by: .admin)
            case let s as PostGISStore: check = try await s.checkAuditChain(by: .admin)
            default: throw CommandFailure("this store keeps no audit log")
            }
            if let seq = check.firstBreak {
                throw CommandFailure("audit log tampered: entry \(seq) does not follow from the entries before it (it was edited, or an entry before it was removed or reordered); \(check.entries - 1) entries before it are intact")
            }
            print("audit log intact: \(check.entries) entries, each hash follows from the one before")
        }
    }
}
