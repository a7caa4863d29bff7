import ArgumentParser

struct NearestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "nearest", abstract: "Nearest-N emergency resources by travel time from an incident.")
    func run() async throws { throw ValidationError("nearest: not built yet") }
}
