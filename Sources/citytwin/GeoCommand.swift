import ArgumentParser

/// `citytwin geo …`: geometry tools on standard input.
struct GeoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "geo",
        abstract: "Geometry tools: coordinate transforms and validity checks on GeoJSON or WKT.",
        subcommands: [GeoTransformCommand.self, GeoValidateCommand.self])
}
