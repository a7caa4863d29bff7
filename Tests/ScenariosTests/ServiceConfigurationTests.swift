import Foundation
import Testing
import TestSupport

/// `serve` and `worker` read their options from the command line, then `CITYTWIN_<COMMAND>_<OPTION>`,
/// then the JSON file of `--config` or `CITYTWIN_CONFIG` (swift-configuration); every value passes
/// the checks a typed one does, and a name that is no option is refused naming it.
@Suite("Service options from the environment and a configuration file", .temporaryDirectories)
struct ServiceConfigurationTests {
    /// Runs `citytwin` with `arguments` and `environment`; its exit status and standard error.
    static func run(_ arguments: [String], _ environment: [String: String?] = [:]) async throws -> (status: Int32, errors: String) {
        let command = try await CommandProcess.run(try CommandProcessTests.executable.path, arguments,
                                                   environment: environment.merging(["CITYTWIN_CONFIG": nil]) { a, _ in a },
                                                   separateErrors: true, within: 60)
        return (command.exitStatus, command.errors)
    }

    static func file(_ json: String) throws -> String {
        let url = try TemporaryDirectory.forTestCase("config").url.appendingPathComponent("citytwin.json")
        try Data(json.utf8).write(to: url)
        return url.path
    }

    /// A store that does not exist: a command that passed its option checks fails on it instead.
    static let noStore = ["--store", "/nonexistent/city.sqlite"]

    @Test("a file's value is checked as the flag's is; the environment overrides the file, the command line both")
    func precedence() async throws {
        let zero = try Self.file(#"{"serve": {"storeTimeout": 0}}"#)
        let refused = try await Self.run(["serve", "--config", zero] + Self.noStore)
        #expect(refused.status != 0 && refused.errors.contains("--store-timeout must be 0.1…600 seconds, got 0.0"), "\(refused.errors)")
        // The command line wins: the option checks pass, and the missing store is what fails.
        let flagged = try await Self.run(["serve", "--config", zero, "--store-timeout", "5"] + Self.noStore)
        #expect(flagged.status != 0 && !flagged.errors.contains("--store-timeout") && flagged.errors.contains("city.sqlite"), "\(flagged.errors)")
        // The environment wins over the file, and CITYTWIN_CONFIG names the file.
        let five = try Self.file(#"{"serve": {"storeTimeout": 5}}"#)
        let env = try await Self.run(["serve"] + Self.noStore, ["CITYTWIN_CONFIG": five, "CITYTWIN_SERVE_STORE_TIMEOUT": "0"])
        #expect(env.errors.contains("--store-timeout must be 0.1…600 seconds, got 0.0"), "\(env.errors)")
        // The PostGIS pool size: checked from the file, the environment and the command line alike.
        let pool = try await Self.run(["serve", "--config", try Self.file(#"{"serve": {"postgresPoolSize": 0}}"#)] + Self.noStore)
        #expect(pool.status != 0 && pool.errors.contains("--postgres-pool-size must be 1…256 connections, got 0"), "\(pool.errors)")
        let workerPool = try await Self.run(["worker"] + Self.noStore, ["CITYTWIN_WORKER_POSTGRES_POOL_SIZE": "257"])
        #expect(workerPool.errors.contains("--postgres-pool-size must be 1…256 connections, got 257"), "\(workerPool.errors)")
        let cache = try await Self.run(["worker"] + Self.noStore, ["CITYTWIN_WORKER_RESOURCE_LAYER_CACHE": "0"])
        #expect(cache.errors.contains("--resource-layer-cache must be 1…10000 layers, got 0"), "\(cache.errors)")
        let poolOK = try await Self.run(["serve", "--postgres-pool-size", "16"] + Self.noStore)
        #expect(poolOK.status != 0 && !poolOK.errors.contains("--postgres-pool-size") && poolOK.errors.contains("city.sqlite"), "\(poolOK.errors)")
        let worker = try await Self.run(["worker"] + Self.noStore, ["CITYTWIN_WORKER_SHUTDOWN_GRACE": "0"])
        #expect(worker.status != 0 && worker.errors.contains("--shutdown-grace"), "\(worker.errors)")
    }

    @Test("a variable or a file key that names no option is refused, naming it and the options there are")
    func unknownNames() async throws {
        let variable = try await Self.run(["serve"] + Self.noStore, ["CITYTWIN_SERVE_PROT": "8081"])
        #expect(variable.status != 0 && variable.errors.contains("CITYTWIN_SERVE_PROT names no option of citytwin serve")
                && variable.errors.contains("store-timeout"), "\(variable.errors)")
        let key = try await Self.run(["serve", "--config", try Self.file(#"{"serve": {"prot": 8081}}"#)] + Self.noStore)
        #expect(key.status != 0 && key.errors.contains("'serve.prot' names no option of citytwin serve") && key.errors.contains("storeTimeout"),
                "\(key.errors)")
        let command = try await Self.run(["serve", "--config", try Self.file(#"{"serv": {}}"#)] + Self.noStore)
        #expect(command.status != 0 && command.errors.contains("'serv' is not a command read from the file"), "\(command.errors)")
        let broken = try await Self.run(["serve", "--config", try Self.file("{")] + Self.noStore)
        #expect(broken.status != 0 && broken.errors.contains("must be a JSON object"), "\(broken.errors)")
    }
}
