import CityBuild
import DataSources
import Foundation
import GeoCore
import Testing
import TestSupport
import TwinStore

/// A city manifest's sources through GDAL (issue 52 §2): the attribute filter, the mapping of a
/// GeoPackage's fields and coded values onto the roads and the other layers, the errors that name the
/// manifest member, and the level rule that keeps a bridge from meeting the road it crosses. Files are
/// made by `ogr2ogr` from GeoJSON the test writes; the layer definitions are the repository's.
@Suite("City manifest sources through GDAL")
struct CityManifestTests {
    /// Streets in EPSG:4547 metres: a main road (luokka 2) crossed at a shared vertex by a bridge
    /// (taso 1), a side street (luokka 4) meeting the main road, a footway (luokka 9), a street
    /// with a class no value map knows (luokka 7 when asked).
    static let streets = """
        {"type": "FeatureCollection", "features": [
         {"type": "Feature", "properties": {"tunnus": "a", "nimi": "Päätie", "luokka": 2, "suunta": 2, "taso": 0, "nopeus": 50},
          "geometry": {"type": "LineString", "coordinates": [[500000, 3400000], [500100, 3400000], [500200, 3400000]]}},
         {"type": "Feature", "properties": {"tunnus": "b", "nimi": "Silta", "luokka": 3, "suunta": 4, "taso": 1, "nopeus": null},
          "geometry": {"type": "LineString", "coordinates": [[500100, 3399900], [500100, 3400000], [500100, 3400100]]}},
         {"type": "Feature", "properties": {"tunnus": "c", "nimi": null, "luokka": 4, "suunta": 3, "taso": 0, "nopeus": null},
          "geometry": {"type": "LineString", "coordinates": [[500200, 3400000], [500200, 3400100], [500100, 3400100]]}},
         {"type": "Feature", "properties": {"tunnus": "d", "nimi": "Polku", "luokka": 9, "suunta": 2, "taso": 0, "nopeus": null},
          "geometry": {"type": "LineString", "coordinates": [[500000, 3400000], [500000, 3400100]]}}]}
        """

