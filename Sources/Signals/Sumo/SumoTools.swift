import Foundation
import GeoCore
import ProcessRuntime
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// SUMO's programs (`sumo`, `netconvert`) where they are installed, and the one way CityTwin
/// runs them: as a child process whose error output becomes the failure's message, whose
/// progress is reported while it runs, and which is killed when the work is cancelled.
public enum SumoTools {
    /// A SUMO program on PATH, else in `$SUMO_HOME/bin`, else in the project's virtual
    /// environment (`.venv/bin` of `ProjectFiles`, PyPI `eclipse-sumo`). The entry-point scripts pip writes for
    /// eclipse-sumo only start the real program as their own child (which would outlive a killed
    /// script), so a script found is resolved to the program in the package's `bin`.
    public static func find(_ name: String) -> URL? {
        let environment = ProcessInfo.processInfo.environment
        let paths = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + (environment["SUMO_HOME"].map { ["\($0)/bin"] } ?? []) + [ProjectFiles.path(".venv/bin")]
        guard let found = paths.map({ URL(fileURLWithPath: $0).appendingPathComponent(name) })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { return nil }
        return program(behind: found, name) ?? found
    }

    /// `sumo` and `netconvert`, when both are installed.
    public static func installed() -> (sumo: URL, netconvert: URL)? {
        guard let sumo = find("sumo"), let netconvert = find("netconvert") else { return nil }
        return (sumo, netconvert)
    }

    /// The program an eclipse-sumo entry-point script (`from sumo import …`) starts: `bin/NAME`
    /// of the `sumo` package in the script's environment (`../lib/python3.*/site-packages`).
    static func program(behind script: URL, _ name: String) -> URL? {
        guard let handle = try? FileHandle(forReadingFrom: script) else { return nil }
        defer { try? handle.close() }
        let head = String(decoding: handle.readData(ofLength: 512), as: UTF8.self)
        guard head.hasPrefix("#!"), head.contains("from sumo import") else { return nil }
        let lib = script.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path))?.filter { $0.hasPrefix("python") }.sorted() ?? []
        return pythons.map { lib.appendingPathComponent($0).appendingPathComponent("site-packages/sumo/bin/\(name)") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// SUMO's version as `sumo --version` prints it, e.g. `1.28.0`.
    public static func version(_ sumo: URL) async throws -> String {
        let output = try await run(sumo, ["--version"])
        // "Eclipse SUMO sumo 1.28.0" (older releases: "Eclipse SUMO sumo Version 1.15.0").
        let first = output.split(separator: "\n").first.map(String.init) ?? ""
        return first.split(separator: " ").last.map(String.init) ?? first
    }

    /// A SUMO program that failed: which one, its exit status and what it wrote to standard error.
    public struct Failure: Error, CustomStringConvertible {
        public var program: String
        public var status: Int32
        public var message: String
        public var description: String {
            "\(program) failed (exit status \(status)): \(message.isEmpty ? "no message" : message)"
        }
    }

    /// Runs `program` with `arguments` and answers its standard output. While it runs, `progress`
    /// is called about every quarter second; a throwing `progress` or a cancelled task kills the
    /// program (SIGTERM, then SIGKILL) and rethrows.
    /// - Throws: `Failure` when it exits unsuccessfully.
    public static func run(_ program: URL, _ arguments: [String], in directory: URL? = nil,
                           progress: (@Sendable () async throws -> Void)? = nil) async throws -> String {
        var options = PlatformOptions()
        // A cancelled run (the job dismissed, the server stopping): SIGTERM, a second to go, then SIGKILL.
        options.teardownSequence = [.send(signal: .terminate, allowedDurationToNextStep: .seconds(1))]
        var environment: [Environment.Key: String?] = [:]
        if ProcessInfo.processInfo.environment["SUMO_HOME"] == nil {
            environment["SUMO_HOME"] = program.deletingLastPathComponent().deletingLastPathComponent().path
        }
        let configuration = Configuration(executable: .path(FilePath(program.path)), arguments: Arguments(arguments),
                                          environment: .inherit.updating(environment),
                                          workingDirectory: directory.map { FilePath($0.path) }, platformOptions: options)
        // The run and the progress calls side by side: the first to end (the run, or a throwing
        // progress) ends the other; cancelling the run tears the program down.
        let result = try await withThrowingTaskGroup(of: Ended?.self) { group in
            group.addTask {
                let record = try await Subprocess.run(configuration, input: .none, output: .bytes(limit: outputLimit),
                                                      error: .bytes(limit: outputLimit))
                return Ended(status: record.terminationStatus, output: record.standardOutput, errors: record.standardError)
            }
            if let progress {
                group.addTask {
                    while true {
                        try await Task.sleep(nanoseconds: 250_000_000)
                        try await progress()
                    }
                }
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let next { return next }
            }
            throw CancellationError()
        }
        let errors = String(decoding: result.errors, as: UTF8.self)
        guard case .exited(0) = result.status else {
            let message = errors.split(separator: "\n").filter { !$0.hasPrefix("Warning") }.suffix(5).joined(separator: " ")
            let status: Int32 = switch result.status {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
            throw Failure(program: program.lastPathComponent, status: status, message: message)
        }
        return String(decoding: result.output, as: UTF8.self)
    }

    /// The most a SUMO program may write to standard output or error (its step log, warnings).
    static let outputLimit = 64 << 20

    /// How a program ended, and what it wrote.
    struct Ended: Sendable {
        var status: TerminationStatus
        var output: [UInt8]
        var errors: [UInt8]
    }

    /// The latest `arrival` time (simulation s) in the last few kilobytes SUMO has written of a
    /// `tripinfo` output, nil before the first: how far a running simulation has got (SUMO's
    /// step log reaches a pipe only when it ends, its file outputs are flushed as they fill).
    public static func latestArrival(in tripinfo: URL) -> Double? {
        guard let handle = try? FileHandle(forReadingFrom: tripinfo) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        guard let range = text.range(of: "arrival=\"", options: .backwards) else { return nil }
        return Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }
}
