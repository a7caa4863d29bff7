import Hummingbird

extension CityTwinServer {
    /// `/map` (the web map) and `/static/{file}` (MapLibre GL JS, served locally).
    var webMapOperations: [APIOperation] {
        let common = APIResponse.standardProblems
        return [
            APIOperation(
                id: "getMap", method: .get, path: "/map",
                summary: "The web map: every layer the caller may read, a layer tree by CIM category, popups and address search.",
                tag: "Capabilities", parameters: [],
                responses: [.ok("The map page.", [("text/html", "HTML")])] + common
            ) { _, _, _ in
                Representation.html(MapPage.html)
            },
            APIOperation(
                id: "getStaticAsset", method: .get, path: "/static/{file}",
                summary: "A file of MapLibre GL JS (maplibre-gl.js, maplibre-gl.css) used by the web map.",
                tag: "Capabilities", parameters: [.staticFile],
                responses: [.ok("The file.", [("text/javascript", "HTML"), ("text/css", "HTML")]),
                            .problem(404, "No such file, or MapLibre GL JS is not installed.")] + common
            ) { [self] _, context, _ in
                let name = try pathParameter(context, "file")
                if name == PageStyle.fileName { return PageStyle.representation }  // the HTML pages' stylesheet
                guard let mediaType = MapLibreAssets.served[name] else {
                    throw Problem(.notFound, "no static file '\(name)'; served: \(MapLibreAssets.served.keys.sorted().joined(separator: ", "))")
                }
                let assets = MapLibreAssets.shared
                guard let bytes = assets.files[name] else {
                    throw Problem(.notFound, assets.problem ?? "'\(name)' is not available")
                }
                var headers = HTTPFields()
                headers[.cacheControl] = "public, max-age=86400"
                return Representation(mediaType: mediaType, body: bytes, headers: headers)
            },
        ]
    }
}

extension APIParameter {
    static let staticFile = APIParameter("file", in: .path, "A static file name: maplibre-gl.js or maplibre-gl.css.")
}
