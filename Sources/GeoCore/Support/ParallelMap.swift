import Foundation

/// Ordered work over many elements, spread over the machine's cores: the one way CityTwin runs a
/// batch in parallel. Each worker thread keeps its own GEOS context and PROJ objects (the
/// per-thread design is what makes GEOS/PROJ calls inside `transform` safe). Small batches run on
/// the calling thread.
extension Array where Element: Sendable {
    /// `transform` applied to every element, on all cores; the result keeps the input order.
    /// - Parameter minimumCount: below this many elements everything runs on the calling thread.
    /// - Throws: the error of the lowest failing index; a `GeometryError` gets `position`
    ///   prefixed with that index (`[i]`).
    public func parallelMap<Result: Sendable>(minimumCount: Int = 256,
                                              _ transform: @escaping @Sendable (Element) throws -> Result) throws -> [Result] {
        let workers = count >= minimumCount ? Swift.max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        var results = [Result?](repeating: nil, count: count)
        let failure = LowestIndexError()
        results.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            let chunks = workers == 1 ? 1 : workers * 8
            let chunkLength = (count + chunks - 1) / chunks
            let input = self
            let run: @Sendable (Int) -> Void = { c in
                let start = c * chunkLength, end = Swift.min(input.count, start + chunkLength)
                var i = start
                while i < end {
                    do {
                        out[i] = try transform(input[i])
                    } catch {
                        failure.record(index: i, error)
                        return
                    }
                    i += 1
                }
            }
            if workers == 1 { run(0) } else { DispatchQueue.concurrentPerform(iterations: chunks, execute: run) }
        }
        if let (index, error) = failure.first {
            if var e = error as? GeometryError {
                e.position = "[\(index)]" + (e.position.map { " \($0)" } ?? "")
                throw e
            }
            throw error
        }
        return results.map { $0! }
    }
}

/// The failure with the lowest index among concurrent workers.
final class LowestIndexError: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (Int, any Error)?

    func record(index: Int, _ error: any Error) {
        lock.lock(); defer { lock.unlock() }
        if value == nil || index < value!.0 { value = (index, error) }
    }

    var first: (Int, any Error)? {
        lock.lock(); defer { lock.unlock() }
        return value
    }
}
