import ArgumentParser
import Flood
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios

/// `citytwin flood-runs`: the flood runs of the store (each `simulate flood` or `flood-scenario`
/// job is one): list them, publish one as the current run every department's map and hazard
/// overlay answer from, archive or delete one. Run on the store's machine as the admin.
struct FloodRunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flood-runs",
        abstract: "List, publish, archive and delete flood runs (each run keeps its own result layers).",
        subcommands: [List.self, Publish.self, Archive.self, Delete.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The runs, newest first, as JSON: inputs, who ran them and when, state, layers.")
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            try printJSONDocument(JSONValue.array(try await catalog(storeOption).list(by: .admin).map(\.document)))
        }
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish a finished run as the current one: its layers are shared as their templates say; the map and the hazard overlay answer from it.")
        @Argument(help: "The run's id, e.g. p50-waterlogging-2.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let run = try await catalog(storeOption).publish(id, by: .admin)
            print("published \(run.id) as the current flood run (layers \(run.layers.joined(separator: ", ")))")
        }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Archive a run: its record stays, its layers become the water authority's alone.")
        @Argument(help: "The run's id.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            let run = try await catalog(storeOption).archive(id, by: .admin)
            print("archived \(run.id)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a run: its layers, its rasters and its record (audited).")
        @Argument(help: "The run's id.")
        var id: String
        @OptionGroup var storeOption: StoreOption
        @OptionGroup var rasterOption: RasterOption

        func run() async throws {
            let location = try StoreLocation(storeOption.path)
            let store = try await location.openExisting()
            try await FloodRunCatalog(store: store).delete(id, rasters: rasterOption.rasters(for: location), by: .admin)
            print("deleted \(id)")
        }
    }
}

private func catalog(_ option: StoreOption) async throws -> FloodRunCatalog {
    FloodRunCatalog(store: try await StoreLocation(option.path).openExisting())
}
