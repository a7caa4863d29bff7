import GeoCore
import Hummingbird

/// The landing page, the conformance declaration and the API definition (`/`, `/conformance`,
/// `/api`, `/api.html`).
struct LandingRoutes: OperationCollection {
    let site: SiteLinks
    /// The definition `/api` and `/api.html` serve: the whole operation table, these routes included.
    let api: APIDefinition
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
    ] + TileRoutes.tilesConformance + ProcessRoutes.processesConformance + Tiles3DRoutes.geoVolumesConformance

    /// `/`, `/conformance`, `/api`, `/api.html`.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        return [
            APIOperation(
                id: "getLandingPage", method: .get, path: "/", summary: "Landing page: links to the API definition, conformance and collections.",
                tag: "Capabilities", parameters: [.f],
                responses: [.ok("The landing page.", [(MediaTypeName.json, "LandingPage"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let links = site.selfAndAlternate("/", query: query, format: format, jsonType: MediaTypeName.json) + [
                    site.link("/api", rel: "service-desc", type: MediaTypeName.openAPI, title: "The API definition (OpenAPI 3.0)"),
                    site.link("/api.html", rel: "service-doc", type: "text/html", title: "The API documentation"),
                    site.link("/conformance", rel: "conformance", type: MediaTypeName.json, title: "Conformance classes"),
                    site.link("/collections", rel: "data", type: MediaTypeName.json, title: "Collections (layers)"),
                    site.link("/tiles", rel: "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector", type: MediaTypeName.json,
                              title: "Vector tilesets of the whole map"),
                    site.link("/tileMatrixSets", rel: "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes",
                              type: MediaTypeName.json, title: "Tile matrix sets"),
                    site.link("/processes", rel: "http://www.opengis.net/def/rel/ogc/1.0/processes", type: MediaTypeName.json, title: "Processes"),
                    site.link("/jobs", rel: "http://www.opengis.net/def/rel/ogc/1.0/job-list", type: MediaTypeName.json, title: "Jobs"),
                    site.link("/map", rel: "related", type: "text/html", title: "Web map (一张图)"),
                ]
                let doc: JSONValue = [
                    "title": "CityTwin 城市数字孪生",
                    "description": "OGC API Features for the layers of the city's one map (一张图): features in CGCS2000, served in CRS84 or any EPSG CRS.",
                    "links": .array(links),
                ]
                guard format == .html else { return render(doc, title: "CityTwin 城市数字孪生", format: format).linking(links) }
                var page = HTMLPage(title: "CityTwin 城市数字孪生", english: "CityTwin city digital twin")
                page.paragraph(page.tr("城市“一张图”的开放接口：图层要素（OGC API Features，CGCS2000 存储，可按 CRS84 或任意 EPSG 坐标系输出）、矢量瓦片、分析处理服务与任务。",
                                       "The open API of the city's one map (一张图): layer features (OGC API Features, stored in CGCS2000, served in CRS84 or any EPSG CRS), vector tiles, analysis processes and their jobs."),
                               class: "lead")
                page.cards([
                    ("/collections?f=html", page.tr("图层", "Collections"), page.tr("城市一张图的全部图层：要素、属性、下载（CSV、GeoPackage）。", "Every layer of the one map: features, attributes, downloads (CSV, GeoPackage).")),
                    ("/map", page.tr("一张图", "Map"), page.tr("在网页地图上浏览、查询和分析图层。", "Browse, search and analyse the layers on the web map.")),
                    ("/processes?f=html", page.tr("处理服务", "Processes"), page.tr("最近资源、服务区、淹没分析、地理编码等分析，经 OGC API Processes 运行。", "Nearest resources, service areas, flood and hazard analyses, geocoding: run through OGC API Processes.")),
                    ("/jobs?f=html", page.tr("任务", "Jobs"), page.tr("异步运行的分析及其进度和结果。", "Analyses running asynchronously, their progress and results.")),
                    ("/api.html", page.tr("API 文档", "API documentation"), page.tr("每个操作及其参数。", "Every operation and its parameters.")),
                    ("/api", page.tr("API 定义 (OpenAPI 3.0)", "API definition (OpenAPI 3.0)"), page.tr("供客户端生成代码的机器可读定义。", "The machine-readable definition for client generators.")),
                    ("/conformance?f=html", page.tr("符合性", "Conformance"), page.tr("本服务实现的 OGC 标准符合性类。", "The OGC conformance classes this server implements.")),
                ])
                page.links(links)
                return Representation.html(page.text).linking(links)
            },
            APIOperation(
                id: "getConformanceDeclaration", method: .get, path: "/conformance", summary: "The conformance classes the server implements.",
                tag: "Capabilities", parameters: [.f],
                responses: [.ok("The conformance declaration.", [(MediaTypeName.json, "Conformance"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let doc: JSONValue = [
                    "conformsTo": .array(Self.conformance.map(JSONValue.string)),
                    "links": .array(site.selfAndAlternate("/conformance", query: query, format: format, jsonType: MediaTypeName.json)),
                ]
                return render(doc, title: "符合性声明", english: "Conformance", format: format)
            },
            APIOperation(
                id: "getAPIDefinition", method: .get, path: "/api", summary: "This API definition (OpenAPI 3.0, self-contained).",
                tag: "Capabilities", parameters: [.f],
                responses: [.ok("The OpenAPI document.", [(MediaTypeName.openAPI, "OpenAPI"), ("text/html", "HTML")])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                switch format {
                case .json: return .json(api.document, mediaType: MediaTypeName.openAPI)
                case .html: return .html(api.page)
                }
            },
            APIOperation(
                id: "getAPIDocumentation", method: .get, path: "/api.html", summary: "The operations of this API as an HTML page.",
                tag: "Capabilities", parameters: [.lang],
                responses: [.ok("The API documentation.", [("text/html", "HTML")])] + common
            ) { [self] _, _, _ in
                .html(api.page)
            },
        ]
    }
}
