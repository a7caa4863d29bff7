import ArgumentParser

struct SimulateDrainageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "drainage", abstract: "Runs a SWMM 5 model's 1D drainage simulation and prints one JSON summary (SI units).")
    func run() async throws { throw ValidationError("drainage: not built yet") }
}
