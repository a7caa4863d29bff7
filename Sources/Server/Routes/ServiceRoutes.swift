import GeoCore
import Hummingbird
import TwinStore

extension CityTwinServer {
    /// `/health` and `/metrics`.
    var serviceOperations: [APIOperation] {
        [
            APIOperation(
                id: "getHealth", method: .get, path: "/health", summary: "Whether the store answers: 200 {\"status\":\"ok\"}, else 503.",
                tag: "Service", parameters: [],
                responses: [.ok("The store answers.", [(MediaTypeName.json, "Health")]),
                            .problem(503, "The store does not answer.")] + APIResponse.standardProblems
            ) { [self] _, _, _ in
                do {
                    // One indexed query that returns nothing: the store answers, and a probe under
                    // load costs no catalogue scan (extents, counts).
                    _ = try await store.changes(since: .max, limit: 1, by: .anonymous)
                } catch {
                    options.logger.warning("health check failed", metadata: ["error": .string(String(describing: error))])
                    throw Problem(.storeUnavailable, "the store does not answer")
                }
                return .json(["status": "ok"])
            },
            APIOperation(
                id: "getMetrics", method: .get, path: "/metrics", summary: "Request counts and latency histograms per route (Prometheus text format).",
                tag: "Service", parameters: [],
                responses: [.ok("Prometheus exposition.", [("text/plain", "PrometheusText")])] + APIResponse.standardProblems
            ) { [self] _, _, _ in
                Representation(mediaType: MediaTypeName.prometheus, body: metrics.exposition())
            },
        ]
    }
}
