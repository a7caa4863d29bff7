import Foundation
import GeoCore
import Governance
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import Parking
import ProcessRuntime
import Scenarios
import Sensing
import ServiceLifecycle
import TwinStore

/// The CityTwin HTTP API over any `FeatureStore`: OGC API Features Part 1 (core, GeoJSON,
/// HTML, OpenAPI 3.0), Part 2 (CRS by reference), Part 3 (CQL2 filters, queryables) and
/// Part 4 (create, replace, update, delete with ETags), plus `/health` and `/metrics`.
/// Writes need a bearer token (`ServerOptions.tokenVerifier`, normally a `TokenAuthority`).
///
/// ```swift
/// let server = CityTwinServer(store: try SpatiaLiteStore(path: "city.sqlite"),
///                             options: ServerOptions(baseURL: "http://127.0.0.1:8080"))
/// try await server.run(host: "127.0.0.1", port: 8080)   // until SIGINT/SIGTERM
/// ```
public final class CityTwinServer: Sendable {
    public let store: any FeatureStore
    public let options: ServerOptions
    let layers: LayerDirectory
    let metrics = ServerMetrics()
    /// One queue per feature being written in this process (`FeatureWriteLocks`).
    let writeLocks = FeatureWriteLocks()
    /// The store's token revocation list (`nil`: a store without one).
    let revocations: RevocationList?
    /// The departments the store knows, for tokens an identity provider issues.
    let departments: DepartmentDirectory
    /// Who a token stands for, checked alike for HTTP and MQTT (signature, revocation, department).
    var callers: CallerMiddleware {
        CallerMiddleware(verifier: options.tokenVerifier, revocations: revocations, departments: departments)
    }
    // --- tiles (helper "tiles"): the tile cache and catalogue copy behind TileRoutes.swift.
    let tileService: TileService
    // --- end tiles
    /// Flood depth grids behind the depth map tiles (Routes/DepthMapRoutes.swift).
    let depthGrids = DepthGridCache()
    /// The city's metric CRS (collection documents, depth map tiles).
    let cityMetricCRS = CityMetricCRSCache()
    /// Subscribers of SensorThings threshold alerts (`/alerts/events`, Routes/SensorThings/).
    let alertFeed: AlertFeed
    /// The bound on SensorThings writes at once (`RequestLimits.sensingWriteQueue`).
    let sensingWrites: WriteAdmission
    /// Wakes change subscribers (`/changes`, `/collections/{id}/changes`, Routes/ChangeRoutes.swift).
    let changeWatch: ChangeFeedWatch
    /// The live parking view and its push feed (`/parking/events`, Routes/ParkingRoutes.swift).
    let parkingLive: ParkingLiveService
    /// SensorThings over MQTT: the broker's subscribers, told of every SensorThings write (Routes/SensorThings/MQTTSensorThings.swift).
    let sensorThingsMQTT = SensorThingsMQTT()
    /// The newest quality summary per layer, for the collections' metadata (Routes/QualityRoutes.swift).
    let qualityLedger = QualityLedger()
    /// The sandbox's aggregate queries, with its memory of earlier answers (Routes/SandboxRoutes.swift).
    let sandbox: Sandbox

    public init(store: any FeatureStore, options: ServerOptions = ServerOptions()) {
        self.store = store
        self.options = options
        self.layers = LayerDirectory(store: store)
        self.revocations = (store as? any TokenRevocations).map(RevocationList.init)
        self.departments = DepartmentDirectory(store: store)
        self.tileService = TileService(store: store)  // tiles
        self.changeWatch = ChangeFeedWatch(store: store)
        self.alertFeed = AlertFeed(store: store)  // sensorthings
        self.sensingWrites = WriteAdmission(limit: options.limits.sensingWriteQueue)  // sensorthings
        self.parkingLive = ParkingLiveService(store: store)  // parking
        self.sandbox = Sandbox(store: store, k: options.sandboxK)  // governance
    }

