import GeoCore
import Hummingbird
import Logging
import TwinStore

/// `/health` and `/metrics`: what an orchestrator and a monitoring system ask.
struct ServiceRoutes: OperationCollection {
    let store: any FeatureStore
    let metrics: ServerMetrics
    let logger: Logger
    /// How long `/health` waits for the store: it answers within a second either way.
    static let healthProbeLimit: Duration = .milliseconds(800)

    /// `/health` and `/metrics`.
    var operations: [APIOperation] {
        [
            APIOperation(
                id: "getHealth", method: .get, path: "/health",
                summary: "Whether the store answers: 200 {\"status\":\"ok\"}, else (within a second) 503 saying the service is degraded and why.",
                tag: "Service", parameters: [],
                responses: [.ok("The store answers.", [(MediaTypeName.json, "Health")]),
                            .problem(503, "Degraded: the store is unreachable (with Retry-After).")] + APIResponse.standardProblems
            ) { [self] _, _, _ in
                let store = store
                let limit = Self.healthProbeLimit
                do {
                    // One indexed query that returns nothing: the store answers, and a probe under
                    // load costs no catalogue scan (extents, counts). Bounded on its own, shorter
                    // than the store's wait for a connection, so an orchestrator hears within a second.
                    _ = try await withDeadline(limit, abandonAfter: .milliseconds(150), expired: {
                        StoreError(.unavailable, "no answer within \(Int(limit / .milliseconds(1))) ms")
                    }) {
                        try await store.changes(since: .max, limit: 1, by: .anonymous)
                    }
                } catch {
                    logger.warning("health check failed", metadata: ["error": .string(String(describing: error))])
                    let reason = (error as? StoreError).flatMap { $0.code == .unavailable ? $0.message : nil } ?? "it does not answer"
                    throw Problem(.storeUnavailable, "degraded: the store is unreachable: \(reason)", retryAfter: Problem.storeRetrySeconds)
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
