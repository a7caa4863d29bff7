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
/// with the thread), holding one normalised `PJ` per (source, target) pair, built on first use
/// from that thread. PROJ's log messages are captured here (never printed to stderr) so a
/// failed call can be reported with PROJ's own words: the one place PROJ errors become
/// `GeometryError`s.
///
/// The cache is bounded (issue 78 §10: every EPSG code a request names in `crs=` built one more
/// transformation of about 75 KiB on each thread that served it, never freed): at most
/// `maximumOperations` transformations per thread, the least recently used destroyed to make
/// room, and the whole context (PROJ's own caches of the CRSs and operations it looked up in its
/// database with it) replaced by a fresh one after every `recycleAfter` transformations built.
/// A `PJ` is only ever used by the thread that owns it, from the moment `operation(_:)` answers
/// it until the synchronous PROJ call it was fetched for returns (no caller keeps one across a
/// suspension point, or across another `operation(_:)` call): so none is destroyed while in use.
final class PROJContext {
    /// Transformations one thread keeps (a server uses a handful: storage, CRS84, Web Mercator, the
    /// city's metric zone; clients asking for other codes take their turn).
    static let maximumOperations = 32
    /// Transformations one context builds before it is replaced by a fresh one, which empties
    /// PROJ's own per-context caches too.
    static let recycleAfter = 256

    private(set) var handle: OpaquePointer
    /// The last error message PROJ logged on this context.
    fileprivate var lastLog: String?
    /// The thread's transformations by pair, each with when it was last used.
    private var operations: [PROJPair: (pj: OpaquePointer, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// Transformations built by the current context.
    private var built = 0

    private init() {
        handle = Self.makeContext()
        installLog()
    }

    private static func makeContext() -> OpaquePointer {
        guard let h = proj_context_create() else { fatalError("proj_context_create returned NULL: out of memory") }
        proj_log_level(h, PJ_LOG_ERROR)
        return h
    }

    private func installLog() {
        proj_log_func(handle, Unmanaged.passUnretained(self).toOpaque()) { userdata, _, message in
            guard let userdata else { return }
            let ctx = Unmanaged<PROJContext>.fromOpaque(userdata).takeUnretainedValue()
            ctx.lastLog = message.map { String(cString: $0) }
        }
    }

    deinit {
        for entry in operations.values { proj_destroy(entry.pj) }
        proj_context_destroy(handle)
    }

    /// This thread's context.
    static var current: PROJContext { perThread.value }

    private static let perThread = ThreadLocal { PROJContext() }

    /// Transformations this thread holds now (for tests and measurements).
    var cachedOperations: Int { operations.count }

    /// This thread's normalised transformation for `pair`, built on first use:
    /// `proj_create_crs_to_crs` followed by `proj_normalize_for_visualization`, so both ends take
    /// and give CityTwin's internal order (longitude/latitude, easting/northing). Use it for the
    /// synchronous PROJ call at hand only: a later call may destroy it to make room.
    @inline(__always)
    func operation(_ pair: PROJPair) throws -> OpaquePointer {
        clock &+= 1
        if let index = operations.index(forKey: pair) {
            operations.values[index].used = clock
            return operations.values[index].pj
        }
        return try buildOperation(pair)
    }

    private func buildOperation(_ pair: PROJPair) throws -> OpaquePointer {
        if built >= Self.recycleAfter { recycle() }
        lastLog = nil
        guard let raw = proj_create_crs_to_crs(handle, pair.source.description, pair.target.description, nil) else {
            throw GeometryError(.crs, "cannot build a transformation from \(pair.source) to \(pair.target): \(failureReason(nil))")
        }
        defer { proj_destroy(raw) }
        guard let normalized = proj_normalize_for_visualization(handle, raw) else {
            throw GeometryError(.crs, "cannot normalise the axis order of the transformation from \(pair.source) to \(pair.target): \(failureReason(nil))")
        }
        built += 1
        if operations.count >= Self.maximumOperations, let oldest = operations.min(by: { $0.value.used < $1.value.used }) {
            proj_destroy(oldest.value.pj)
            operations.removeValue(forKey: oldest.key)
        }
        operations[pair] = (normalized, clock)
        return normalized
    }

    /// Destroys every transformation of this thread and the context with PROJ's caches, and starts
    /// a fresh context: called between two PROJ calls of this thread, when none is in use.
    private func recycle() {
        for entry in operations.values { proj_destroy(entry.pj) }
        operations = [:]
        proj_context_destroy(handle)
        handle = Self.makeContext()
        installLog()
        built = 0
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

/// Source and target of a PROJ transformation, in the canonical order `CoordinateTransformer.plan` picks.
struct PROJPair: Hashable, Sendable {
    var source: CoordinateReferenceSystem
    var target: CoordinateReferenceSystem
}

/// Process-wide, lock-protected caches of values (no PROJ object lives here, since those belong
/// to one thread each): CRS metadata and planned transformers, each keyed by what requests name
/// (`crs=`, `bbox-crs`, `Content-Crs`) and so bounded: at most `capacity` entries each, the least
/// recently used dropped (and looked up again when asked for).
final class PROJCatalog: @unchecked Sendable {
    static let shared = PROJCatalog()

    /// Entries of each cache (a few hundred bytes each).
    static let capacity = 1024

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var metadata: [CoordinateReferenceSystem: (value: CoordinateReferenceSystem.Metadata, used: UInt64)] = [:]
    private var transformers: [PROJPair: (value: CoordinateTransformer, used: UInt64)] = [:]
    private var clock: UInt64 = 0

    private init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    func metadata(_ crs: CoordinateReferenceSystem) -> CoordinateReferenceSystem.Metadata? {
        locked {
            clock &+= 1
            guard let index = metadata.index(forKey: crs) else { return nil }
            metadata.values[index].used = clock
            return metadata.values[index].value
        }
    }

    func remember(_ m: CoordinateReferenceSystem.Metadata, for crs: CoordinateReferenceSystem) {
        locked {
            clock &+= 1
            if metadata[crs] == nil, metadata.count >= Self.capacity, let oldest = metadata.min(by: { $0.value.used < $1.value.used }) {
                metadata.removeValue(forKey: oldest.key)
            }
            metadata[crs] = (m, clock)
        }
    }

    func transformer(_ pair: PROJPair) -> CoordinateTransformer? {
        locked {
            clock &+= 1
            guard let index = transformers.index(forKey: pair) else { return nil }
            transformers.values[index].used = clock
            return transformers.values[index].value
        }
    }

    func remember(_ t: CoordinateTransformer) {
        let pair = PROJPair(source: t.source, target: t.target)
        locked {
            clock &+= 1
            if transformers[pair] == nil, transformers.count >= Self.capacity,
               let oldest = transformers.min(by: { $0.value.used < $1.value.used }) {
                transformers.removeValue(forKey: oldest.key)
            }
            transformers[pair] = (t, clock)
        }
    }

    /// Entries held now: metadata, transformers (for tests and measurements).
    var counts: (metadata: Int, transformers: Int) { locked { (metadata.count, transformers.count) } }
}
