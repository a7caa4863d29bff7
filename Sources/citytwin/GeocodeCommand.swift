import ArgumentParser

struct GeocodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "geocode", abstract: "Geocodes Chinese addresses to standard address records (forward), or points to addresses (reverse).")
    func run() async throws { throw ValidationError("geocode: not built yet") }
}
