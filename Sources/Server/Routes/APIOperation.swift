import GeoCore
import Hummingbird

/// One operation of the API: method, path template, parameters, responses and handler. The
/// router, the unknown-parameter check and the OpenAPI document are all generated from the
/// same list of operations, so they cannot drift apart.
struct APIOperation: Sendable {
    typealias Handler = @Sendable (Request, CityTwinRequestContext, QueryParameters) async throws -> Representation

    let id: String
    let method: HTTPRequest.Method
    /// The path template, in both Hummingbird and OpenAPI syntax: `/collections/{collectionId}/items`.
    let path: String
    let summary: String
    let tag: String
    let parameters: [APIParameter]
    let responses: [APIResponse]
    /// The body the operation reads (Part 4 writes); `nil` for operations without a body.
    var requestBody: APIRequestBody? = nil
    /// Whether the collection's simple queryables are accepted as query parameters (Part 3
    /// queryables-query-parameters): the handler, which knows the collection, then checks the
    /// parameters the operation does not declare.
    var acceptsQueryables = false
    /// The router's path when the OpenAPI template cannot say it: a catch-all (`/sta/v1.1/**`) for
    /// a resource path of several segments (`Things(1)/Datastreams`), which the template names as
    /// one parameter. The handler then checks the query itself, by its own protocol's rules.
    var routerPath: String? = nil
    let handler: Handler

    /// An operation; one with an HTML representation (it takes `f`) also takes `lang`, the
    /// language of its pages (`PageLanguage`).
    init(id: String, method: HTTPRequest.Method, path: String, summary: String, tag: String, parameters: [APIParameter],
         responses: [APIResponse], requestBody: APIRequestBody? = nil, acceptsQueryables: Bool = false,
         routerPath: String? = nil, handler: @escaping Handler) {
        self.id = id
        self.method = method
        self.path = path
        self.summary = summary
        self.tag = tag
        let pages = parameters.contains { $0.name == "f" } && !parameters.contains { $0.name == "lang" }
        self.parameters = pages ? parameters + [.lang] : parameters
        self.responses = responses
        self.requestBody = requestBody
        self.acceptsQueryables = acceptsQueryables
        self.routerPath = routerPath
        self.handler = handler
    }

    /// Whether the router refuses query parameters the operation does not declare (400); else the
    /// handler checks them (against a collection's queryables, or by SensorThings' rules).
    var checksDeclaredParameters: Bool { !acceptsQueryables && routerPath == nil }

    /// Names of the query parameters the operation accepts; any other one is a 400.
    var queryParameterNames: Set<String> {
        Set(parameters.filter { $0.location == .query }.map(\.name))
    }
}

/// A parameter as OpenAPI 3.0 declares it.
struct APIParameter: Sendable {
    enum Location: String, Sendable { case path, query, header }
    let name: String
    let location: Location
    let description: String
    let required: Bool
    /// A JSON Schema (OpenAPI 3.0 subset) for the value.
    let schema: JSONValue
    /// `form` + `explode: false` for comma lists (bbox, properties, sortby).
    let isCommaList: Bool
    /// Key under `#/components/parameters` when two parameters share a name (`f` with different enums).
    private let key: String?

    init(_ name: String, in location: Location = .query, _ description: String, required: Bool = false,
         schema: JSONValue = ["type": "string"], commaList: Bool = false, key: String? = nil) {
        self.key = key
        self.name = name
        self.location = location
        self.description = description
        self.required = required || location == .path
        self.schema = schema
        self.isCommaList = commaList
    }

    /// Key under `#/components/parameters`.
    var componentKey: String { key ?? (location == .path ? name : name.replacingOccurrences(of: "-", with: "_")) }
}

/// A response an operation may give: status and the media types with their schema.
struct APIResponse: Sendable {
    let status: Int
    let description: String
    /// Media type → `#/components/schemas/<name>`.
    let content: [(mediaType: String, schema: String)]

    static func ok(_ description: String, _ content: [(String, String)]) -> APIResponse {
        APIResponse(status: 200, description: description, content: content.map { ($0.0, $0.1) })
    }

    static func problem(_ status: Int, _ description: String) -> APIResponse {
        APIResponse(status: status, description: description, content: [(MediaTypeName.problem, "Problem")])
    }

    /// 400 and 500 problems every operation can give.
    static let standardProblems: [APIResponse] = [
        .problem(400, "An invalid or unknown query parameter (problem+json naming it)."),
        .problem(500, "A server fault (never caused by input)."),
    ]
}

extension APIParameter {
    static let f = APIParameter("f", "Encoding of the response: json (default) or html. Overrides the Accept header.",
                                schema: ["type": "string", "enum": ["json", "html"]])
    /// `f` on the items of a collection: the page encodings plus the whole-selection downloads.
    static let itemsFormat = APIParameter(
        "f", "Encoding: json (default) or html for a page; csv or gpkg (GeoPackage) for the whole selection as a download. Overrides the Accept header.",
        schema: ["type": "string", "enum": ["json", "html", "csv", "gpkg"]], key: "f_items")
    static let collectionID = APIParameter("collectionId", in: .path, "Identifier of a collection (a layer id).")
    static let featureID = APIParameter("featureId", in: .path, "Identifier of a feature in the collection.")
    static let limit = APIParameter(
        "limit", "Maximum number of features in the page: 1…10000, default 100; larger values are clamped to 10000.",
        schema: ["type": "integer", "minimum": 1, "maximum": 10000, "default": 100])
    static let bbox = APIParameter(
        "bbox", "Only features whose geometry intersects the box: minx,miny,maxx,maxy (or 6 numbers with heights), in bbox-crs (default CRS84) and its axis order. Features without a geometry (the rows of a table such as parking_occupancy) match any box, as OGC API Features 1 requires (/req/core/fc-bbox-response): select them by their properties.",
        schema: ["type": "array", "minItems": 4, "maxItems": 6, "items": ["type": "number"]], commaList: true)
    static let bboxCRS = APIParameter("bbox-crs", "CRS of bbox as an OGC URI (default http://www.opengis.net/def/crs/OGC/1.3/CRS84).",
                                      schema: ["type": "string", "format": "uri"])
    static let crs = APIParameter("crs", "CRS of the response geometries as an OGC URI (default CRS84); see the collection's crs list. Axis order follows the CRS definition.",
                                  schema: ["type": "string", "format": "uri"])
    static let datetime = APIParameter(
        "datetime", "RFC 3339 instant, date, or interval start/end with '..' or empty for an open end; matched against the collection's temporal property.")
    static let properties = APIParameter("properties", "Comma-separated property names to return (masking still applies).",
                                         schema: ["type": "array", "items": ["type": "string"]], commaList: true)
    static let sortby = APIParameter("sortby", "Comma-separated sort keys, each property name with optional + (ascending, default) or - (descending) prefix; ties break by feature id.",
                                     schema: ["type": "array", "items": ["type": "string", "pattern": "^[+-]?[^,]+$"]], commaList: true)
    static let cursor = APIParameter("cursor", "Opaque keyset paging token; use the next link rather than building it.")
}
