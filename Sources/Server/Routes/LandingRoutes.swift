import GeoCore
import Hummingbird

extension CityTwinServer {
    /// The conformance classes this server implements (and only those).
    static let conformance: [String] = [
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
        "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
        // Part 3: filtering with CQL2 (what CQL2.parseText/parseJSON implement, nothing more).
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
        "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
        "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
        "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
        "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
        "http://www.opengis.net/spec/cql2/1.0/conf/case-insensitive-comparison",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
        "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus",
        "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
        "http://www.opengis.net/spec/cql2/1.0/conf/temporal-functions",
        "http://www.opengis.net/spec/cql2/1.0/conf/arithmetic",
        "http://www.opengis.net/spec/cql2/1.0/conf/property-property",
        // Part 4 (draft part4-1.0.0-draft.1): writes with strong ETags.
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete",
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/update",
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/features",
        "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/optimistic-locking-etags",
    ] + tilesConformance + processesConformance

    /// `/`, `/conformance`, `/api`, `/api.html`.
    var landingOperations: [APIOperation] {
        let common = APIResponse.standardProblems
        return [
            APIOperation(
                id: "getLandingPage", method: .get, path: "/", summary: "Landing page: links to the API definition, conformance and collections.",
                tag: "Capabilities", parameters: [.f],
                responses: [.ok("The landing page.", [(MediaTypeName.json, "LandingPage"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let links = selfAndAlternate("/", query: query, format: format, jsonType: MediaTypeName.json) + [
                    link("/api", rel: "service-desc", type: MediaTypeName.openAPI, title: "The API definition (OpenAPI 3.0)"),
                    link("/api.html", rel: "service-doc", type: "text/html", title: "The API documentation"),
                    link("/conformance", rel: "conformance", type: MediaTypeName.json, title: "Conformance classes"),
                    link("/collections", rel: "data", type: MediaTypeName.json, title: "Collections (layers)"),
                    link("/tiles", rel: "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", type: MediaTypeName.json,
                         title: "Vector tilesets of the whole map"),
                    link("/tileMatrixSets", rel: "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes",
                         type: MediaTypeName.json, title: "Tile matrix sets"),
                    link("/map", rel: "related", type: "text/html", title: "Web map (一张图)"),
                ]
                let doc: JSONValue = [
                    "title": "CityTwin 城市数字孪生",
                    "description": "OGC API Features for the layers of the city's one map (一张图): features in CGCS2000, served in CRS84 or any EPSG CRS.",
                    "links": .array(links),
                ]
                return render(doc, title: "CityTwin 城市数字孪生", format: format)
            },
            APIOperation(
                id: "getConformanceDeclaration", method: .get, path: "/conformance", summary: "The conformance classes the server implements.",
                tag: "Capabilities", parameters: [.f],
                responses: [.ok("The conformance declaration.", [(MediaTypeName.json, "Conformance"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let doc: JSONValue = [
                    "conformsTo": .array(Self.conformance.map(JSONValue.string)),
                    "links": .array(selfAndAlternate("/conformance", query: query, format: format, jsonType: MediaTypeName.json)),
                ]
                return render(doc, title: "Conformance", format: format)
            },
            APIOperation(
                id: "getAPIDefinition", method: .get, path: "/api", summary: "This API definition (OpenAPI 3.0, self-contained).",
                tag: "Capabilities", parameters: [.f],
                responses: [.ok("The OpenAPI document.", [(MediaTypeName.openAPI, "OpenAPI"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                switch format {
                case .json: return .json(openAPIDocument, mediaType: MediaTypeName.openAPI)
                case .html: return .html(openAPIPage)
                }
            },
            APIOperation(
                id: "getAPIDocumentation", method: .get, path: "/api.html", summary: "The operations of this API as an HTML page.",
                tag: "Capabilities", parameters: [],
                responses: [.ok("The API documentation.", [("text/html", "HTML")])] + common
            ) { [self] _, _, _ in
                .html(openAPIPage)
            },
        ]
    }
}