    static var layers: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Layers").standardizedFileURL
    }

    static func manifest(_ roads: String, extra: String = "") -> String {
        """
        {"name": "testi", "layers": {"roads": \(roads)\(extra)}}
        """
    }

    static let roads = """
        {"file": "kadut.gpkg", "where": "luokka <> 9",
         "fields": {"id": "tunnus", "name": "nimi", "class": "luokka", "oneway": "suunta", "level": "taso", "speed_kmh": "nopeus"},
         "values": {"class": {"2": "主干路", "3": "次干路", "4": "支路"}, "oneway": {"2": "both", "3": "backward", "4": "forward"}}}
        """

    func plan(_ json: String, in dir: TemporaryDirectory) throws -> CityBuildPlan {
        let file = try GDALTools.write(json, "kaupunki.json", in: dir.url)
        return try CityBuildPlan(try CityManifest(file: file), catalog: try LayerCatalog.load(directory: Self.layers), source: "kaupunki.json")
    }

    func streets(in dir: TemporaryDirectory) async throws {
        let source = try GDALTools.write(Self.streets, "kadut.geojson", in: dir.url)
        try await GDALTools.run("ogr2ogr", ["-f", "GPKG", "kadut.gpkg", source.path, "-nln", "kadut", "-a_srs", "EPSG:4547"], in: dir.url)
    }

    @Test("an attribute filter keeps the features it selects; one GDAL cannot parse is refused naming it")
    func attributeFilter() async throws {
        try await withTemporaryDirectory("manifest-filter") { dir in
            try await streets(in: dir)
            let layer = try VectorDataset(file: dir.appending("kadut.gpkg")).layer(named: nil)
            try layer.setAttributeFilter("luokka <> 9 AND taso = 0")
            #expect(try layer.next(upTo: 10).map { $0.properties["tunnus"] } == ["a", "c"])
            try layer.setAttributeFilter(nil)
            #expect(try layer.next(upTo: 10).count == 4)
            let error = #expect(throws: DataSourceError.self) {
                try layer.setAttributeFilter("luokka <> 9 AND")
                _ = try layer.next(upTo: 1)
            }
            #expect(error?.field == "where" || error?.reason.contains("SQL") == true, "\(String(describing: error))")
        }
    }

    @Test("a GeoPackage's coded fields become roads by the rules: classes and directions translated, speeds defaulted, the footway filtered out, the bridge apart")
    func roadsFromAGeoPackage() async throws {
        try await withTemporaryDirectory("manifest-roads") { dir in
            try await streets(in: dir)
            let plan = try plan(Self.manifest(Self.roads), in: dir)
            let metric = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(epsg: 4326), to: CoordinateReferenceSystem(epsg: 4547))
            let (imports, report) = try plan.layers(metric: metric)
            let roads = imports.records("roads").map(\.feature)
            // a is split where c ends (500200 is its own end) — not where the bridge b crosses it at a shared vertex.
            #expect(roads.map { "\($0.id!)" } == ["a-1", "b-1", "c-1"])
            let by = Dictionary(uniqueKeysWithValues: roads.map { ("\($0.id!)", $0.properties) })
            #expect(by["a-1"]?["class"] == "主干路" && by["a-1"]?["speed_kmh"] == 50 && by["a-1"]?["oneway"] == false)
            #expect(by["b-1"]?["class"] == "次干路" && by["b-1"]?["speed_kmh"] == 40 && by["b-1"]?["oneway"] == true)
            #expect(by["c-1"]?["class"] == "支路" && by["c-1"]?["oneway"] == true && by["c-1"]?["name"] == "")
            // c runs against its line: stored from its last vertex, which is the bridge's end (a ramp: they meet).
            #expect(by["c-1"]?["from_intersection"] == by["b-1"]?["to_intersection"])
            #expect(by["c-1"]?["to_intersection"] == by["a-1"]?["to_intersection"])
            #expect(by["a-1"]?["from_intersection"] != by["b-1"]?["from_intersection"])
            let length = try #require(by["a-1"]?["length_m"]?.doubleValue)
            #expect(abs(length - 200) < 0.5, "\(length)")
            #expect(imports.records("intersections").count == 4)
            #expect(report["roads with speed_kmh derived (not tagged)"] == 2)
            #expect(plan.manifest.name == "testi")
        }
    }

    @Test("a bad manifest names the member, the reason and what is allowed")
    func errors() async throws {
        try await withTemporaryDirectory("manifest-errors") { dir in
            try await streets(in: dir)
            _ = try GDALTools.write("tyyppi,x,y\npaloasema,500050,3400050\n", "resurssit.csv", in: dir.url)
            func failure(_ json: String) -> ManifestError? {
                #expect(throws: ManifestError.self) { _ = try plan(json, in: dir) }
            }
            let cases: [(String, String, String)] = [
                (Self.manifest(Self.roads, extra: #", "puistot": {"file": "kadut.gpkg"}"#), "layers.puistot", "roads"),
                (Self.manifest(Self.roads.replacingOccurrences(of: #""class": "luokka""#, with: #""class": "tyyppi""#)), "layers.roads.fields.class", "luokka"),
                (Self.manifest(Self.roads.replacingOccurrences(of: #""class": "luokka", "#, with: "")), "layers.roads.fields", "defaults.class"),
                (Self.manifest(Self.roads.replacingOccurrences(of: #""4": "支路""#, with: #""5": "支路""#)), "layers.roads.fields.class", "主干路"),
                (Self.manifest(Self.roads.replacingOccurrences(of: "kadut.gpkg", with: "puuttuu.gpkg")), "layers.roads.file", "relative to the manifest"),
                (Self.manifest(Self.roads, extra: #", "fire_stations": {"file": "resurssit.csv", "x": "x", "y": "y", "fields": {"name": "tyyppi"}}"#),
                 "layers.fire_stations.crs", "EPSG:3067"),
                (Self.manifest(Self.roads, extra: #", "fire_stations": {"file": "resurssit.csv", "x": "x", "y": "y", "crs": "EPSG:1", "fields": {"name": "tyyppi"}}"#),
                 "layers.fire_stations.crs", "EPSG:<code>"),
                (Self.manifest(Self.roads, extra: #", "hydrants": {"file": "resurssit.csv", "x": "x", "y": "y", "crs": 4547, "fields": {"colour": "tyyppi"}}"#),
                 "layers.hydrants.fields.colour", "outlet_mm"),
                (Self.manifest(Self.roads.replacingOccurrences(of: "luokka <> 9", with: "luokka <>")), "layers.roads.where", "luokka"),
                (#"{"layers": {}, "colour": 1}"#, "colour", "metric_crs"),
                (#"{"metric_crs": "EPSG:4490", "layers": {}}"#, "metric_crs", "in metres"),
            ]
            for (json, path, allowed) in cases {
                let e = failure(json)
                #expect(e?.path == path, "\(json): \(String(describing: e))")
                #expect("\(e?.allowed ?? "")".contains(allowed), "\(path): \(String(describing: e))")
            }
        }
    }
}
