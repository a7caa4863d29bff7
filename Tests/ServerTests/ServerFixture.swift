import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import TestSupport
import Testing
import TwinStore

/// A real SpatiaLite store in a temporary directory with a small district: an open shelters
/// layer (24 points around Hankou, one of them exactly at the PROJ worked example, one with a
/// `<script>` name; `manager` redacted and `phone` partially masked for the public) and a
/// not-shared wells layer that anonymous callers must not see.
enum ServerFixture {
    static let owner = Caller.department(name: "应急管理局", role: .editor, user: "测试")
    static let water = Caller.department(name: "水务局", role: .editor)
    static let shelterCount = 24
    /// Hankou, 30.5928°N 114.3055°E: EPSG:4547 N 3,385,869.45 m, E 529,299.86 m (tiles-and-crs.md §4).
    static let hankou = Position(x: 114.3055, y: 30.5928)

    static let sheltersJSON = """
        {"id": "shelters", "title": {"zh": "应急避难场所", "en": "Emergency shelters"}, "category": "公共专题",
         "owner": "应急管理局", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "open", "method": "api", "requirements": "注明数据来源"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {
            "name": {"type": "string"}, "capacity": {"type": "integer"}, "phone": {"type": "string"},
            "manager": {"type": "string"}, "checked_at": {"type": "string", "format": "date-time"}},
           "required": ["name"]},
         "sensitive": [{"attribute": "phone", "mask": "partial"}, {"attribute": "manager", "mask": "redact"}],
         "temporal": {"start": "checked_at"}}
        """

    static let wellsJSON = """
        {"id": "wells", "title": {"zh": "供水井", "en": "Supply wells"}, "category": "资源调查",
         "owner": "水务局", "format": "vector", "updateFrequency": "quarterly",
         "sharing": {"type": "not-shared", "method": "sandbox", "requirements": "不予共享"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"depth_m": {"type": "number"}}}}
        """

    /// Shelter `s00`…`s22` on a 0.001° grid east of Hankou, plus `hankou` at the worked example.
    static var shelters: [Feature] {
        var out = [Feature]()
        for i in 0..<(shelterCount - 1) {
            let name = i == 7 ? "<script>alert('x')</script> 学校" : "避难所 \(i)"
            out.append(Feature(
                id: .string(String(format: "s%02d", i)),
                geometry: .point(x: 114.31 + Double(i % 6) * 0.001, y: 30.60 + Double(i / 6) * 0.001),
                properties: ["name": .string(name), "capacity": .integer(Int64(100 + i * 10)),
                             "phone": "13812345678", "manager": "张三",
                             "checked_at": .string(i % 2 == 0 ? "2024-03-01T08:00:00Z" : "2025-06-01T08:00:00Z")]))
        }
        out.append(Feature(id: .string("hankou"), geometry: .point(x: hankou.x, y: hankou.y),
                           properties: ["name": "汉口", "capacity": 500, "checked_at": "2024-03-01T08:00:00Z"]))
        return out
    }

    /// Runs `body` with a fresh store (`makeStore`), closed and removed when `body` ends.
    static func withStore<T>(_ body: (SpatiaLiteStore) async throws -> T) async throws -> T {
        try await withTemporaryDirectory("citytwin-server") { dir in try await body(try await makeStore(in: dir)) }
    }

    /// A fresh store with both layers and their features in `directory` (closed before it is removed).
    static func makeStore(in directory: TemporaryDirectory) async throws -> SpatiaLiteStore {
        let store = try directory.openStore()
        let decoder = JSONDecoder()
        try await store.createLayer(try decoder.decode(LayerDefinition.self, from: Data(sheltersJSON.utf8)))
        try await store.createLayer(try decoder.decode(LayerDefinition.self, from: Data(wellsJSON.utf8)))
        try await store.insert(layer: "shelters", features: shelters, by: owner, at: nil)
        try await store.insert(layer: "wells", features: [
            Feature(id: .string("w1"), geometry: .point(x: 114.32, y: 30.61), properties: ["depth_m": 80.0]),
        ], by: water, at: nil)
        return store
    }

    /// Runs `body` against the API over a fresh store, through Hummingbird's in-process router client.
    static func withAPI(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
            try await server.makeApplication().test(.router) { client in try await body(client) }
        }
    }
}

extension TestClientProtocol {
    /// GET `uri`, with optional headers.
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: headers)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    /// The body as JSON.
    var json: JSONValue {
        get throws { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
    }

    var contentType: String? { headers[.contentType] }
}

/// Checks a problem+json response: status, stable type slug and (optionally) the parameter named in it.
func expectProblem(_ r: TestResponse, status: Int, type slug: String, naming parameter: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(r.status.code == status, "status", sourceLocation: sourceLocation)
    #expect(r.contentType == "application/problem+json", sourceLocation: sourceLocation)
    let doc = try r.json
    #expect(doc["type"]?.stringValue == "https://citytwin.dev/problems/\(slug)", sourceLocation: sourceLocation)
    #expect(doc["status"]?.integerValue == Int64(status), sourceLocation: sourceLocation)
    #expect(doc["title"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(doc["instance"]?.stringValue?.hasPrefix("/") == true, sourceLocation: sourceLocation)
    if let parameter {
        let detail = doc["detail"]?.stringValue ?? ""
        #expect(detail.contains(parameter), "detail '\(detail)' should name \(parameter)", sourceLocation: sourceLocation)
    }
}

/// The href of the first link with `rel` (and `type`, when given).
func linkHref(_ doc: JSONValue, rel: String, type: String? = nil) -> String? {
    doc["links"]?.arrayValue?.first { $0["rel"]?.stringValue == rel && (type == nil || $0["type"]?.stringValue == type) }?["href"]?.stringValue
}

/// A link href relative to the test base URL, as the router client needs it.
func relative(_ href: String) -> String {
    href.hasPrefix("http://test.local") ? String(href.dropFirst("http://test.local".count)) : href
}
