import Foundation
import Testing
import TestSupport

/// GDAL's own programs (Debian's gdal-bin), which make the fixtures and the reference answers:
/// the Swift side reads through libgdal, the programs are GDAL's published behaviour.
enum GDALTools {
    /// Runs `program` with `arguments`; its output, or a failure naming it and what it printed.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], in directory: URL) async throws -> String {
        let child = try await CommandProcess.run("/usr/bin/\(program)", arguments, directory: directory.path, within: 120)
        try #require(child.exitStatus == 0, "\(program) \(arguments.joined(separator: " ")) failed: \(child.output)")
        return child.output
    }

    /// Writes `text` to `name` in `directory`, in `encoding`.
    static func write(_ text: String, _ name: String, in directory: URL, encoding: String.Encoding = .utf8) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try #require(text.data(using: encoding)).write(to: url)
        return url
    }
}