    /// Every operation of the API, in document order: the single source of the router,
    /// the parameter checks and the OpenAPI document.
    var operations: [APIOperation] {
        landingOperations + collectionOperations + itemOperations + rasterOperations + managedRasterOperations + serviceOperations + geocodeOperations + historyOperations
            + changeOperations  // change subscription: Server-Sent Events of the change feed (Routes/ChangeRoutes.swift)
            + tileOperations  // tiles: OGC API Tiles (TileRoutes.swift)
            + processOperations  // processes: OGC API Processes (Processes/)
            + scenarioOperations + floodRunOperations + depthMapOperations  // scenarios and results over time (Routes/ScenarioRoutes.swift, DepthMapRoutes.swift)
            + webMapOperations  // webmap: /map and /static (WebMap/WebMapRoutes.swift)
            + baseMapOperations  // basemap: the city's vector base map (Routes/BaseMapRoutes.swift)
            + parkingOperations  // parking: /parking/coverage and /parking/events (Routes/ParkingRoutes.swift)
            + sensorThingsOperations + alertOperations  // sensorthings: /sta/v1.1 and /alerts/events (Routes/SensorThings/SensorThingsRoutes.swift)
            + wmsOperations + wmtsOperations  // render: WMS 1.3.0 at /wms, WMTS 1.0.0 at /wmts (Routes/OWS/)
            + QualityRoutes(layers: layers, inspector: QualityInspector(store: store), ledger: qualityLedger).operations  // governance: data quality
            + SandboxRoutes(sandbox: sandbox).operations  // governance: the sandbox's aggregate queries
    }

    /// The router with middleware (request log, metrics, problem mapping, caller) and every operation.
    public func makeRouter() -> Router<CityTwinRequestContext> {
        // HEAD on every GET resource, as HTTP requires of a general-purpose server (RFC 9110 §9.1;
        // OGC API Features 1 /req/core/http): `curl -I` and link checkers got 404.
        let router = Router(context: CityTwinRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: RouteMetricsMiddleware(metrics: metrics))
        router.add(middleware: CrossOriginMiddleware(policy: options.crossOrigin))
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ProblemMiddleware(compressionThreshold: options.compressionThreshold))
        router.add(middleware: RequestLimitMiddleware(limits: options.limits))
        router.add(middleware: callers)
        let threshold = options.compressionThreshold
        let baseURL = options.baseURL
        for op in operations {
            let declared = op.queryParameterNames
            let handler = op.handler
            let checksParameters = op.checksDeclaredParameters
            router.on(RouterPath(op.routerPath ?? op.path), method: op.method) { request, context in
                let query = try QueryParameters(request.uri.query)
                if checksParameters { try query.requireDeclared(declared) }
                // HTML pages built below speak the caller's language (Rendering/PageLanguage.swift).
                let page = try PageRequest(request, query, baseURL: baseURL)
                let representation = try await PageRequest.$current.withValue(page) { try await handler(request, context, query) }
                return representation.response(for: request, compressionThreshold: threshold)
            }
        }
        return router
    }

    /// A Hummingbird application serving the API at `address`.
    public func makeApplication(address: BindAddress = .hostname("127.0.0.1", port: 8080),
                                onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in })
        -> Application<RouterResponder<CityTwinRequestContext>> {
        Application(router: makeRouter(), server: CityTwinHTTP1Channel.server(options.limits),
                    configuration: .init(address: address, serverName: "CityTwin"), onServerRunning: onServerRunning,
                    logger: options.logger)
    }

    /// Serves on `host:port` until SIGINT or SIGTERM, then shuts down gracefully: running
    /// requests may finish during `shutdownGrace`, then they are cancelled (`GracefulStop`).
    /// `onListening` runs once the socket is bound (never when binding fails: a busy port is an
    /// error, not a "serving on" line followed by one).
    public func run(host: String, port: Int, shutdownGrace: Duration = GracefulStop.defaultGrace,
                    onListening: @escaping @Sendable () async -> Void = {}) async throws {
        await parkingCatchUp([ParkingLiveView.layer])  // parking: the live view exists before the first request
        var services: [any Service] = [makeApplication(address: .hostname(host, port: port), onServerRunning: { _ in await onListening() })]
        if let mqtt = options.mqtt { services.append(SensorThingsMQTTService(server: self, host: host, options: mqtt)) }  // --mqtt-port
        try await GracefulStop.run(services, grace: shutdownGrace, logger: options.logger)
    }

    /// An absolute URL for `path` (which starts with `/`).
    func url(_ path: String) -> String { options.baseURL + path }
}
