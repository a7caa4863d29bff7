import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
@testable import Server
import TestSupport
import Testing
import Tiles
import TwinStore

/// The web map at `/map` and MapLibre GL JS served from `/static/` (the PyPI `maplibre`
/// package's files, never a CDN). Scripts/webmap_check.sh drives headless Chromium over the
/// sample district and keeps a screenshot; these tests check the page and the assets in-process.
@Suite struct WebMapTests {
    @Test func mapPageUsesOnlyLocalScriptsAndTheTileStyle() async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/map")
            #expect(r.status == .ok)
            #expect(r.contentType == "text/html; charset=utf-8")
            let page = r.text
            #expect(page.contains("<script src=\"/static/maplibre-gl.js\"></script>"))
            #expect(page.contains("<link rel=\"stylesheet\" href=\"/static/maplibre-gl.css\">"))
            #expect(page.contains("<script type=\"module\" src=\"/static/map.js\"></script>"))
            #expect(page.contains("<link rel=\"stylesheet\" href=\"/static/map.css\">"))
            #expect(page.contains("<html lang=\"zh-CN\">"))
            // Every control has a label or a text (keyboard and screen-reader reachable).
            #expect(page.contains("<label for=\"token\"") && page.contains("<label for=\"q\""))
            // No external network: every src/href is a local path.
            for attribute in ["src=\"", "href=\""] {
                for piece in page.components(separatedBy: attribute).dropFirst() {
                    // A server path, an in-page anchor, or the empty data: icon (no favicon request).
                    #expect(piece.hasPrefix("/") || piece.hasPrefix("#") || piece.hasPrefix("data:,\""), "\(attribute)\(piece.prefix(40))")
                }
            }
            #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("//unpkg") && !page.contains("cdn"))
        }
    }

    @Test func theMapScriptUsesTheCallersStyleAndKeepsTheTokenForTheSession() async throws {
        try await ServerFixture.withAPI { client in
            var js = ""
            for name in ["map.js", "map-analyses.js", "map-tools.js"] {
                let r = try await client.get("/static/" + name)
                #expect(r.status == .ok)
                #expect(r.contentType == "text/javascript; charset=utf-8")
                js += r.text
            }
            #expect(js.contains("style: \"/tiles/WebMercatorQuad/style.json\""))
            #expect(js.contains("sessionStorage.setItem(TOKEN_KEY, token)"))
            #expect(!js.contains("localStorage.setItem(TOKEN_KEY"), "the token must not outlive the browser session")
            #expect(js.contains("map.setStyle(\"/tiles/WebMercatorQuad/style.json\", {diff: false})"), "sign-in refetches style and tiles without a reload")
            for piece in ["/processes/\" + process + \"/execution", "\"nearest-resources\"", "\"service-area\"", "\"hazard-overlay\"",
                          "/geocode?q=", "/whoami", "/queryables", "Prefer: \"respond-async\"", "f=\" + format + \"&bbox="] {
                #expect(js.contains(piece), "\(piece)")
            }
            #expect(!js.contains("innerHTML"), "feature text goes in with textContent only")
            #expect(!js.contains("http://"))
            #expect(!js.contains("https://"))
            let css = try await client.get("/static/map.css")
            #expect(css.status == .ok)
            #expect(css.contentType == "text/css; charset=utf-8")
            #expect(css.text.contains(":focus-visible"))
        }
    }

    @Test("the served map.js parses as JavaScript (node --check on the bytes the server sends; a cut copy does not), and the page's files are revalidated by entity tag")
    func theServedScriptParses() async throws {
        try await ServerFixture.withAPI { client in
            let js = try await client.get("/static/map.js")
            #expect(js.status == .ok)
            #expect(js.headers[.cacheControl] == "public, no-cache")
            let etag = try #require(js.headers[.eTag])
            let css = try await client.get("/static/map.css")
            #expect(css.headers[.cacheControl] == "public, no-cache")
            #expect(css.headers[.eTag] == etag)
            let bytes = Data(js.body.readableBytesView)
            try await withTemporaryDirectory("map-js") { dir in
                // node v20 (/usr/bin/node): parses without running.
                func check(_ data: Data, as name: String) async throws -> CommandProcess {
                    let file = dir.appending(name)
                    try data.write(to: file)
                    return try await CommandProcess.run("/usr/bin/env", ["node", "--check", file.path], within: 120)
                }
                // ES modules (.mjs, so node parses them as such).
                let served = try await check(bytes, as: "map.mjs")
                #expect(served.exitStatus == 0, "node --check on the served map.js: \(served.output)")
                for name in ["map-analyses.js", "map-tools.js", "map-3d.js", "basemap.js"] {
                    let part = try await client.get("/static/" + name)
                    #expect(part.status == .ok && part.headers[.eTag] == etag, "\(name)")
                    let parsed = try await check(Data(part.body.readableBytesView), as: name.replacingOccurrences(of: ".js", with: ".mjs"))
                    #expect(parsed.exitStatus == 0, "node --check on the served \(name): \(parsed.output)")
                }
                // The check can fail: the script without its last line (the closing `};` of its exports) does not parse.
                let cut = try #require(String(data: bytes, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
                let broken = try await check(Data(cut[..<cut.lastIndex(of: "\n")!].utf8), as: "cut.mjs")
                #expect(broken.exitStatus != 0 && broken.output.contains("SyntaxError"), "\(broken.output)")
            }
        }
    }

    @Test func theStyleDrawsEachLayerAsDesignedWithLabelsAndRoleDefaults() async throws {
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Layers").standardizedFileURL
        let catalog = try LayerCatalog.load(directory: layers)
        var definitions = catalog.definitions
        // A flood result layer as the flood process names it.
        let template = try JSONSerialization.jsonObject(with: Data(contentsOf: layers.appendingPathComponent("results/flood_scenario_depth.json"))) as! [String: Any]
        var depth = template
        depth["id"] = "flood_p50_waterlogging_depth"
        definitions.append(try LayerDefinition(json: try JSONDecoder().decode(JSONValue.self, from: JSONSerialization.data(withJSONObject: depth))))
        let infos = definitions.filter { $0.hasGeometry }.map { LayerInfo(definition: $0, extent: nil, count: 1, lastChange: 0) }
        func style(_ audience: MapAudience, glyphs: Bool = true) -> [JSONValue] {
            MapStyle(layers: infos, audience: audience, url: { "http://test.local" + $0 }, fontstack: glyphs ? GlyphAssets.fontstack : nil)
                .document["layers"]?.arrayValue ?? []
        }
        let publicStyle = style(.public)
        func layer(_ id: String, in style: [JSONValue]) -> JSONValue? { style.first { $0["id"]?.stringValue == id } }
        // Land use by GB/T 21010 class, water blue, points as circles (never fills).
        let landUse = try #require(layer("land_use-fill", in: publicStyle))
        let landUseColour = landUse["paint"]?["fill-color"]?.arrayValue ?? []
        #expect(landUseColour.first == "match" && landUseColour.dropFirst().first == ["get", "class"])
        #expect(landUseColour.contains("居住用地") && landUseColour.contains("绿地与广场用地"))
        #expect(layer("lakes-fill", in: publicStyle)?["paint"]?["fill-color"] == "#a9d3f2")
        for point in ["hospitals", "shelters", "hydrants", "addresses"] {
            #expect(layer("\(point)-circle", in: publicStyle)?["type"] == "circle", "\(point)")
            #expect(!publicStyle.contains { $0["source-layer"]?.stringValue == point && $0["type"]?.stringValue == "fill" }, "\(point)")
        }
        // Roads by class with casings, drawn below their fills; labels along the line.
        let ids = publicStyle.compactMap { $0["id"]?.stringValue }
        let casing = try #require(ids.firstIndex(of: "roads-casing-主干路")), fill = try #require(ids.firstIndex(of: "roads-line-主干路"))
        #expect(casing < fill)
        #expect(layer("roads-label", in: publicStyle)?["layout"]?["symbol-placement"] == "line")
        #expect(layer("roads-label", in: publicStyle)?["layout"]?["text-font"] == ["wqy-microhei"])
        // Scale-dependent: hydrants from zoom 15.
        #expect(layer("hydrants-circle", in: publicStyle)?["minzoom"]?.doubleValue == 15)
        // Flood depth in classes by the result's depth_class, with the legend title.
        let flood = try #require(layer("flood_p50_waterlogging_depth-fill", in: publicStyle))
        #expect(flood["paint"]?["fill-color"]?.arrayValue?.dropFirst().first == ["get", "depth_class"])
        let floodColour: [JSONValue] = flood["paint"]?["fill-color"]?.arrayValue ?? []
        #expect(floodColour.count == 13)
        // Default layers by role: the public sees no pipes or results by default, a duty officer
        // sees fire stations and the flood, a planner the water mains.
        func visible(_ id: String, _ s: [JSONValue]) -> Bool { layer(id, in: s)?["layout"]?["visibility"] == "visible" }
        let emergency = style(.emergency), planner = style(.planner), fire = style(.fire), traffic = style(.traffic), water = style(.water)
        let shown: [(String, [JSONValue], Bool)] = [
            ("roads-line-主干路", publicStyle, true), ("water_mains-line", publicStyle, false), ("fire_stations-circle", publicStyle, false),
            ("fire_stations-circle", emergency, true), ("flood_p50_waterlogging_depth-fill", emergency, true), ("water_mains-line", emergency, false),
            ("water_mains-line", planner, true), ("fire_stations-circle", planner, false),
            // A preset per role (issue 77 §8): the brigade's fire layers, the traffic police's signals, the water authority's pipes.
            ("fire_stations-circle", fire, true), ("hydrants-circle", fire, true), ("flood_p50_waterlogging_depth-fill", fire, true),
            ("signal_plans-circle", fire, false), ("signal_plans-circle", traffic, true), ("flood_p50_waterlogging_depth-fill", traffic, true),
            ("hydrants-circle", traffic, false), ("drainage_pipes-line", water, true), ("fire_stations-circle", water, false),
            ("roads-line-主干路", fire, true), ("roads-line-主干路", traffic, true),
        ]
        for (id, s, expected) in shown {
            #expect(visible(id, s) == expected, "\(id)")
        }
        // The legend's metadata: Chinese titles; casings and labels left out.
        #expect(layer("hospitals-circle", in: publicStyle)?["metadata"]?["citytwin:title"] == "医疗机构")
        #expect(layer("roads-casing-主干路", in: publicStyle)?["metadata"]?["citytwin:legend"] == false)
        // Without glyphs no text layers (nothing to fail to load).
        #expect(!style(.public, glyphs: false).contains { $0["type"]?.stringValue == "symbol" })
    }

    @Test func whoAmISaysWhoTheTokenSpeaksForAndTheMapRole() async throws {
        try await WritableAPI.run { api in
            let anonymous = try await api.client.get("/whoami")
            #expect(anonymous.status == .ok)
            let nobody = try anonymous.json
            #expect(nobody["caller"] == "anonymous")
            #expect(nobody["mapRole"] == "public")
            #expect(anonymous.headers[.cacheControl] == "no-store")
            let signed = try await api.client.get("/whoami", headers: WritableAPI.bearer(api.token("应急管理局", .viewer)))
            let officer = try signed.json
            #expect(officer["caller"] == "department")
            #expect(officer["department"] == "应急管理局")
            #expect(officer["role"] == "viewer")
            #expect(officer["mapRole"] == "emergency")
            // Each department its role's preset (issue 77 §8).
            for (department, role) in [("消防救援大队", "fire"), ("公安局", "traffic"), ("水务和湖泊局", "water"), ("自然资源和规划局", "planner")] {
                let who = try await api.client.get("/whoami", headers: WritableAPI.bearer(api.token(department, .viewer))).json
                #expect(who["mapRole"] == .string(role), "\(department)")
            }
            #expect(signed.headers[.cacheControl]?.contains("private") == true)
            let style = try await api.client.get("/tiles/WebMercatorQuad/style.json", headers: WritableAPI.bearer(api.token("应急管理局", .viewer))).json
            #expect(style["metadata"]?["citytwin:audience"] == "emergency")
            // The map offers a flood run to those who may run one only (the results' owner's editors, the admin).
            #expect(nobody["mayRunFlood"] == false && officer["mayRunFlood"] == false)
            let water = try await api.client.get("/whoami", headers: WritableAPI.bearer(api.token("水务和湖泊局", .editor))).json
            #expect(water["mayRunFlood"] == true)
            let waterViewer = try await api.client.get("/whoami", headers: WritableAPI.bearer(api.token("水务和湖泊局", .viewer))).json
            #expect(waterViewer["mayRunFlood"] == false)
        }
    }

    @Test("the page shows each tool's own inputs (minutes for service areas, the resource kind for the nearest), labels road length reached as such, and the side panel never scrolls sideways")
    func toolInputsAndPanel() async throws {
        try await WritableAPI.run { api in
            let page = try await api.client.get("/map").text
            #expect(page.contains("id=\"service-breaks\"") && page.contains("id=\"breaks-row\" hidden"))
            var script = ""
            for name in ["map.js", "map-analyses.js", "map-tools.js"] { script += try await api.client.get("/static/" + name).text }
            #expect(script.contains("serviceBreaks()") && !script.contains("BREAKS"))
            #expect(script.contains("t(\"roadsReached\")"))
            #expect(script.contains("who.mayRunFlood"))
            let css = try await api.client.get("/static/map.css").text
            #expect(css.contains("#panel{") && css.contains("overflow-x:hidden"))
        }
    }

    @Test("the shallowest flood depth class is not the colour of lakes and rivers, on vector depth classes and on depth tiles")
    func shallowFloodIsNotWater() {
        func rgb(_ hex: String) -> [Int] { stride(from: 1, to: 7, by: 2).map { Int(hex.dropFirst($0).prefix(2), radix: 16) ?? 0 } }
        func distance(_ a: [Int], _ b: [Int]) -> Int { zip(a, b).map { abs($0 - $1) }.max() ?? 0 }
        let water = rgb(MapStyle.water)
        for (_, colour) in MapStyle.depthClasses { #expect(distance(rgb(colour), water) > 40, "\(colour) vs water \(MapStyle.water)") }
        let tile = DepthColourRamp.flood.palette[1]
        #expect(distance([Int(tile.red), Int(tile.green), Int(tile.blue)], water) > 40)
    }

    @Test(arguments: ["0-256.pbf", "1-256.pbf", "abc.pbf", "0-255", "65536-65791.pbf"])
    func glyphRangesAreCheckedByName(_ range: String) async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/fonts/wqy-microhei/\(range)"), status: 400, type: "invalid-parameter", naming: "range")
        }
    }

    @Test func glyphsOfTheMapFontAreServed() async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/fonts/Open%20Sans%20Regular/0-255.pbf"), status: 404, type: "not-found")
            guard GlyphAssets.shared.available else { return }  // Scripts/setup.sh makes them; checked by Scripts/webmap_check.sh too
            let r = try await client.get("/fonts/wqy-microhei/0-255.pbf")
            #expect(r.status == .ok)
            #expect(r.contentType == "application/x-protobuf")
            let bytes = Array(r.body.readableBytesView)
            // glyphs { stacks { name = "wqy-microhei", range = "0-255", glyphs … } }
            #expect(bytes.first == 0x0a && bytes.count > 10_000)
            #expect(String(decoding: bytes.prefix(40), as: UTF8.self).contains("wqy-microhei"))
            let style = try await client.get("/tiles/WebMercatorQuad/style.json").json
            #expect(style["glyphs"] == "http://test.local/fonts/{fontstack}/{range}.pbf")
        }
    }

    @Test func mapLibreIsServedFromThePythonPackage() async throws {
        let folder = try #require(MapLibreLocation.folder, "the PyPI package maplibre must be installed in .venv (Scripts/setup.sh)")
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("maplibre-gl.js"))
        try await ServerFixture.withAPI { client in
            let js = try await client.get("/static/maplibre-gl.js")
            #expect(js.status == .ok)
            #expect(js.contentType == "text/javascript; charset=utf-8")
            #expect(Data(js.body.readableBytesView) == onDisk)
            #expect(js.text.contains("maplibregl"))
            let css = try await client.get("/static/maplibre-gl.css")
            #expect(css.status == .ok)
            #expect(css.contentType == "text/css; charset=utf-8")
            #expect(css.text.contains(".maplibregl-map"))
        }
    }

    @Test(arguments: ["leaflet.js", "..%2F..%2FPackage.swift", "maplibre-gl.js.map", "map.js.map"])
    func onlyTheMapLibreFilesAreServed(_ name: String) async throws {
        try await ServerFixture.withAPI { client in
            let r = try await client.get("/static/\(name)")
            try expectProblem(r, status: 404, type: "not-found")
        }
    }

    @Test func mapAndStaticFilesAreInTheOpenAPIDocument() async throws {
        try await ServerFixture.withAPI { client in
            let doc = try await client.get("/api").json
            #expect(doc["paths"]?["/map"]?["get"]?["operationId"]?.stringValue == "getMap")
            #expect(doc["paths"]?["/static/{file}"]?["get"]?["operationId"]?.stringValue == "getStaticAsset")
            #expect(doc["paths"]?["/fonts/{fontstack}/{range}"]?["get"]?["operationId"]?.stringValue == "getGlyphRange")
            #expect(doc["paths"]?["/whoami"]?["get"]?["operationId"]?.stringValue == "getWhoAmI")
        }
    }

    @Test func mapPageRejectsUnknownParameters() async throws {
        try await ServerFixture.withAPI { client in
            try expectProblem(try await client.get("/map?zoom=3"), status: 400, type: "unknown-parameter", naming: "zoom")
        }
    }
}

/// Where the test expects MapLibre GL JS: `CITYTWIN_STATIC_DIR`, else `.venv` above the test's working directory.
enum MapLibreLocation {
    static var folder: String? {
        if let dir = ProcessInfo.processInfo.environment["CITYTWIN_STATIC_DIR"], !dir.isEmpty { return dir }
        var url = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<6 {
            let lib = url.appendingPathComponent(".venv/lib")
            for python in ((try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []).sorted() {
                let srcjs = lib.appendingPathComponent("\(python)/site-packages/maplibre/srcjs")
                if FileManager.default.fileExists(atPath: srcjs.appendingPathComponent("maplibre-gl.js").path) { return srcjs.path }
            }
            url.deleteLastPathComponent()
        }
        return nil
    }
}
