import ArgumentParser

struct SimulateFloodCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flood", abstract: "Runs a coupled flood scenario on the district and writes the result layers.")
    func run() async throws { throw ValidationError("flood: not built yet") }
}
