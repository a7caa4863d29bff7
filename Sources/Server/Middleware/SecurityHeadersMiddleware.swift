import HTTPTypes
import Hummingbird

/// Headers that make a browser treat the server's responses as what they are (issue 21 §4):
/// `X-Content-Type-Options: nosniff` on every response (a GeoJSON or CSV body is never run as
/// script or style), and on HTML pages a Content-Security-Policy that loads only the server's
/// own resources and lets no other site frame the page (clickjacking), with no referrer sent.
/// The API's HTML pages run no script at all and take their one stylesheet from `/static/`; the web map (`/map`) runs its own inline script,
/// MapLibre from `/static/` and MapLibre's workers (blob URLs).
struct SecurityHeadersMiddleware: RouterMiddleware {
    static let pagePolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    static let mapPolicy = "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
        + "worker-src blob:; child-src blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentType]?.lowercased().hasPrefix("text/html") == true {
            response.headers[.contentSecurityPolicy] = request.uri.path == "/map" ? Self.mapPolicy : Self.pagePolicy
            response.headers[.xFrameOptions] = "DENY"
            response.headers[.referrerPolicy] = "no-referrer"
        }
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
