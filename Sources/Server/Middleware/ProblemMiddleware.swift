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
        Representation.json(problem.document(instance: request.uri.path), mediaType: MediaTypeName.problem,
                            status: problem.kind.status)
            .response(for: request, compressionThreshold: compressionThreshold)
    }
}
