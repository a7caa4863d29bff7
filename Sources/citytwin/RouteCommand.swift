import ArgumentParser

struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "route", abstract: "Fastest route between two points on the road network.")
    func run() async throws { throw ValidationError("route: not built yet") }
}
