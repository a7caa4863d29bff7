import ArgumentParser
import GeoCore

/// `citytwin fire`: the fire-rescue one map's analyses (消防救援一张图) on a local store, as the admin.
struct FireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fire",
        abstract: "Fire-rescue analyses: hydrant coverage by GB 50974-2014.",
        subcommands: [HydrantCoverageCommand.self])
}

/// `citytwin fire hydrant-coverage`: the `hydrant-coverage` process, printed as JSON.
struct HydrantCoverageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hydrant-coverage",
        abstract: "Streets and buildings beyond 150 m of a working hydrant along the streets, spacing over 120 m, one-sided wide roads (JSON).")

    @Flag(inversion: .prefixedNo, help: "List the stretches farther than 60 m from a hydrant (spacing over 120 m).")
    var spacingGaps = true
    @Option(help: "Most gaps and uncovered buildings listed (1…10000).")
    var maximumListed = 1_000
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        let inputs: [String: JSONValue] = ["spacingGaps": .bool(spacingGaps), "maximumListed": .integer(Int64(maximumListed))]
        try printJSONDocument(try await ProcessRunner(store: storeOption.path).run("hydrant-coverage", inputs))
    }
}
