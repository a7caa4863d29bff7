import Logging
import ServiceLifecycle

/// How `citytwin serve` and `citytwin worker` stop: on SIGTERM or SIGINT their services are
/// asked to finish (the HTTP server stops accepting and lets running requests end, a worker
/// stops claiming jobs); whatever still runs after `grace` is cancelled. With the store's bounded
/// wait for a connection, cancellation ends even work blocked on an unreachable database, so
/// the process ends within the grace period whether or not PostgreSQL answers.
public enum GracefulStop {
    /// The default grace period: within the 10 s an orchestrator usually waits before SIGKILL
    /// (Kubernetes allows 30 s, systemd 90 s, `docker stop` 10 s).
    public static let defaultGrace: Duration = .seconds(8)

    /// Runs `services` until they end or a signal stops them within `grace`.
    public static func run(_ services: [any Service], grace: Duration, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = grace
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch is CancellationError {
            // The grace period ran out and the rest was cancelled: a stop, not a failure.
            logger.warning("the grace period of \(grace) ended: running work was cancelled")
        }
    }
}
