import Flood
import Governance
import Logging
import ProcessRuntime
import Scenarios
import Signals
import Tiles

/// How a `CityTwinServer` presents itself.
public struct ServerOptions: Sendable {
    /// The public base URL of the API without a trailing slash (`http://127.0.0.1:8080`):
    /// the prefix of every link the server writes.
    public var baseURL: String
    public var logger: Logger
    /// Verifies bearer tokens; `nil` makes every request anonymous.
    public var tokenVerifier: (any BearerTokenVerifier)?
    /// JSON and HTML bodies larger than this many bytes are gzip-coded when the client accepts it.
    public var compressionThreshold: Int
    /// `numberMatched` is computed (an exact count) only for layers with at most this many features.
    public var exactCountLimit: Int
    /// The processes `/processes` offers and in-process jobs run.
    public var processes: ProcessRegistry
    /// The rasters runs write beside their result layers, served at
    /// `/collections/{collectionId}/rasters/{rasterName}`; nil serves none.
    public var rasters: ResultRasters?
    /// Connection, size and rate limits (`RequestLimits`).
    public var limits: RequestLimits
    /// Which other origins' pages may call the API from a browser (reads from any, writes from none by default).
    public var crossOrigin: CrossOriginPolicy
    /// Adaptive signal control: when live counts make an intersection's newest interval whole, its
    /// running plan takes one bounded re-timing step by this method (`nil`: plans change only when
    /// a planner or a schedule re-times them).
    public var signalRetiming: SignalPlanning.Retiming?
    /// SensorThings over MQTT on its own port (`citytwin serve --mqtt-port`); `nil`: no broker.
    public var mqtt: SensorThingsMQTTOptions?
    /// The city's vector base map (a PMTiles archive `citytwin city basemap` wrote, opened from a
    /// path the operator gave), served at `/basemap/…` and drawn under the layers of the web map.
    public var basemap: PMTilesReader?
    /// Tianditu's key: its WMTS base layers (vector, imagery, labels) become selectable in the web map.
    public var tianditu: TiandituKey?
    /// The sandbox's k: aggregate groups with fewer features are suppressed (`citytwin serve --sandbox-k`).
    public var sandboxK: Int
    /// MiB of vector tiles kept in memory (`citytwin serve --tile-cache`).
    public var tileCacheMiB: Int

    public init(baseURL: String = "http://127.0.0.1:8080", logger: Logger = Logger(label: "citytwin.server"),
                tokenVerifier: (any BearerTokenVerifier)? = nil, compressionThreshold: Int = 1024,
                exactCountLimit: Int = 50_000, processes: ProcessRegistry = .standard, rasters: ResultRasters? = nil,
                limits: RequestLimits = RequestLimits(), crossOrigin: CrossOriginPolicy = CrossOriginPolicy(),
                signalRetiming: SignalPlanning.Retiming? = nil, mqtt: SensorThingsMQTTOptions? = nil,
                basemap: PMTilesReader? = nil, tianditu: TiandituKey? = nil, sandboxK: Int = Sandbox.defaultK,
                tileCacheMiB: Int = TileCache.defaultMaximumMiB) {
        self.sandboxK = sandboxK
        self.tileCacheMiB = tileCacheMiB
        self.signalRetiming = signalRetiming
        self.mqtt = mqtt
        self.basemap = basemap
        self.tianditu = tianditu
        self.processes = processes
        self.rasters = rasters
        self.limits = limits
        self.crossOrigin = crossOrigin
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.logger = logger
        self.tokenVerifier = tokenVerifier
        self.compressionThreshold = compressionThreshold
        self.exactCountLimit = exactCountLimit
    }
}
