import ArgumentParser
import Foundation
import CityModel
import Emergency
import Geocoding
import Logging
import NIOCore
import ProcessRuntime
import Scenarios
import Server
import Signals
import Tiles
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

    @Option(help: "A JSON file of this command's options, e.g. {\"serve\": {\"storeTimeout\": 10}}; an option given on the command line or as CITYTWIN_SERVE_<OPTION> (e.g. CITYTWIN_SERVE_STORE_TIMEOUT) takes precedence. Also CITYTWIN_CONFIG.")
    var config: String?

    @Option(help: "TCP port to listen on.")
    var port: Int = 8080

    @Option(help: "Host name or address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Directory of layer definitions (<id>.json) to create or update in the store at start-up.")
    var layers: String = ProjectFiles.path("Layers")

    @Option(help: "Public base URL for links (default http://HOST:PORT).")
    var baseURL: String?

    @Option(help: "Least severe log level written: trace, debug, info (one line per request), notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    @Option(help: "Seconds a request waits for a PostgreSQL connection, or for a statement's first answer, before it answers 503 with Retry-After (database down, restarting or saturated).")
    var storeTimeout: Double = PostGISStore.defaultConnectionWait.seconds

    @Option(help: "Resource layers (shelters, hydrants, …) nearest-resources keeps read and snapped in memory, per store, travel profile and caller class; the least recently used is dropped beyond it (1…10000; default 32).")
    var resourceLayerCache: Int = SnappedResources.defaultMaximumLayers

    @Option(help: "MiB one standard address index (the geocoder's, built from the addresses layer) may take; a larger one is not built and geocoding answers why (16…1048576; default 1024: a city of 2.25 M addresses takes about 340).")
    var addressIndexMemory: Int = AddressGeocoders.defaultMemoryLimit >> 20

    @Option(help: "MiB of vector tiles kept in memory, the least recently used dropped beyond it (1…65536; default 256). Their gzip forms, made for the clients that ask, come on top (about a third more).")
    var tileCache: Int = TileCache.defaultMaximumMiB

    @Option(help: "PostGIS: the most database connections this process holds at once (1…256; default 8). Each serve and worker holds its own pool: keep their sum below PostgreSQL's max_connections.")
    var postgresPoolSize: Int = StoreLocation.defaultPoolSize

    @Option(help: "Seconds running requests may take to finish after SIGTERM or SIGINT before they are cancelled and the server exits.")
    var shutdownGrace: Double = GracefulStop.defaultGrace.seconds

    @OptionGroup(title: "Request limits") var limitOptions: RequestLimitOptions

    @OptionGroup(title: "OpenID Connect provider") var oidcOptions: OIDCOptions

    @Option(help: "An origin whose web pages may call the API from a browser (repeat for several; * for every origin, the default; none for no CORS).")
    var corsOrigin: [String] = []

    @Flag(help: "Let those origins' pages write (POST, PUT, PATCH, DELETE) too; without it they may only read.")
    var corsWrites = false

    @Option(help: "Adaptive signal control: webster-retiming or saturation-balancing. Each time live counts (SensorThings) make an intersection's newest interval whole, its running plan takes one bounded re-timing step, written as a new signal_plans version under the sender. Default: off (plans change only when re-timed by hand or by a schedule).")
    var signalRetiming: String?

    @Option(help: "Serve SensorThings over MQTT 3.1.1 on this TCP port of --host (FROST-Server's topics: subscribe to v1.1/Datastreams(2)/Observations, publish an Observation to create it; the password is a department token). Default: off.")
    var mqttPort: Int?

    @Option(help: "MQTT clients connected at once (with --mqtt-port); one more is answered CONNACK 3 (server unavailable).")
    var mqttMaxConnections: Int = 1000

    @Option(help: "Anonymous MQTT clients connected at once, of --mqtt-max-connections (0…--mqtt-max-connections − 1; default half of it): the other slots are kept for clients with a token. One more anonymous client is answered CONNACK 3.")
    var mqttMaxAnonymous: Int?

    @Option(help: "Anonymous MQTT clients connected at once from one IP address; one more is answered CONNACK 3.")
    var mqttMaxAnonymousPerAddress: Int = 32

    @Option(help: "MQTT connections from one IP address that have not sent their CONNECT yet; a new one beyond closes the oldest of them, so a client that sends its CONNECT at once always gets in.")
    var mqttMaxPendingPerAddress: Int = 16

    @Option(help: "Bytes of an MQTT CONNECT (client id, user name, token, will), checked from its fixed header before its body is read (256…65536).")
    var mqttMaxConnectBytes: Int = 8 * 1024

    @Option(help: "Seconds from accepting an MQTT connection to an accepted CONNECT; the connection is closed after (1…600).")
    var mqttConnectTimeout: Double = 10

    @Option(help: "Bytes of an anonymous MQTT client's packet (at least 256; --max-body-bytes when that is smaller); a client with a token may send packets of --max-body-bytes.")
    var mqttMaxAnonymousPacketBytes: Int = 32 * 1024

    @Option(help: "The longest MQTT keep-alive a client may ask, in seconds (1…65535); a CONNECT asking more, or 0 (off), is refused with CONNACK 2, as mosquitto's max_keepalive refuses MQTT 3.1.1 clients.")
    var mqttMaxKeepalive: Int = 1200

    @Option(help: "Topics one MQTT connection may subscribe to (with --mqtt-port); one more is refused in its SUBACK.")
    var mqttMaxSubscriptions: Int = 100

    /// The broker's options (`--mqtt-port` and the `--mqtt-…` limits); `nil` without `--mqtt-port`.
    var mqttOptions: SensorThingsMQTTOptions? {
        mqttPort.map {
            SensorThingsMQTTOptions(port: $0, maxConnections: mqttMaxConnections, maxAnonymous: mqttMaxAnonymous,
                                    maxAnonymousPerAddress: mqttMaxAnonymousPerAddress, maxPendingPerAddress: mqttMaxPendingPerAddress,
                                    maxConnectBytes: mqttMaxConnectBytes, connectTimeout: mqttConnectTimeout,
                                    maxAnonymousPacketBytes: mqttMaxAnonymousPacketBytes, maxKeepAlive: mqttMaxKeepalive,
                                    maxSubscriptions: mqttMaxSubscriptions)
        }
    }

    @Option(help: "The city's base map: a PMTiles archive `citytwin city basemap` wrote, served at /basemap/ and drawn under the city's layers in the web map.")
    var basemap: String?

    @Option(help: "A Tianditu key (天地图): its vector and imagery WMTS layers become selectable base layers of the web map (the browser fetches them with this key). Prefer the environment variable CITYTWIN_TIANDITU_KEY, which keeps it out of the process list.")
    var tiandituKey: String?

    @Option(help: "signal-evaluate's replays in SUMO (simulate=sumo or auto) running at once; the next wait their turn (default: half the cores, at least 1).")
    var sumoRuns: Int = SumoRunQueue.defaultRuns

    @Option(help: "signal-evaluate's replays in SUMO waiting for their turn; one more answers 503 with Retry-After (0: none wait).")
    var sumoQueue: Int = SumoRunQueue.defaultWaiting

    @Option(help: "The sandbox's k (POST /collections/{id}/aggregate): aggregate groups of fewer features are suppressed, and a selection of 1…k−1 features is refused (2 or more).")
    var sandboxK = 5

    /// `--tianditu-key`, else `CITYTWIN_TIANDITU_KEY`; nil when neither is set.
    func tianditu() throws -> TiandituKey? {
        let given = tiandituKey ?? ProcessInfo.processInfo.environment["CITYTWIN_TIANDITU_KEY"]
        guard let given, !given.isEmpty else { return nil }
        guard let key = TiandituKey(given) else {
            throw ValidationError("the Tianditu key (--tianditu-key or CITYTWIN_TIANDITU_KEY) must be letters and digits only, as Tianditu issues it")
        }
        return key
    }

    /// The `--basemap` archive, opened; nil without one.
    func baseMapArchive() throws -> PMTilesReader? {
        guard let basemap else { return nil }
        guard TileArchiveFormat(path: basemap) == .pmtiles else {
            throw CommandFailure("--basemap \(basemap): the base map is served from a PMTiles archive (.pmtiles); build one with `citytwin city basemap --osm EXTRACT --out city.pmtiles`")
        }
        do { return try PMTilesReader(path: basemap) } catch let e as TileError {
            throw CommandFailure("--basemap: \(e.message)")
        }
    }

    var crossOrigin: CrossOriginPolicy {
        let origins = corsOrigin.isEmpty ? ["*"] : corsOrigin.contains("none") ? [] : corsOrigin
        return CrossOriginPolicy(origins: origins, allowsWrites: corsWrites)
    }

    var limits: RequestLimits { limitOptions.limits }

    func validate() throws {
        _ = try tianditu()
        guard sandboxK >= 2 else { throw ValidationError("--sandbox-k must be 2 or more (k = 1 would answer single rows), got \(sandboxK)") }
        if let signalRetiming, SignalPlanning.Retiming(rawValue: signalRetiming) == nil {
            throw ValidationError("--signal-retiming must be one of \(SignalPlanning.Retiming.allCases.map(\.rawValue).joined(separator: ", ")), got '\(signalRetiming)'")
        }
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1…65535, got \(port)") }
        if let mqttPort {
            guard (1...65_535).contains(mqttPort), mqttPort != port else {
                throw ValidationError("--mqtt-port must be 1…65535 and not --port, got \(mqttPort)")
            }
        }
        guard (1...256).contains(sumoRuns) else { throw ValidationError("--sumo-runs must be 1…256 replays at once, got \(sumoRuns)") }
        guard (0...10_000).contains(sumoQueue) else { throw ValidationError("--sumo-queue must be 0…10000 waiting replays, got \(sumoQueue)") }
        guard mqttMaxConnections >= 1 else { throw ValidationError("--mqtt-max-connections must be at least 1, got \(mqttMaxConnections)") }
        if let mqttMaxAnonymous, !(0..<mqttMaxConnections).contains(mqttMaxAnonymous) {
            throw ValidationError("--mqtt-max-anonymous must be 0…\(mqttMaxConnections - 1) (below --mqtt-max-connections, so clients with a token keep slots), got \(mqttMaxAnonymous)")
        }
        for (name, value) in [("--mqtt-max-anonymous-per-address", mqttMaxAnonymousPerAddress), ("--mqtt-max-pending-per-address", mqttMaxPendingPerAddress),
                              ("--mqtt-max-subscriptions", mqttMaxSubscriptions)] where value < 1 {
            throw ValidationError("\(name) must be at least 1, got \(value)")
        }
        guard (256...65_536).contains(mqttMaxConnectBytes) else {
            throw ValidationError("--mqtt-max-connect-bytes must be 256…65536, got \(mqttMaxConnectBytes)")
        }
        guard mqttConnectTimeout.isFinite, (1...600).contains(mqttConnectTimeout) else {
            throw ValidationError("--mqtt-connect-timeout must be 1…600 seconds, got \(mqttConnectTimeout)")
        }
        guard mqttMaxAnonymousPacketBytes >= 256 else {
            throw ValidationError("--mqtt-max-anonymous-packet-bytes must be at least 256, got \(mqttMaxAnonymousPacketBytes)")
        }
        guard (1...65_535).contains(mqttMaxKeepalive) else {
            throw ValidationError("--mqtt-max-keepalive must be 1…65535 seconds, got \(mqttMaxKeepalive)")
        }
        guard storeTimeout.isFinite, storeTimeout >= 0.1, storeTimeout <= 600 else {
            throw ValidationError("--store-timeout must be 0.1…600 seconds, got \(storeTimeout)")
        }
        guard (1...256).contains(postgresPoolSize) else {
            throw ValidationError("--postgres-pool-size must be 1…256 connections, got \(postgresPoolSize)")
        }
        guard (1...10_000).contains(resourceLayerCache) else {
            throw ValidationError("--resource-layer-cache must be 1…10000 layers, got \(resourceLayerCache)")
        }
        guard (16...1_048_576).contains(addressIndexMemory) else {
            throw ValidationError("--address-index-memory must be 16…1048576 MiB, got \(addressIndexMemory)")
        }
        guard (1...65_536).contains(tileCache) else {
            throw ValidationError("--tile-cache must be 1…65536 MiB, got \(tileCache)")
        }
        guard shutdownGrace.isFinite, shutdownGrace >= 0.1, shutdownGrace <= 600 else {
            throw ValidationError("--shutdown-grace must be 0.1…600 seconds, got \(shutdownGrace)")
        }
        _ = try oidcOptions.configuration()
    }

    func run() async throws {
        await EmergencyRoadGraphs.shared.setMaximumResourceLayers(resourceLayerCache)
        AddressGeocoders.shared.setMemoryLimit(addressIndexMemory << 20)
        SumoRunQueue.shared.configure(runs: sumoRuns, waiting: sumoQueue)
        let location = try StoreLocation(store)
        let archive = try baseMapArchive()
        let tianditu = try tianditu()
        if let archive {
            print("Base map: \(archive.path), zooms \(archive.header.minZoom)-\(archive.header.maxZoom), layers \(archive.vectorLayers.compactMap { $0["id"]?.stringValue }.joined(separator: ", "))")
        }
        if tianditu != nil { print("Tianditu base layers: on (vector and imagery; the key is not shown)") }
        let featureStore = try await location.openExisting(connectionWait: .seconds(storeTimeout), poolSize: postgresPoolSize)
        if case .postgres = location, (ProcessInfo.processInfo.environment[AuditKey.variable] ?? "").isEmpty {
            print("Warning: \(AuditKey.variable) is not set: the audit chain of a PostGIS store is keyed only with it (docs/operations.md, \"The audit log\")")
        }
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
        logger.logLevel = logLevel
        let server = CityTwinServer(store: featureStore,
                                    options: ServerOptions(baseURL: baseURL ?? "http://\(host):\(port)", logger: logger,
                                                          tokenVerifier: try Self.tokenVerifier(location, oidc: oidcOptions.configuration()),
                                                          processes: .forStore(directory: location.directory, rasters: rasters),
                                                          rasters: rasters, limits: limits, crossOrigin: crossOrigin,
                                                          signalRetiming: retiming,
                                                          mqtt: mqttOptions,
                                                          basemap: archive, tianditu: tianditu, sandboxK: sandboxK, tileCacheMiB: tileCache))
        do {
            try await server.run(host: host, port: port, shutdownGrace: .seconds(shutdownGrace)) { [host, port] in
                FileHandle.standardOutput.write(Data("CityTwin serving on http://\(host):\(port) (Ctrl-C to stop)\n".utf8))
            }
        } catch let e as IOError where e.errnoCode == EADDRINUSE {
            let ports = mqttPort.map { "\(port) or \($0)" } ?? "\(port)"
            throw CommandFailure("cannot listen on \(host):\(ports): another program is using that port (stop it, or choose another with --port or --mqtt-port)")
        }
    }

    /// What the server verifies tokens with: the authority of `CITYTWIN_TOKEN_SECRET`, or of the
    /// secret file beside a SpatiaLite store, re-read when `token rotate-secret` replaces it; and
    /// beside it an OpenID Connect provider's verifier when one is configured.
    static func tokenVerifier(_ location: StoreLocation, oidc: OIDCConfiguration?) throws -> any BearerTokenVerifier {
        let own: any BearerTokenVerifier
        if case .spatiaLite(let path) = location, (ProcessInfo.processInfo.environment[TokenAuthority.secretVariable] ?? "").isEmpty {
            own = try ReloadingTokenAuthority(storePath: path)
        } else {
            own = try location.tokenAuthority()
        }
        guard let oidc else { return own }
        print("Accepting the tokens of the OpenID Connect provider \(oidc.issuer) for audience \(oidc.audience)"
              + " (department claim \(oidc.departmentClaim), role claim \(oidc.roleClaim))")
        return IdentityVerifiers(own: own, external: OIDCVerifier(oidc))
    }
}
