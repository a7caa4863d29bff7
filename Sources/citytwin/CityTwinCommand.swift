import ArgumentParser

@main
struct CityTwinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "citytwin",
        abstract: "CityTwin: the spatial digital twin of a city's one map (一张图).",
        subcommands: [
            ServeCommand.self, DistrictCommand.self, CityCommand.self, ImportCommand.self, LayersCommand.self, RasterCommand.self, FloodRunsCommand.self, TokenCommand.self, WorkerCommand.self, AuditCommand.self,
            ExportCommand.self, SimulateCommand.self, ScenarioCommand.self, SignalCommand.self, ParkingCommand.self, NetworkCommand.self, GeocodeCommand.self, GeoCommand.self, VersionCommand.self,
        ])
}
