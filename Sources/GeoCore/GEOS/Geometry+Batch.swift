import Foundation

/// Operations over many geometries at once, spread over the machine's cores. Each worker thread
/// uses its own `GEOSContext` (the per-thread design is what makes this safe); results keep the
/// input order. Small batches run on the calling thread.
extension Array where Element == Geometry {
    /// Every geometry buffered by `distance` (units of the CRS: metres in EPSG:4547).
    /// - Throws: the error of the lowest failing index, with `position` naming it (`[i]`).
    public func buffered(distance: Double, parameters: BufferParameters = .init()) throws -> [Geometry] {
        try parallelMap { try $0.buffer(distance: distance, parameters: parameters) }
    }

    /// `transform` applied to every geometry, on all cores; the order is kept.
    /// - Throws: the error of the lowest failing index, with `position` naming it (`[i]`).
    public func parallelMap(_ transform: @escaping @Sendable (Geometry) throws -> Geometry) throws -> [Geometry] {
        let workers = count >= 256 ? Swift.max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        var results = [Geometry?](repeating: nil, count: count)
        let failure = LowestIndexError()
        try results.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            let chunks = workers == 1 ? 1 : workers * 8
            let chunkLength = (count + chunks - 1) / chunks
            let input = self
            let run: @Sendable (Int) -> Void = { c in
                let start = c * chunkLength, end = Swift.min(count, start + chunkLength)
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
            if let (index, error) = failure.first {
                if var e = error as? GeometryError {
                    e.position = "[\(index)]" + (e.position.map { " \($0)" } ?? "")
                    throw e
                }
                throw error
            }
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
