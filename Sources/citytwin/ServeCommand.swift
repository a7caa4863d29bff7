import ArgumentParser
import Foundation
import CityModel
import Logging
import NIOCore
import ProcessRuntime
import Scenarios
import Server
import TwinStore

/// `citytwin serve`: the OGC APIs over an existing store, until SIGINT/SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the city's layers over OGC API Features (Parts 1-4), Tiles (MVT) and Processes, with the web map at /map.",
        discussion: "The store must exist (build it with `citytwin district build` or `citytwin import`); layer definitions of --layers are created or updated in it at start-up.")

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }
    @OptionGroup var rasterOption: RasterOption

    @Option(help: "TCP port to listen on.")
    var port: Int = 8080

    @Option(help: "Host name or address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Directory of layer definitions (<id>.json) to create or update in the store at start-up.")
    var layers: String = ProjectFiles.path("Layers")

    @Option(help: "Public base URL for links (default http://HOST:PORT).")
    var baseURL: String?

    @Option(help: "Least severe log level written: trace, debug, info (one line per request), notice, warning, error, critical.")
    var logLevel: String = "info"

    @Option(help: "Seconds a request waits for a PostgreSQL connection, or for a statement's first answer, before it answers 503 with Retry-After (database down, restarting or saturated).")
    var storeTimeout: Double = PostGISStore.defaultConnectionWait.seconds

    @Option(help: "Seconds running requests may take to finish after SIGTERM or SIGINT before they are cancelled and the server exits.")
    var shutdownGrace: Double = GracefulStop.defaultGrace.seconds

    @Option(help: "Seconds a connection may stay silent (idle between requests, or trickling a request head or body) before it is closed.")
    var idleTimeout: Double = RequestLimits().idleTimeout

    @Option(help: "Bytes of all request header fields together (and of one field); a larger head is refused.")
    var maxHeaderBytes: Int = RequestLimits().maxHeaderBytes

    @Option(help: "Bytes of the query string; a longer one answers 414.")
    var maxQueryBytes: Int = RequestLimits().maxQueryBytes

    @Option(help: "Bytes of a CQL2 filter parameter; a longer one answers 400.")
    var maxFilterBytes: Int = RequestLimits().maxFilterBytes

    @Option(help: "Bytes of a request body (feature writes, process execution); a larger one answers 413.")
    var maxBodyBytes: Int = RequestLimits().maxBodyBytes

    @Option(help: "Requests one bearer token may have in progress at once; one more answers 429 with Retry-After (a flood); a client reading page after page never reaches it; 0: no limit.")
    var tokenConcurrency: Int = RequestLimits().tokenConcurrency

    @Option(help: "Requests one client address without a token may have in progress at once; one more answers 429 with Retry-After; 0: no limit.")
    var addressConcurrency: Int = RequestLimits().addressConcurrency

    @Option(help: "A quota: requests per second one bearer token may send (bursts of --token-burst) before 429 with Retry-After, which a client paging fast reaches too; 0 (the default): none.")
    var tokenRate: Double = RequestLimits().tokenRate

    @Option(help: "The --token-rate quota's burst: requests one bearer token may send in one go before its rate applies.")
    var tokenBurst: Double = RequestLimits().tokenBurst

    @Option(help: "A quota: requests per second one client address may send without a token (bursts of --address-burst) before 429; 0 (the default): none.")
    var addressRate: Double = RequestLimits().addressRate

    @Option(help: "The --address-rate quota's burst: requests one client address may send in one go without a token before its rate applies.")
    var addressBurst: Double = RequestLimits().addressBurst

    @Flag(help: "Take the client address from the last X-Forwarded-For entry (only behind a load balancer that sets it).")
    var trustForwardedFor = false

    @Option(help: "SensorThings writes in progress or waiting at once; one more answers 503 with Retry-After; 0: no bound.")
    var sensingWriteQueue: Int = RequestLimits().sensingWriteQueue

    @Option(help: "An origin whose web pages may call the API from a browser (repeat for several; * for every origin, the default; none for no CORS).")
    var corsOrigin: [String] = []

    @Flag(help: "Let those origins' pages write (POST, PUT, PATCH, DELETE) too; without it they may only read.")
    var corsWrites = false

    @Option(help: "Adaptive signal control: webster-retiming or saturation-balancing. Each time live counts (SensorThings) make an intersection's newest interval whole, its running plan takes one bounded re-timing step, written as a new signal_plans version under the sender. Default: off (plans change only when re-timed by hand or by a schedule).")
    var signalRetiming: String?

    var crossOrigin: CrossOriginPolicy {
        let origins = corsOrigin.isEmpty ? ["*"] : corsOrigin.contains("none") ? [] : corsOrigin
        return CrossOriginPolicy(origins: origins, allowsWrites: corsWrites)
    }

    var limits: RequestLimits {
        RequestLimits(idleTimeout: idleTimeout, maxHeaderBytes: maxHeaderBytes, maxQueryBytes: maxQueryBytes, maxFilterBytes: maxFilterBytes,
                      maxBodyBytes: maxBodyBytes, tokenConcurrency: tokenConcurrency, addressConcurrency: addressConcurrency, tokenRate: tokenRate, tokenBurst: tokenBurst, addressRate: addressRate,
                      addressBurst: addressBurst, trustForwardedFor: trustForwardedFor, sensingWriteQueue: sensingWriteQueue)
    }

    func validate() throws {
        if let signalRetiming, SignalPlanning.Retiming(rawValue: signalRetiming) == nil {
            throw ValidationError("--signal-retiming must be one of \(SignalPlanning.Retiming.allCases.map(\.rawValue).joined(separator: ", ")), got '\(signalRetiming)'")
        }
        guard idleTimeout.isFinite, idleTimeout >= 0.1, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be 0.1…86400 seconds, got \(idleTimeout)")
        }
        for (name, value) in [("--max-header-bytes", maxHeaderBytes), ("--max-query-bytes", maxQueryBytes),
                              ("--max-filter-bytes", maxFilterBytes), ("--max-body-bytes", maxBodyBytes)] where value < 256 {
            throw ValidationError("\(name) must be at least 256, got \(value)")
        }
        for (name, value) in [("--token-concurrency", tokenConcurrency), ("--address-concurrency", addressConcurrency)] where value < 0 {
            throw ValidationError("\(name) must be 0 (no limit) or more requests in progress, got \(value)")
        }
        for (name, value) in [("--token-rate", tokenRate), ("--address-rate", addressRate)] where !(value.isFinite && value >= 0) {
            throw ValidationError("\(name) must be 0 (no limit) or more requests per second, got \(value)")
        }
        for (name, value) in [("--token-burst", tokenBurst), ("--address-burst", addressBurst)] where !(value.isFinite && value >= 1) {
            throw ValidationError("\(name) must be at least 1, got \(value)")
        }
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1…65535, got \(port)") }
        guard storeTimeout.isFinite, storeTimeout >= 0.1, storeTimeout <= 600 else {
            throw ValidationError("--store-timeout must be 0.1…600 seconds, got \(storeTimeout)")
        }
        guard shutdownGrace.isFinite, shutdownGrace >= 0.1, shutdownGrace <= 600 else {
            throw ValidationError("--shutdown-grace must be 0.1…600 seconds, got \(shutdownGrace)")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got \(logLevel)")
        }
    }

    func run() async throws {
        let location = try StoreLocation(store)
        let featureStore = try await location.openExisting(connectionWait: .seconds(storeTimeout))
        let directory = URL(fileURLWithPath: layers, isDirectory: true)
        if FileManager.default.fileExists(atPath: directory.path) {
            let catalog = try LayerCatalog.load(directory: directory)
            for definition in catalog.definitions { try await featureStore.createLayer(definition) }
            print("Loaded \(catalog.definitions.count) layer definitions from \(directory.path)")
        } else {
            print("No layer directory at \(directory.path); serving the layers already in the store")
        }
        let retiming = signalRetiming.flatMap(SignalPlanning.Retiming.init(rawValue:))  // checked in validate()
        let rasters = rasterOption.rasters(for: location)
        var logger = Logger(label: "citytwin.server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let server = CityTwinServer(store: featureStore,
                                    options: ServerOptions(baseURL: baseURL ?? "http://\(host):\(port)", logger: logger,
                                                          tokenVerifier: try Self.tokenVerifier(location),
                                                          processes: .forStore(directory: location.directory, rasters: rasters),
                                                          rasters: rasters, limits: limits, crossOrigin: crossOrigin,
                                                          signalRetiming: retiming))
        do {
            try await server.run(host: host, port: port, shutdownGrace: .seconds(shutdownGrace)) { [host, port] in
                FileHandle.standardOutput.write(Data("CityTwin serving on http://\(host):\(port) (Ctrl-C to stop)\n".utf8))
            }
        } catch let e as IOError where e.errnoCode == EADDRINUSE {
            throw CommandFailure("cannot listen on \(host):\(port): another program is using that port (stop it, or choose another with --port)")
        }
    }

    /// What the server verifies tokens with: the authority of `CITYTWIN_TOKEN_SECRET`, or of the
    /// secret file beside a SpatiaLite store, re-read when `token rotate-secret` replaces it.
    static func tokenVerifier(_ location: StoreLocation) throws -> any BearerTokenVerifier {
        if case .spatiaLite(let path) = location, (ProcessInfo.processInfo.environment[TokenAuthority.secretVariable] ?? "").isEmpty {
            do { return try ReloadingTokenAuthority(storePath: path) } catch let e as StoreError { throw CommandFailure(e.message) }
        }
        return try location.tokenAuthority()
    }
}
