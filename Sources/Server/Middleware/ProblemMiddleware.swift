import Foundation
import Hummingbird
import Logging

/// Turns every error below it (route handlers, the caller middleware, the router's "not
/// found") into an `application/problem+json` response through `Problem(mapping:)`.
/// Internal errors are logged with their real text; the body never carries it.
struct ProblemMiddleware: RouterMiddleware {
    let compressionThreshold: Int

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = Problem(mapping: error)
            if problem.kind.status.code >= 500 {
                context.logger.error("request failed", metadata: [
                    "path": .string(request.uri.path), "error": .string(String(describing: error)),
                ])
            }
            return Self.response(problem, for: request, compressionThreshold: compressionThreshold)
        }
    }

    static func response(_ problem: Problem, for request: Request, compressionThreshold: Int) -> Response {
        var representation = Representation.json(problem.document(instance: request.uri.path), mediaType: MediaTypeName.problem,
                                                 status: problem.kind.status)
        if let challenge = challenge(problem) { representation.headers[.wwwAuthenticate] = challenge }
        if let seconds = problem.retryAfter { representation.headers[.retryAfter] = String(seconds) }
        return representation.response(for: request, compressionThreshold: compressionThreshold)
    }

    /// The RFC 6750 §3 challenge of a 401: `error="invalid_token"` for a rejected token, a bare
    /// challenge when credentials are missing.
    static func challenge(_ problem: Problem) -> String? {
        guard problem.kind.status == .unauthorized else { return nil }
        guard problem.kind == .invalidToken else { return "Bearer realm=\"citytwin\"" }
        let description = problem.detail.replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: "\"", with: "'")
            .unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 }.map(String.init).joined()
        return "Bearer realm=\"citytwin\", error=\"invalid_token\", error_description=\"\(description)\""
    }
}
