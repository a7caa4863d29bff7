import Foundation
import TestSupport

/// The `sqlite3` command-line shell: reads a store or a GeoPackage independently of the code that
/// wrote it, and changes a store behind the server's back (tampering, truncation).
enum SQLiteShell {
    /// What `sql` prints (rows a line each, columns `|`-separated), trimmed.
    static func run(_ file: String, _ sql: String, readOnly: Bool = false) async throws -> String {
        let shell = try await CommandProcess.run("/usr/bin/sqlite3", (readOnly ? ["-readonly"] : []) + ["-batch", "-noheader", file, sql],
                                                 separateErrors: true, within: 120)
        guard shell.exitStatus == 0 else { throw HarnessFailure("sqlite3 \(sql): exit \(shell.exitStatus): \(shell.errors)") }
        return shell.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first column of the first row of `sql`, read only.
    static func scalar(_ file: String, _ sql: String) async throws -> String {
        try await run(file, sql, readOnly: true).split(separator: "\n").first.map(String.init) ?? ""
    }
}
