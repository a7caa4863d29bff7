import ArgumentParser

struct IsochroneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "isochrone", abstract: "Service areas (isochrones) around a point for several time breaks.")
    func run() async throws { throw ValidationError("isochrone: not built yet") }
}
