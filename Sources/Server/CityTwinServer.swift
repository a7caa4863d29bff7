import Flood
import Foundation
import GeoCore
import Geocoding
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
/// The server only composes: it creates each service once and hands each route collection
/// (`OperationCollection`, Routes/) the services it uses; `operations` is their operations in
/// document order, the one table the router and the OpenAPI document are built from.
///
/// ```swift
/// let server = CityTwinServer(store: try SpatiaLiteStore(path: "city.sqlite"),
///                             options: ServerOptions(baseURL: "http://127.0.0.1:8080"))
/// try await server.run(host: "127.0.0.1", port: 8080)   // until SIGINT/SIGTERM
/// ```
public final class CityTwinServer: Sendable {
    public let store: any FeatureStore
    public let options: ServerOptions
    let metrics: ServerMetrics
    /// Who a token stands for, checked alike for HTTP and MQTT (signature, revocation, department).
    let callers: CallerMiddleware
    /// The live parking view and its push feed (`/parking/events`, Routes/ParkingRoutes.swift).
    let parkingLive: ParkingLiveService
    /// The route collections, in document order: each holds the services it uses, created here once.
    let collections: [any OperationCollection]
    /// SensorThings over MQTT (`--mqtt-port`): the broker's rules, those of the SensorThings routes.
    private let mqtt: STAMQTTDelegate
    /// The live parking view's upkeep, brought up to date before the server takes requests.
    private let parking: ParkingUpkeep
    /// The printed maps (`/map/print`), also drawn for the CLI (`printedMap`).
    private let mapPrint: MapPrintRoutes
    /// Hydrants out of service as alerts (issue 54 §3), followed in the background while serving.
    private let hydrantStatus: HydrantStatus

    public init(store: any FeatureStore, options: ServerOptions = ServerOptions()) {
        self.store = store
        self.options = options
        let metrics = ServerMetrics()
        self.metrics = metrics
        let logger = options.logger
        let site = SiteLinks(baseURL: options.baseURL)
        let layers = LayerDirectory(store: store)
        let revocations = (store as? any TokenRevocations).map(RevocationList.init)
        callers = CallerMiddleware(verifier: options.tokenVerifier, revocations: revocations, departments: DepartmentDirectory(store: store))
        // Every event stream, counted per caller, its token checked as long as it lasts (the MQTT sessions' too: `mqtt`).
        let streams = LiveStreams(limits: options.limits, tokenLife: TokenLife(callers: callers), metrics: metrics, logger: logger)
        let tiles = TileService(store: store, cacheBytes: options.tileCacheMiB << 20)
        let changeWatch = ChangeFeedWatch(store: store, metrics: metrics, logger: logger)
        let localWrites = LocalWrites(tiles: tiles, changes: changeWatch)
        let writeLocks = FeatureWriteLocks()
        let cityMetricCRS = CityMetricCRSCache()
        parkingLive = ParkingLiveService(store: store)
        parking = ParkingUpkeep(store: store, live: parkingLive, tiles: tiles, logger: logger)
        let hydrantStatus = HydrantStatus(store: store)
        self.hydrantStatus = hydrantStatus
        let retiming = SignalRetiming(store: store, method: options.signalRetiming, processes: options.processes, writeLocks: writeLocks,
                                      localWrites: localWrites, logger: logger)
        let trafficCounts = TrafficCountRecording(store: store, writeLocks: writeLocks, localWrites: localWrites, retiming: retiming, logger: logger)
        let jobs = ProcessJobs(store: store, site: site, processes: options.processes, logger: logger)
        let floodRuns = FloodRunCatalog(store: store, templates: options.processes.floodScenario.resultLayers)
        let baseMap = BaseMapSource(archive: options.basemap, tianditu: options.tianditu)
        let depthLinks = DepthMapLinks(site: site)
        let api = APIDefinition(baseURL: options.baseURL)
        let sensorThings = SensorThingsRoutes(store: store, site: site, alertFeed: AlertFeed(store: store),
                                              sensingWrites: WriteAdmission(limit: options.limits.sensingWriteQueue), mqtt: SensorThingsMQTT(),
                                              localWrites: localWrites, parking: parking, trafficCounts: trafficCounts, hydrants: hydrantStatus,
                                              streams: streams)
        let wms = WMSRoutes(store: store, site: site, layers: layers, tileService: tiles, parking: parking, cityMetricCRS: cityMetricCRS)
        mapPrint = MapPrintRoutes(layers: layers, floodRuns: floodRuns, site: site, wms: wms, store: store)
        let quality = QualityLedger()  // the newest quality summary per layer, for the collections' metadata
        collections = [
            LandingRoutes(site: site, api: api),
            CollectionRoutes(store: store, site: site, layers: layers, cityMetricCRS: cityMetricCRS, rasters: options.rasters, quality: quality),
            QueryablesRoutes(site: site, layers: layers),
            ItemRoutes(store: store, site: site, layers: layers, exactCountLimit: options.exactCountLimit, parking: parking),
            ItemWriteRoutes(store: store, site: site, layers: layers, writeLocks: writeLocks, localWrites: localWrites, parking: parking, retiming: retiming,
                            hydrants: hydrantStatus),
            RasterRoutes(site: site, layers: layers, rasters: options.rasters),
            ManagedRasterRoutes(store: store, site: site),
            TerrainTileRoutes(store: store, site: site),  // /rasters/{id}/terrain: Terrarium elevation tiles for the 3D map
            ServiceRoutes(store: store, metrics: metrics, logger: logger),
            GeocodeRoutes(store: store, processes: options.processes),
            HistoryRoutes(store: store, site: site, layers: layers),
            ChangeRoutes(store: store, layers: layers, changeWatch: changeWatch, streams: streams, metrics: metrics),  // Server-Sent Events of the change feed
            TileRoutes(site: site, layers: layers, tileService: tiles, parking: parking, floodRuns: floodRuns, baseMap: baseMap),  // OGC API Tiles
            ProcessRoutes(store: store, site: site, processes: options.processes, jobs: jobs),  // OGC API Processes (Processes/)
            JobRoutes(site: site, jobs: jobs),
            ScenarioRoutes(store: store, site: site, processes: options.processes, jobs: jobs, rasters: options.rasters, depthLinks: depthLinks),
            FloodRunRoutes(site: site, floodRuns: floodRuns, rasters: options.rasters),
            DepthMapRoutes(store: store, layers: layers, rasters: options.rasters, depthGrids: DepthGridCache(), cityMetricCRS: cityMetricCRS, depthLinks: depthLinks),
            WebMapRoutes(),  // /map and /static (WebMap/)
            BaseMapRoutes(site: site, baseMap: baseMap, logger: logger),  // the city's vector base map
            ParkingRoutes(store: store, layers: layers, parking: parking, streams: streams),  // /parking/coverage and /parking/events
            sensorThings,  // /sta/v1.1 and /alerts/events (Routes/SensorThings/)
            wms,  // WMS 1.3.0 at /wms (Routes/OWS/)
            WMTSRoutes(site: site, tileService: tiles, parking: parking, wms: wms),  // WMTS 1.0.0 at /wmts
            WFSRoutes(store: store, layers: layers, visibleLayers: { try await tiles.visibleLayers($0) },
                      metricCRS: { try await cityMetricCRS.metricCRS(of: store) }, catchUp: { [parking] in await parking.catchUp($0) },
                      serviceURL: site.url("/wfs"), exactCountLimit: options.exactCountLimit),  // WFS 2.0 at /wfs
            mapPrint,  // /map/print
            QualityRoutes(layers: layers, inspector: QualityInspector(store: store), ledger: quality),  // governance: data quality
            SandboxRoutes(sandbox: Sandbox(store: store, k: options.sandboxK)),  // governance: the sandbox's aggregate queries
            Tiles3DRoutes(store: store, layers: layers),  // 3D Tiles: /collections/{id}/3dtiles
        ]
        mqtt = STAMQTTDelegate(sensorThings: sensorThings, callers: callers, revocations: revocations, tokenLife: TokenLife(callers: callers), logger: logger)
        api.describe(operations)
    }

