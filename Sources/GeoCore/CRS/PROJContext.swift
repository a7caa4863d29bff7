import CPROJ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PROJ context owned by exactly one thread, with that thread's cache of transformations.
///
/// PROJ objects (`PJ`) and contexts must not be shared between threads, and
/// `proj_create_crs_to_crs` searches the database, so it is far too slow to call per feature.
/// `PROJContext.current` hands each thread its own context (created on first use, destroyed
/// with the thread), holding one normalised `PJ` per (source, target) pair, built once on first
/// use from that thread. PROJ's log messages are captured here (never printed to stderr) so a
/// failed call can be reported with PROJ's own words: the one place PROJ errors become
/// `GeometryError`s.
final class PROJContext {
    let handle: OpaquePointer
    /// The last error message PROJ logged on this context.
    fileprivate var lastLog: String?
    /// One normalised transformation per interned pair (`PROJCatalog.pairID`), built lazily.
    private var operations: [OpaquePointer?] = []

    private init() {
        guard let h = proj_context_create() else { fatalError("proj_context_create returned NULL: out of memory") }
        handle = h
        proj_log_func(h, Unmanaged.passUnretained(self).toOpaque()) { userdata, _, message in
            guard let userdata else { return }
            let ctx = Unmanaged<PROJContext>.fromOpaque(userdata).takeUnretainedValue()
            ctx.lastLog = message.map { String(cString: $0) }
        }
        proj_log_level(h, PJ_LOG_ERROR)
    }

    deinit {
        for op in operations { if let op { proj_destroy(op) } }
        proj_context_destroy(handle)
    }

    /// This thread's context.
    static var current: PROJContext { perThread.value }

    private static let perThread = ThreadLocal { PROJContext() }

    /// This thread's normalised transformation for an interned pair, built on first use:
    /// `proj_create_crs_to_crs` followed by `proj_normalize_for_visualization`, so both ends take
    /// and give CityTwin's internal order (longitude/latitude, easting/northing).
    @inline(__always)
    func operation(_ pairID: Int) throws -> OpaquePointer {
        if pairID < operations.count, let op = operations[pairID] { return op }
        return try buildOperation(pairID)
    }

    private func buildOperation(_ pairID: Int) throws -> OpaquePointer {
        let pair = PROJCatalog.shared.pair(pairID)
        lastLog = nil
        guard let raw = proj_create_crs_to_crs(handle, pair.source.description, pair.target.description, nil) else {
            throw GeometryError(.crs, "cannot build a transformation from \(pair.source) to \(pair.target): \(failureReason(nil))")
        }
        defer { proj_destroy(raw) }
        guard let normalized = proj_normalize_for_visualization(handle, raw) else {
            throw GeometryError(.crs, "cannot normalise the axis order of the transformation from \(pair.source) to \(pair.target): \(failureReason(nil))")
        }
        if operations.count <= pairID { operations.append(contentsOf: repeatElement(nil, count: pairID + 1 - operations.count)) }
        operations[pairID] = normalized
        return normalized
    }

    /// PROJ's explanation of the last failure: the error number of `pj` (or the context) as
    /// text, plus the logged message when there is one. Resets the error state.
    func failureReason(_ pj: OpaquePointer?) -> String {
        let err = pj.map { proj_errno($0) } ?? proj_context_errno(handle)
        if let pj { proj_errno_reset(pj) }
        var parts: [String] = []
        if err != 0, let s = proj_context_errno_string(handle, err) { parts.append(String(cString: s)) }
        if let log = lastLog, !parts.contains(log) { parts.append(log) }
        lastLog = nil
        return parts.isEmpty ? "PROJ returned a non-finite result" : parts.joined(separator: "; ")
    }
}

/// Source and target of a PROJ transformation, as interned in `PROJCatalog`.
struct PROJPair: Hashable, Sendable {
    var source: CoordinateReferenceSystem
    var target: CoordinateReferenceSystem
}

/// Process-wide, lock-protected registry: interned PROJ pairs (their index addresses each
/// thread's `PJ` cache in O(1)), CRS metadata and planned transformers. Values only; no PROJ
/// object lives here, since those belong to one thread each.
final class PROJCatalog: @unchecked Sendable {
    static let shared = PROJCatalog()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var pairs: [PROJPair] = []
    private var pairIDs: [PROJPair: Int] = [:]
    private var metadata: [CoordinateReferenceSystem: CoordinateReferenceSystem.Metadata] = [:]
    private var transformers: [PROJPair: CoordinateTransformer] = [:]

    private init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    func pairID(_ pair: PROJPair) -> Int {
        locked {
            if let id = pairIDs[pair] { return id }
            pairs.append(pair)
            pairIDs[pair] = pairs.count - 1
            return pairs.count - 1
        }
    }

    func pair(_ id: Int) -> PROJPair { locked { pairs[id] } }

    func metadata(_ crs: CoordinateReferenceSystem) -> CoordinateReferenceSystem.Metadata? {
        locked { metadata[crs] }
    }

    func remember(_ m: CoordinateReferenceSystem.Metadata, for crs: CoordinateReferenceSystem) {
        locked { metadata[crs] = m }
    }

    func transformer(_ pair: PROJPair) -> CoordinateTransformer? { locked { transformers[pair] } }

    func remember(_ t: CoordinateTransformer) {
        locked { transformers[PROJPair(source: t.source, target: t.target)] = t }
    }
}
