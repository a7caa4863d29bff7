import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Server
import Testing

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
            #expect(page.contains("style: \"/tiles/WebMercatorQuad/style.json\""))
            #expect(page.contains("/collections/addresses/items?"))
            // No external network: every src/href is a local path.
            for attribute in ["src=\"", "href=\""] {
                for piece in page.components(separatedBy: attribute).dropFirst() {
                    #expect(piece.hasPrefix("/"), "\(attribute)\(piece.prefix(40))")
                }
            }
            #expect(!page.contains("http://") && !page.contains("https://") && !page.contains("//unpkg") && !page.contains("cdn"))
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

    @Test(arguments: ["leaflet.js", "..%2F..%2FPackage.swift", "maplibre-gl.js.map"])
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
