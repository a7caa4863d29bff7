import ArgumentParser

/// `citytwin network …`: emergency and utility network analyses on the one map.
struct NetworkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "network", abstract: "Road routing, nearest resources, service areas, utility traces and valve isolation.",
        subcommands: [RouteCommand.self, NearestCommand.self, IsochroneCommand.self, CoverageCommand.self, HazardCommand.self,
                      TraceCommand.self, IsolateCommand.self])
}
