import ArgumentParser

/// `citytwin simulate …`: the simulation kernels run from the command line.
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate", abstract: "Runs simulations (drainage, flood, flood nowcast).",
        subcommands: [SimulateDrainageCommand.self, SimulateFloodCommand.self, SimulateNowcastCommand.self])
}
