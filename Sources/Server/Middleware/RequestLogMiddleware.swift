import Foundation
import Dispatch
import Hummingbird
import Logging

/// One structured log line per request: method, path, route template, status and duration (ms).
/// Headers (and so tokens) are never logged.
struct RequestLogMiddleware: RouterMiddleware {
    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next(request, context)
        // Metadata only when the line is written (`--log-level` above info skips it entirely).
        guard context.logger.logLevel <= .info else { return response }
        let ms = Double((DispatchTime.now().uptimeNanoseconds - start) / 10_000) / 100
        context.logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "path": .string(request.uri.path),
            "route": .string(context.endpointPath ?? "unmatched"),
            "status": .stringConvertible(response.status.code),
            "duration_ms": .stringConvertible(ms),
        ])
        return response
    }
}
