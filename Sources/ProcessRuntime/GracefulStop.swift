import Foundation
import Logging
import ServiceLifecycle
import TwinStore

/// How `citytwin serve` and `citytwin worker` stop: on SIGTERM or SIGINT their services are
/// asked to finish (the HTTP server stops accepting and lets running requests end, a worker
/// stops claiming jobs); whatever still runs after `grace` is cancelled. With the store's bounded
/// wait for a connection, cancellation ends even work blocked on an unreachable database, so
/// the process ends within the grace period whether or not PostgreSQL answers. Work that ignores
/// its cancellation (a query PostgreSQL holds waiting on a lock does not end when its task is
/// cancelled) cannot hold the process: `cancellationAllowance` after the grace period it exits.
public enum GracefulStop {
    /// The default grace period: within the 10 s an orchestrator usually waits before SIGKILL
    /// (Kubernetes allows 30 s, systemd 90 s, `docker stop` 10 s).
    public static let defaultGrace: Duration = .seconds(8)

    /// How long cancelled work may take to end after the grace period before the process exits anyway.
    public static let cancellationAllowance: Duration = .seconds(1)

    /// Runs `services` until they end or a signal stops them within `grace` (plus
    /// `cancellationAllowance` for work that does not end when cancelled).
    public static func run(_ services: [any Service], grace: Duration, logger: Logger) async throws {
        // The deadline goes last: a group asks its services to stop in reverse order, each after the
        // one behind it has ended, so the deadline is set the moment the stop begins.
        let deadline = ServiceGroupConfiguration.ServiceConfiguration(service: StopDeadline(after: grace + cancellationAllowance, logger: logger),
                                                                      successTerminationBehavior: .ignore)
        var configuration = ServiceGroupConfiguration(services: services.map { .init(service: $0) } + [deadline],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = grace
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch is CancellationError {
            // The grace period ran out and the rest was cancelled: a stop, not a failure.
            logger.warning("the grace period of \(grace) ended: running work was cancelled")
        }
    }
}

/// Waits for a stop to begin, then ends the process `after` that unless it has ended by itself.
/// On a dispatch queue, not a task: the group cancels its tasks when the grace period ends.
private struct StopDeadline: Service {
    let after: Duration
    let logger: Logger

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return  // cancelled: the group ends without a stop signal
        }
        let (after, logger) = (after, logger)
        DispatchQueue.global().asyncAfter(deadline: .now() + after.seconds) {
            logger.warning("work did not end \(after) after the stop began (cancelled, it still waits, e.g. on a database lock): exiting without it")
            exit(0)
        }
    }
}
