import Foundation
import Testing
import TestSupport

/// Options with a closed vocabulary are typed: `--help` lists the values, and any other value is
/// refused by the parser before the command runs, naming the option and every value it takes.
@Suite("CLI options with closed vocabularies")
struct CommandVocabularyTests {
    /// (command words, option, its values, a bad value).
    static let vocabularies: [([String], String, [String])] = [
        (["network", "route", "--from", "114.80,30.84", "--to", "114.82,30.85"], "--profile", ["driving", "walking"]),
        (["network", "isochrone", "--at", "114.80,30.84"], "--profile", ["driving", "walking"]),
        (["network", "nearest", "--from", "114.80,30.84", "--layer", "fire_stations"], "--profile", ["driving", "walking"]),
        (["signal", "plan", "--all"], "--method", ["webster", "webster-retiming", "saturation-balancing"]),
        (["geo", "validate"], "--method", ["linework", "structure"]),
        (["export", "tiles", "out.pmtiles"], "--format", ["pmtiles", "mbtiles"]),
        (["serve"], "--log-level", ["trace", "debug", "info", "notice", "warning", "error", "critical"]),
    ]

    @Test("a value outside the vocabulary is refused naming the option and the values", arguments: vocabularies)
    func refusesOtherValues(_ words: [String], _ option: String, _ values: [String]) async throws {
        let citytwin = try CommandProcessTests.executable.path
        let run = try await CommandProcess.run(citytwin, words + [option, "no-such-value", "--store", "/nonexistent/store.sqlite"], separateErrors: true)
        #expect(run.exitStatus != 0)
        #expect(run.errors.contains("'no-such-value' is invalid for '\(option)"), "\(run.errors)")
        // Few values are quoted in a sentence, many listed one a line (`- trace`).
        for value in values {
            #expect(run.errors.contains("'\(value)'") || run.errors.contains("- \(value)\n"), "\(option) \(value): \(run.errors)")
        }
    }

    @Test("--help lists the values", arguments: vocabularies)
    func helpListsValues(_ words: [String], _ option: String, _ values: [String]) async throws {
        let citytwin = try CommandProcessTests.executable.path
        let subcommand = words.prefix { !$0.hasPrefix("--") && !$0.contains(".") }
        let run = try await CommandProcess.run(citytwin, Array(subcommand) + ["--help"], separateErrors: true)
        #expect(run.exitStatus == 0)
        let line = run.output.split(separator: "\n").drop { !$0.trimmingCharacters(in: .whitespaces).hasPrefix(option + " <") }.prefix(4).joined(separator: " ")
        for value in values { #expect(line.contains(value), "\(option) \(value): \(line)") }
    }
}
