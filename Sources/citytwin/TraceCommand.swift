import ArgumentParser

struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trace", abstract: "Upstream or downstream trace on the drainage or water-supply network.")
    func run() async throws { throw ValidationError("trace: not built yet") }
}