    /// Every operation of the API, in document order: the single source of the router,
    /// the parameter checks and the OpenAPI document.
    var operations: [APIOperation] { collections.flatMap(\.operations) }

    /// A printed map as `GET /map/print` draws it for `caller`, from the same parameters as a
    /// query string (`bbox=…&layers=…`), for the CLI (`citytwin export map`).
    /// - Returns: the page's media type (`application/pdf`, `image/png`) and bytes.
    /// - Throws: the route's `Problem`s (a bad parameter named, a layer refused).
    public func printedMap(query: String, caller: Caller) async throws -> (mediaType: String, bytes: [UInt8]) {
        let page = try await mapPrint.page(try QueryParameters(query), caller)
        return (page.mediaType, Array(buffer: page.body))
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
        // The token first, so the limits count a request by the identity it verified as (a refused
        // token is thrown by the limits, after the request has been counted against its address).
        router.add(middleware: callers)
        router.add(middleware: RequestLimitMiddleware(limits: options.limits))
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
        // Parking: the live view is brought up to date beside the first requests, not before the socket is
        // bound (at 100× the sample district its signs' routes took 23 s of a 42 s start-up); every read of
        // a parking layer catches up before it answers (Routes/ParkingRoutes.swift), so none sees an old view.
        let parkingView = Task { [parking] in await parking.catchUp([ParkingLiveView.layer]) }
        defer { parkingView.cancel() }
        try? await hydrantStatus.prime()  // hydrants changed from now on, by any process, raise or end their alerts
        // Scenarios run before their results had a lifecycle (issue 77): drafts of their owner from
        // now on, their layers hidden from other departments and marked what-if, before the socket opens.
        do {
            let settled = try await ScenarioCatalog(store: store).settle()
            if !settled.isEmpty { options.logger.notice("scenarios made drafts of their owner (results hidden until published): \(settled.joined(separator: ", "))") }
        } catch {
            options.logger.warning("scenarios not brought to their lifecycle: \(error)")
        }
        let hydrantFollower = Task { [hydrantStatus] in await hydrantStatus.follow() }
        defer { hydrantFollower.cancel() }
        // The address index is built now, beside the first requests, not inside one (4–17 s on a
        // 9-district city, issue 57); a store without addresses yet builds it on first use.
        let addressIndex = Task { [store, logger = options.logger] in
            let started = ContinuousClock.now
            do {
                let index = try await AddressGeocoders.shared.geocoder(for: store, by: .admin)
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                logger.info("address index built: \(index.count) addresses, \(index.memoryBytes >> 20) MiB, in \(String(format: "%.1f", seconds)) s")
            } catch {
                logger.info("address index not built at start: \(error)")
            }
        }
        defer { addressIndex.cancel() }
        var services: [any Service] = [makeApplication(address: .hostname(host, port: port), onServerRunning: { _ in await onListening() })]
        if let broker = options.mqtt {  // --mqtt-port
            services.append(SensorThingsMQTTService(delegate: mqtt, limits: options.limits, host: host, options: broker))
        }
        try await GracefulStop.run(services, grace: shutdownGrace, logger: options.logger)
    }
}
