import Foundation
import Hummingbird
import TwinStore

/// Sets `context.caller` from `Authorization: Bearer <token>`. Without a header, or when the
/// server has no `BearerTokenVerifier`, the caller is anonymous; a verifier that rejects the
/// token answers 401 through the problem mapping, and so does a token on the store's
/// revocation list.
struct CallerMiddleware: RouterMiddleware {
    let verifier: (any BearerTokenVerifier)?
    var revocations: RevocationList? = nil

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.caller = .anonymous
        if let verifier, let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                throw Problem(.invalidToken, "the Authorization header must be 'Bearer <token>'")
            }
            let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
            context.caller = try verifier.caller(forToken: token)
            if let revocations, try await revocations.isRevoked(token) {
                throw Problem(.invalidToken, "the token was revoked (citytwin token revoke)")
            }
        }
        return try await next(request, context)
    }
}
