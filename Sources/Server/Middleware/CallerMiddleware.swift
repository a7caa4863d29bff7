import Foundation
import Hummingbird
import TwinStore

/// Sets `context.caller` from `Authorization: Bearer <token>`. Without a header, or when the
/// server has no `BearerTokenVerifier`, the caller is anonymous; a verifier that rejects the
/// token answers 401 through the problem mapping.
struct CallerMiddleware: RouterMiddleware {
    let verifier: (any BearerTokenVerifier)?

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.caller = .anonymous
        if let verifier, let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Problem(.invalidToken, "the Authorization header must be 'Bearer <token>'")
            }
            context.caller = try verifier.caller(forToken: String(parts[1]).trimmingCharacters(in: .whitespaces))
        }
        return try await next(request, context)
    }
}
