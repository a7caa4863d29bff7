/// The media types the API writes.
enum MediaTypeName {
    static let json = "application/json"
    static let geoJSON = "application/geo+json"
    static let problem = "application/problem+json"
    /// JSON Schema documents (`/queryables`).
    static let schemaJSON = "application/schema+json"
    /// RFC 7396 JSON merge patch (PATCH bodies).
    static let mergePatch = "application/merge-patch+json"
    static let html = "text/html; charset=utf-8"
    static let openAPI = "application/vnd.oai.openapi+json;version=3.0"
    /// Mapbox Vector Tiles (tiles, the base map, WMTS).
    static let mvt = "application/vnd.mapbox-vector-tile"
    static let prometheus = "text/plain; version=0.0.4; charset=utf-8"
}
