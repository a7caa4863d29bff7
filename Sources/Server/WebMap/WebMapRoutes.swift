import Flood
import GeoCore
import Hummingbird
import Scenarios
import TwinStore

/// `/map`, `/static/{file}`, `/fonts/{fontstack}/{range}` and `/whoami`: the web map and what it loads.
struct WebMapRoutes: OperationCollection {
    /// `/map` (the web map), `/static/{file}` (MapLibre GL JS and the map's own script and
    /// stylesheet, served locally), `/fonts/{fontstack}/{range}` (label glyphs) and `/whoami`.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        return [
            APIOperation(
                id: "getMap", method: .get, path: "/map",
                summary: "The web map: every layer the caller may read drawn by CIM category with labels and a legend, the default layers of the caller's role, sign-in, address search, analyses through the Processes API and exports.",
                tag: "Capabilities", parameters: [],
                responses: [.ok("The map page.", [("text/html", "HTML")])] + common
            ) { _, _, _ in
                Representation.html(MapPage.html)
            },
            APIOperation(
                id: "getStaticAsset", method: .get, path: "/static/{file}",
                summary: "A file of the web map: MapLibre GL JS (maplibre-gl.js, maplibre-gl.css) and the map's own scripts and stylesheet (map.js, map-analyses.js, map-tools.js, map-3d.js, basemap.js, map.css).",
                tag: "Capabilities", parameters: [.staticFile],
                responses: [.ok("The file.", [("text/javascript", "HTML"), ("text/css", "HTML")]),
                            .problem(404, "No such file, or MapLibre GL JS is not installed.")] + common
            ) { _, context, _ in
                let name = try pathParameter(context, "file")
                if name == PageStyle.fileName { return PageStyle.representation }  // the HTML pages' stylesheet
                var headers = HTTPFields()
                if let own = MapPage.files[name] {
                    // The page's own files change with the server: revalidate by entity tag.
                    headers[.cacheControl] = "public, no-cache"
                    headers[.eTag] = MapPage.etag
                    return Representation(mediaType: own.mediaType, body: own.body, headers: headers)
                }
                guard let mediaType = MapLibreAssets.served[name] else {
                    let served = (MapLibreAssets.served.keys.sorted() + MapPage.files.keys.sorted() + [PageStyle.fileName]).joined(separator: ", ")
                    throw Problem(.notFound, "no static file '\(name)'; served: \(served)")
                }
                let assets = MapLibreAssets.shared
                guard let bytes = assets.files[name] else {
                    throw Problem(.notFound, assets.problem ?? "'\(name)' is not available")
                }
                headers[.cacheControl] = "public, max-age=86400"
                return Representation(mediaType: mediaType, body: bytes, headers: headers)
            },
            APIOperation(
                id: "getGlyphRange", method: .get, path: "/fonts/{fontstack}/{range}",
                summary: "SDF glyphs of the web map's labels (MapLibre glyph range, protobuf): 256 code points of a font stack, e.g. /fonts/wqy-microhei/0-255.pbf.",
                tag: "Capabilities", parameters: [.fontstack, .glyphRange],
                responses: [.ok("The glyph range.", [("application/x-protobuf", "GlyphRange")]),
                            .problem(404, "No such font stack or range, or the glyphs were not generated.")] + common
            ) { _, context, _ in
                let stack = try pathParameter(context, "fontstack")
                let rangeName = try pathParameter(context, "range")
                guard let range = GlyphAssets.range(rangeName) else {
                    throw Problem.invalid("range", "'\(rangeName)' is not a glyph range: <start>-<start+255>.pbf with start a multiple of 256 (e.g. 0-255.pbf)")
                }
                let glyphs = GlyphAssets.shared
                guard glyphs.available else { throw Problem(.notFound, glyphs.problem) }
                guard let bytes = glyphs.bytes(fontstack: stack, range: range) else {
                    throw Problem(.notFound, "no font stack '\(stack)'; served: \(GlyphAssets.fontstack)")
                }
                var headers = HTTPFields()
                headers[.cacheControl] = "public, max-age=86400"
                return Representation(mediaType: "application/x-protobuf", body: bytes, headers: headers)
            },
            APIOperation(
                id: "getWhoAmI", method: .get, path: "/whoami",
                summary: "Who the request's bearer token speaks for: anonymous, a department (name, role, user) or the administrator; the web map's layer preset (public, emergency, fire, traffic, water, planner) it shows by default; whether it may run a flood scenario (mayRunFlood).",
                tag: "Service", parameters: [],
                responses: [.ok("The caller.", [(MediaTypeName.json, "WhoAmI")])] + common
            ) { _, context, _ in
                let caller = context.caller
                let audience = MapAudience.of(caller)
                var o: [String: JSONValue] = ["mapRole": .string(audience.rawValue), "mapRoleTitle": .string(audience.title),
                                              // The map offers a flood run only to those who may run one (the results' owner's editors).
                                              "mayRunFlood": .bool(AccessPolicy.canWrite(owner: FloodRunCatalog.owner, caller))]
                switch caller {
                case .anonymous: o["caller"] = "anonymous"
                case .admin: o["caller"] = "admin"
                case .department(let name, let role, let user):
                    o["caller"] = "department"
                    o["department"] = .string(name)
                    o["role"] = .string(role.rawValue)
                    if let user { o["user"] = .string(user) }
                }
                var answer = Representation.json(.object(o))
                answer.headers[.cacheControl] = "no-store"
                return answer
            },
        ]
    }
}

extension APIParameter {
    static let staticFile = APIParameter("file", in: .path, "A static file name: maplibre-gl.js, maplibre-gl.css, map.js, map-analyses.js, map-tools.js, map-3d.js, basemap.js, map.css or citytwin.css.")
    static let fontstack = APIParameter("fontstack", in: .path, "A font stack served for labels: wqy-microhei (WenQuanYi Micro Hei).")
    static let glyphRange = APIParameter("range", in: .path, "A glyph range: <start>-<start+255>.pbf, start a multiple of 256 (0-255.pbf … 65280-65535.pbf).")
}
