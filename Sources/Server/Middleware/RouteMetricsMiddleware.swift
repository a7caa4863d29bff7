import Dispatch
import Hummingbird

/// Records each request in `ServerMetrics` under its route template
/// (`/collections/{collectionId}/items`), method and final status. It sits outside
/// `ProblemMiddleware`, so failed requests are counted with their problem status.
struct RouteMetricsMiddleware: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let response = try await next(request, context)
            metrics.record(route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
                           status: response.status.code, nanoseconds: DispatchTime.now().uptimeNanoseconds - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.record(route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
                           status: status, nanoseconds: DispatchTime.now().uptimeNanoseconds - start)
            throw error
        }
    }
}
