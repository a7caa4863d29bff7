import GeoCore
import Hummingbird

/// A request body as OpenAPI 3.0 declares it: the media types accepted and the schema of each
/// (a name under `#/components/schemas`).
struct APIRequestBody: Sendable {
    let description: String
    let content: [(mediaType: String, schema: String)]

    /// A GeoJSON feature (POST, PUT), coordinates in the `Content-Crs` header's CRS.
    static let feature = APIRequestBody(
        description: "A GeoJSON Feature. Coordinates are CRS84 lon/lat unless a Content-Crs header names another CRS (axis order per that CRS).",
        content: [(MediaTypeName.geoJSON, "Feature"), (MediaTypeName.json, "Feature")])

    /// An RFC 7396 merge patch of a feature (PATCH).
    static let mergePatch = APIRequestBody(
        description: "An RFC 7396 JSON merge patch: members of 'properties' replace (null removes) properties; 'geometry' replaces the geometry (a GeoJSON geometry or null); 'id' may not change.",
        content: [(MediaTypeName.mergePatch, "FeaturePatch")])

    /// The request's JSON body within the request's limits (`FeatureBody.bytes`: the server's
    /// `--max-body-bytes` and the address's budget of bodies in memory), sent as application/json,
    /// application/geo+json or text/plain: the SensorThings API's entities and the sandbox's
    /// aggregate queries. A body that is not JSON is a 400 naming `$`.
    static func json(_ request: Request, context: CityTwinRequestContext) async throws -> JSONValue {
        let bytes = try await FeatureBody.bytes(request, accepted: [MediaTypeName.json, "application/geo+json", "text/plain"],
                                                context: context)
        do {
            return try bytes.withUnsafeBytes { try JSONValue(json: $0) }
        } catch {
            throw Problem(.invalidBody, "$: the body is not JSON (\(error))", position: "$")
        }
    }
}

extension APIParameter {
    static let filter = APIParameter(
        "filter", "A CQL2 filter (OGC API Features Part 3) on the collection's queryables, ANDed with bbox, datetime and queryable parameters. Masked attributes are not queryable.")
    static let filterLang = APIParameter(
        "filter-lang", "The encoding of filter: cql2-text (default) or cql2-json.",
        schema: ["type": "string", "enum": ["cql2-text", "cql2-json"], "default": "cql2-text"])
    static let filterCRS = APIParameter(
        "filter-crs", "CRS of geometry literals in filter as an OGC URI (default http://www.opengis.net/def/crs/OGC/1.3/CRS84), coordinates in its axis order.",
        schema: ["type": "string", "format": "uri"])
    static let ifMatch = APIParameter(
        "If-Match", in: .header, "Entity tag (from ETag) the feature must still have; otherwise 412 and nothing is written.")
    static let contentCRS = APIParameter(
        "Content-Crs", in: .header, "CRS of the body's coordinates as an OGC URI in angle brackets (default CRS84).")
    static let allowOutsideExtent = APIParameter(
        "allowOutsideExtent", "true writes a geometry that lies outside the city's extent (the catalogue's extent widened by 10 km), which is otherwise refused (400 naming $.geometry and the extent): for data that really lies there.",
        schema: ["type": "boolean", "default": false])
}
