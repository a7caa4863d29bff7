import Flood
import Foundation
import GeoCore
import HummingbirdTesting
import MapRendering
import Testing
import TwinStore

/// A flood run printed (issue 55 §5): its depth classes and cut-off resources drawn in the
/// style's colours and explained in the legend, class by class.
@Suite("Printable maps of a flood run", .serialized)
struct MapPrintFloodTests {
    static let run = "p50-waterlogging-1"
    static let stem = "flood_p50_waterlogging_1"
    /// A 0.3–0.5 m area and a 0.05–0.15 m area inside the printed box; a cut-off hospital.
    static let deep = (west: 114.316, south: 30.606, east: 114.319, north: 30.609)
    static let shallow = (west: 114.321, south: 30.596, east: 114.324, north: 30.599)
    static let hospital = Position(x: 114.3125, y: 30.598)
    /// The web map's depth classes (WebMap/MapStyle.swift), which the legend must show.
    static let classes = [("0.05–0.15 m", "#7fcdbb"), ("0.15–0.3 m", "#6baed6"), ("0.3–0.5 m", "#2171b5"), ("0.5–1 m", "#6a3d9a"), ("> 1 m", "#3f007d")]

    /// A result layer of the run from its template (Layers/results).
    static func resultLayer(_ suffix: String) throws -> LayerDefinition {
        let url = ScenarioAPITests.repository.appendingPathComponent("Layers/results/flood_scenario_\(suffix).json")
        var json = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url)).objectValue ?? [:]
        json["id"] = .string("\(stem)_\(suffix)")
        return try LayerDefinition(json: .object(json))
    }

    /// The published current run `run` with its depth and cut-off layers, as a finished run leaves them.
    static func addRun(_ store: SpatiaLiteStore) async throws {
        try await store.createLayer(FloodRunCatalog.definition)
        try await store.createLayer(try resultLayer("depth"))
        try await store.createLayer(try resultLayer("cutoff"))
        try await store.insert(layer: stem + "_depth", features: [
            Feature(id: .string("d1"), geometry: MapPrintTests.square(deep.west, deep.south, deep.east, deep.north),
                    properties: ["depth_class": .string(classes[2].0), "min_depth_m": 0.3, "max_depth_m": 0.5]),
            Feature(id: .string("d2"), geometry: MapPrintTests.square(shallow.west, shallow.south, shallow.east, shallow.north),
                    properties: ["depth_class": .string(classes[0].0), "min_depth_m": 0.05, "max_depth_m": 0.15]),
        ], by: .admin, at: nil)
        try await store.insert(layer: stem + "_cutoff", features: [
            Feature(id: .string("r1"), geometry: .point(x: hospital.x, y: hospital.y),
                    properties: ["kind": "resource", "resource_layer": "hospitals", "resource_id": "h1", "name": "第一医院", "reason": "道路积水"]),
        ], by: .admin, at: nil)
        try await store.insert(layer: FloodRunCatalog.layerID, features: [
            Feature(id: .string(run), geometry: nil, properties: [
                "scenario": "p50-waterlogging", "title": "50 年一遇内涝", "stem": .string(stem), "state": "published", "current": true,
                "status": "successful", "inputs": [:], "run_by": "测试员", "department": "水务和湖泊局",
                "started_at": "2026-06-01T08:00:00Z", "finished_at": "2026-06-01T08:05:00Z",
                "layers": [.string(stem + "_depth"), .string(stem + "_cutoff")],
            ]),
        ], by: .admin, at: nil)
    }

    @Test("run= prints the depth classes and the cut-off hospital in the style's colours, every class in the legend")
    func floodRun() async throws {
        try await MapPrintTests.run { api in
            try await Self.addRun(api.store)
            let uri = "/map/print?bbox=\(MapPrintTests.bbox)&layers=lakes&run=\(Self.run)&format=pdf&title=%E5%86%85%E6%B6%9D"
            let r = try await api.client.get(uri, headers: WritableAPI.bearer(api.token("水务和湖泊局", .viewer)))
            #expect(r.status == .ok && r.contentType == "application/pdf", "\(r.text.prefix(300))")
            let page = try MapPrintPage(pdf: Array(buffer: r.body))
            try MapPrintTests.expectPage(page)
            let map = PrintedMercator(bbox: MapPrintTests.box, frame: MapPrintTests.layout.frame)
            let d = map.point(Self.deep.west + 0.0005, Self.deep.south + 0.0005)
            #expect(try page.colour(d.x, d.y).near(Self.classes[2].1), "0.3–0.5 m in its class colour: \(page.colour(d.x, d.y))")
            let s = map.point(Self.shallow.east - 0.0005, Self.shallow.north - 0.0005)
            #expect(try page.colour(s.x, s.y).near(Self.classes[0].1), "0.05–0.15 m in its class colour: \(page.colour(s.x, s.y))")
            let h = map.point(Self.hospital.x, Self.hospital.y)
            // The resource's circle (#cf1322) around its white "!" mark: red within 6 pt of the point.
            let around = page.pixels(in: PixelBox(x: h.x - 6, y: h.y - 6, width: 12, height: 12))
            #expect(try around.contains { try $0.colour.near("#cf1322", tolerance: 10) }, "the cut-off hospital's red circle")
            let legend = page.pixels(in: MapPrintTests.layout.legend)
            for (name, hex) in Self.classes {
                #expect(try legend.contains { try $0.colour.near(hex, tolerance: 4) }, "the legend explains \(name) (\(hex))")
            }
            // The public sees no run to print.
            let anonymous = try await api.client.get(uri)
            #expect([401, 404].contains(anonymous.status.code), "anonymous: \(anonymous.status)")
        }
    }
}
