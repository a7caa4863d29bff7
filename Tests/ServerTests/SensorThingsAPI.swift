import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Scenarios
import Signals
import Server
import TestSupport
import Testing
import TwinStore

/// The SensorThings API over a fresh store holding the city's `iot_devices` layer (its
/// definition from `Layers/`, owner 城市管理执法委员会, shared with departments) and a
/// `TokenAuthority`, as `citytwin serve` runs it.
struct SensorThingsAPI: Sendable {
    static let owner = "城市管理执法委员会"
    let client: any TestClientProtocol
    let store: SpatiaLiteStore
    let authority: TokenAuthority
    /// With `run(secondServer: true)`: a second server on the same store, as a second `citytwin
    /// serve` behind a load balancer (its own in-process locks and queues).
    var other: SensorThingsAPI? { otherClient.map { SensorThingsAPI(client: $0, store: store, authority: authority) } }
    var otherClient: (any TestClientProtocol)? = nil

    func token(_ department: String = owner, _ role: TokenClaims.Role = .editor) -> String {
        authority.issue(TokenClaims(department: department, role: role, subject: "传感器网关", lifetime: 3600))
    }

    /// A request with a JSON body, authorised as HTTP Basic with the token as password (what
    /// FROST's client sends) unless `bearer` or no token is asked for.
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, basic: Bool = true, body: String? = nil) async throws -> TestResponse {
        var h: HTTPFields = [:]
        if let token {
            h[.authorization] = basic ? "Basic " + Data("gateway:\(token)".utf8).base64EncodedString() : "Bearer \(token)"
        }
        if body != nil { h[.contentType] = "application/json" }
        let escaped = uri.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "'", with: "%27")
        return try await client.execute(uri: escaped, method: method, headers: h, body: body.map { ByteBuffer(string: $0) })
    }

    func get(_ uri: String) async throws -> TestResponse { try await send(.get, uri, token: token()) }

    /// - Parameter seed: fills the store (more layers) before the server starts.
    static func run(seed: (@Sendable (SpatiaLiteStore) async throws -> Void)? = nil, signalRetiming: SignalPlanning.Retiming? = nil,
                    secondServer: Bool = false, _ body: @Sendable (SensorThingsAPI) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("sta") { dir in
            let store = try dir.openStore()
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            for name in ["iot_devices"] {
                let def = try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("\(name).json")))
                try await store.createLayer(def)
            }
            try await seed?(store)
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let options = ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority, signalRetiming: signalRetiming)
            let server = CityTwinServer(store: store, options: options)
            try await server.makeApplication().test(.router) { client in
                guard secondServer else { return try await body(SensorThingsAPI(client: client, store: store, authority: authority)) }
                let second = CityTwinServer(store: store, options: options)
                try await second.makeApplication().test(.router) { otherClient in
                    try await body(SensorThingsAPI(client: client, store: store, authority: authority, otherClient: otherClient))
                }
            }
        }
    }

    /// A river gauge by deep insert: Thing, Location, Datastream with Sensor and ObservedProperty.
    static let gauge = """
        {"name": "举水 邾城 水位站", "description": "river gauge at the Zhucheng bridge", "properties": {"station": "JS-01"},
         "Locations": [{"name": "邾城大桥", "description": "gauge site", "encodingType": "application/geo+json",
                        "location": {"type": "Point", "coordinates": [114.8012, 30.8437]}}],
         "Datastreams": [{"name": "water level", "description": "stage above datum", "observationType":
                          "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_Measurement",
                          "unitOfMeasurement": {"name": "metre", "symbol": "m", "definition": "http://qudt.org/vocab/unit/M"},
                          "Sensor": {"name": "radar level sensor", "description": "VEGAPULS", "encodingType": "text/html", "metadata": "https://example.org/vega"},
                          "ObservedProperty": {"name": "water level", "definition": "http://vocabs.lter-europe.net/EnvThes/22035", "description": "river stage"}}]}
        """

    /// Posts the gauge; its Thing and Datastream ids.
    func postGauge() async throws -> (thing: Int64, datastream: Int64) {
        let r = try await send(.post, "/sta/v1.1/Things", token: token(), body: Self.gauge)
        #expect(r.status == .created, "\(r.text)")
        let location = try #require(r.headers[.location])
        let thing = try #require(Int64(location.split(separator: "(").last!.dropLast()))
        let ds = try await get("/sta/v1.1/Things(\(thing))/Datastreams")
        let id = try #require(try ds.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
        return (thing, id)
    }

    /// Hourly water levels from 2026-06-01T00:00Z through CreateObservations.
    func postLevels(_ datastream: Int64, _ levels: [Double], startHour: Int = 0) async throws -> TestResponse {
        let rows = levels.enumerated().map { i, v in
            let h = startHour + i
            return "[\"2026-06-\(String(format: "%02d", 1 + h / 24))T\(String(format: "%02d", h % 24)):00:00Z\", \(v)]"
        }
        let body = """
            [{"Datastream": {"@iot.id": \(datastream)}, "components": ["phenomenonTime", "result"],
              "dataArray@iot.count": \(rows.count), "dataArray": [\(rows.joined(separator: ","))]}]
            """
        return try await send(.post, "/sta/v1.1/CreateObservations", token: token(), body: body)
    }
}
