import Dispatch

/// Work that holds a thread for long (a road graph's contraction hierarchy, an address index, a map
/// drawn by cairo) run on a Dispatch thread instead of Swift concurrency's cooperative threads:
/// there is one of those per core and every request's task shares them, so seconds of work on one
/// stall the server (on 2 cores at 100× the sample, start-up's hierarchy build held one for 40 s and
/// the parking signs the other: the first tile waited 45 s). The one way CityTwin takes such work
/// off the pool; short steps stay where they are.
public enum BlockingWork {
    /// `work`'s result, computed on a Dispatch worker thread while the calling task is suspended.
    /// - Throws: what `work` throws.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Swift.Result { try work() }) }
        }
    }
}
