import ArgumentParser
import Foundation

@main
struct CityTwinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "citytwin",
        abstract: "CityTwin: the spatial digital twin of a city's one map (一张图).",
        subcommands: [
            ServeCommand.self, DistrictCommand.self, CityCommand.self, ImportCommand.self, LayersCommand.self, RasterCommand.self, FloodRunsCommand.self, TokenCommand.self, WorkerCommand.self, AuditCommand.self,
            ExportCommand.self, Tiles3DCommand.self, SimulateCommand.self, ScenarioCommand.self, SignalCommand.self, ParkingCommand.self, NetworkCommand.self, FireCommand.self, SpongeCommand.self, GeocodeCommand.self, GeoCommand.self, QualityCommand.self, VersionCommand.self,
        ])

    /// ArgumentParser's `main`, with every error a command lets escape worded by the CLI's one
    /// error mapping (`CommandFailure.presenting`), as the HTTP API words it; the service commands'
    /// options also from the environment and a configuration file (`ServiceConfiguration`).
    static func main() async {
        do {
            let arguments = try await ServiceConfiguration.arguments(Array(CommandLine.arguments.dropFirst()),
                                                                     environment: ProcessInfo.processInfo.environment)
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: CommandFailure.presenting(error))
        }
    }
}
