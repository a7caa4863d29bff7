import ArgumentParser

struct IsolateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "isolate", abstract: "Valves that isolate a burst main, and the customers cut off.")
    func run() async throws { throw ValidationError("isolate: not built yet") }
}
