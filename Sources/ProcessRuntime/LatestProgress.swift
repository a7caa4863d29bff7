import Foundation
import GeoCore

/// A long synchronous run's latest progress report (a flood run, a corridor's cycle search), shared
/// between the run and the loop that reports it to the job.
package final class LatestProgress: @unchecked Sendable {
    /// Runs `body` in a task while reporting its latest progress to `progress` every half
    /// second (capped at 99 % until it ends; its end noticed within 20 ms); a dismissed job (the report throws) or a cancelled
    /// caller cancels the body's task, which a flood run notices within one coupling interval and a
    /// corridor search at its next cycle.
    /// - Returns: the body's value (awaited, so its errors are thrown here).
    package static func run<T: Sendable>(reporting progress: JobProgress,
                                 _ body: @escaping @Sendable (@escaping @Sendable (WorkProgress) -> Void) async throws -> T) async throws -> T {
        try await progress.report(0)
        let latest = LatestProgress()
        let runTask = Task {
            defer { latest.finish() }
            return try await body { p in latest.set(p) }
        }
        try await withTaskCancellationHandler {
            // A body that ends at once (a corridor plan of a few milliseconds) is not held for a
            // whole reporting interval: the end is noticed within 20 ms, reports go every 500 ms.
            var sinceReport = Duration.zero
            while !latest.isFinished {
                // Cancelled: the body's task is cancelled too, and awaited below (no busy loop of reports).
                guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { break }
                sinceReport += .milliseconds(20)
                guard sinceReport >= .milliseconds(500), !latest.isFinished else { continue }
                sinceReport = .zero
                var report = latest.get()
                report.fraction = min(0.99, report.fraction ?? 0)
                do { try await progress.report(report) } catch {
                    runTask.cancel()
                    throw error
                }
            }
        } onCancel: {
            runTask.cancel()
        }
        return try await runTask.value
    }

    private let lock = NSLock()
    private var value = WorkProgress.stage("starting", fraction: 0)
    private var finished = false
    func set(_ v: WorkProgress) { lock.lock(); value = v; lock.unlock() }
    func finish() { lock.lock(); finished = true; lock.unlock() }
    var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    func get() -> WorkProgress { lock.lock(); defer { lock.unlock() }; return value }
}
