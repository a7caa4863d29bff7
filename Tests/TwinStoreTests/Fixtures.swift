import Foundation
import GeoCore
import TwinStore

/// Layer definitions and features of a small Wuhan district, written in the `Layers/` file format.
enum Fixtures {
    static let emergency = Caller.department(name: "应急管理局", role: .editor, user: "李工")
    static let emergencyViewer = Caller.department(name: "应急管理局", role: .viewer)
    static let fire = Caller.department(name: "消防救援支队", role: .editor)
    static let water = Caller.department(name: "水务局", role: .editor)

    static func definition(_ json: String) throws -> LayerDefinition {
        try JSONDecoder().decode(LayerDefinition.self, from: Data(json.utf8))
    }

    static let sheltersJSON = """
        {"id": "shelters", "title": {"zh": "应急避难场所", "en": "Emergency shelters"}, "category": "公共专题",
         "owner": "应急管理局", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "open", "method": "api", "requirements": "注明数据来源"},
         "negativeList": false, "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {
            "name": {"type": "string", "maxLength": 40},
            "kind": {"type": "string", "enum": ["紧急", "固定", "中心"]},
            "capacity": {"type": ["integer", "null"], "minimum": 0},
            "area_m2": {"type": "number", "minimum": 0},
            "phone": {"type": "string", "pattern": "^1[0-9]{10}$"},
            "manager": {"type": "string"},
            "code": {"type": "string"},
            "opened": {"type": "string", "format": "date"},
            "checked_at": {"type": "string", "format": "date-time"}},
           "required": ["name", "kind"]},
         "sensitive": [{"attribute": "phone", "mask": "partial", "visibleTo": ["消防救援支队"]},
                       {"attribute": "manager", "mask": "redact", "visibleTo": []},
                       {"attribute": "code", "mask": "hash", "visibleTo": []}],
         "temporal": {"start": "checked_at"},
         "style": {"circle-color": "#d33"}}
        """

    static let districtsJSON = """
        {"id": "districts", "title": {"zh": "责任区", "en": "Response districts"}, "category": "时空基础",
         "owner": "应急管理局", "format": "vector", "updateFrequency": "yearly",
         "sharing": {"type": "shared", "method": "api", "requirements": "仅限政务使用"},
         "geometryType": "Polygon", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
        """

    static let wellsJSON = """
        {"id": "wells", "title": {"zh": "供水井", "en": "Supply wells"}, "category": "资源调查",
         "owner": "水务局", "format": "vector", "updateFrequency": "quarterly",
         "sharing": {"type": "not-shared", "method": "sandbox", "requirements": "不予共享"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"depth_m": {"type": "number"}}}}
        """

    static let reservesJSON = """
        {"id": "reserves", "title": {"zh": "战略储备库", "en": "Strategic reserves"}, "category": "公共专题",
         "owner": "应急管理局", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "open", "method": "api", "requirements": "依法不予公开"},
         "negativeList": true, "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}
        """

    static let readingsJSON = """
        {"id": "water_levels", "title": {"zh": "水位监测", "en": "Water level readings"}, "category": "物联感知",
         "owner": "水务局", "format": "table", "updateFrequency": "real-time",
         "sharing": {"type": "shared", "method": "api", "requirements": "实时数据仅供参考"},
         "geometryType": null, "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"station": {"type": "string"}, "level_m": {"type": "number"},
                    "observed_at": {"type": "string", "format": "date-time"}}, "required": ["station", "level_m"]},
         "temporal": {"start": "observed_at"}}
        """

    static var shelters: LayerDefinition { get throws { try definition(sheltersJSON) } }

    static var allLayers: [LayerDefinition] {
        [sheltersJSON, districtsJSON, wellsJSON, reservesJSON, readingsJSON].compactMap { try? definition($0) }
    }

    /// A shelter point near East Lake, Wuhan (lon, lat in degrees).
    static func shelter(_ id: String, _ lon: Double, _ lat: Double, name: String, kind: String = "固定",
                        capacity: Int64? = 100, phone: String? = "13812345678", manager: String? = "张三",
                        extra: [String: JSONValue] = [:]) -> Feature {
        var p: [String: JSONValue] = ["name": .string(name), "kind": .string(kind)]
        p["capacity"] = capacity.map { .integer($0) } ?? .null
        if let phone { p["phone"] = .string(phone) }
        if let manager { p["manager"] = .string(manager) }
        p["code"] = .string("420102-\(id)")
        for (k, v) in extra { p[k] = v }
        return Feature(id: .string(id), geometry: .point(x: lon, y: lat), properties: p)
    }

    static func square(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> Geometry {
        .polygon(Envelope(minX: minX, minY: minY, maxX: maxX, maxY: maxY).polygon)
    }

    static func date(_ s: String) -> Date {
        let f = ISO8601DateFormatter()
        return f.date(from: s) ?? Date(timeIntervalSince1970: 0)
    }

    static let t0 = date("2024-01-01T00:00:00Z")
    static let t1 = date("2024-02-01T00:00:00Z")
    static let t2 = date("2024-03-01T00:00:00Z")
    static let t3 = date("2024-04-01T00:00:00Z")

    /// Every feature of a query, following `next` cursors.
    static func allPages(_ store: any FeatureStore, _ layer: String, _ query: FeatureQuery, by caller: Caller) async throws -> [Feature] {
        var q = query
        var out = [Feature]()
        while true {
            let page = try await store.query(layer: layer, q, by: caller)
            out += page.features
            guard let next = page.next else { return out }
            q.after = next
        }
    }

    static func ids(_ fs: [Feature]) -> [String] { fs.compactMap { $0.id?.description } }
}
