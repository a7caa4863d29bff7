import CGEOS

/// A GEOS context handle owned by exactly one thread.
///
/// GEOS's reentrant API needs a context per thread; creating one per call is wasteful, sharing
/// one between threads is a data race. `GEOSContext.current` hands each thread its own context,
/// created on first use and finished when the thread exits. Every sentinel a GEOS call returns
/// (NULL, 2, -1) is turned into a thrown `GeometryError` carrying GEOS's own message, in
/// exactly one place: the `check` family below.
public final class GEOSContext {
    public let handle: GEOSContextHandle_t
    /// The last message GEOS's error handler delivered on this context.
    fileprivate(set) var lastError: String?

    private init() {
        guard let h = GEOS_init_r() else { fatalError("GEOS_init_r returned NULL: out of memory") }
        handle = h
        GEOSContext_setErrorMessageHandler_r(h, { message, userdata in
            guard let userdata else { return }
            let ctx = Unmanaged<GEOSContext>.fromOpaque(userdata).takeUnretainedValue()
            ctx.lastError = message.map { String(cString: $0) } ?? "unknown GEOS error"
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { GEOS_finish_r(handle) }

    /// This thread's context.
    public static var current: GEOSContext { perThread.value }

    private static let perThread = ThreadLocal { GEOSContext() }

    // MARK: - Sentinel checks: the one place GEOS errors become Swift errors.

    /// The error for a failed call, with GEOS's message if it left one.
    func error(_ operation: String) -> GeometryError {
        defer { lastError = nil }
        return GeometryError(.geos, "\(operation): \(lastError ?? "GEOS reported failure")")
    }

    /// A pointer result: NULL is failure.
    @inline(__always)
    func check<T>(_ value: T?, _ operation: @autoclosure () -> String) throws -> T {
        guard let value else { throw error(operation()) }
        return value
    }

    /// A `char` predicate result: 0 false, 1 true, 2 exception.
    @inline(__always)
    func checkBool(_ value: CChar, _ operation: @autoclosure () -> String) throws -> Bool {
        switch value {
        case 0: return false
        case 1: return true
        default: throw error(operation())
        }
    }

    /// An `int` status result: 0 is failure for GEOS's "returns 0 on exception" functions.
    @inline(__always)
    func checkStatus(_ value: Int32, _ operation: @autoclosure () -> String) throws {
        if value == 0 { throw error(operation()) }
    }

    /// An `int` result where -1 means exception (counts, type ids, SRIDs).
    @inline(__always)
    func checkCount(_ value: Int32, _ operation: @autoclosure () -> String) throws -> Int {
        if value < 0 { throw error(operation()) }
        return Int(value)
    }

    /// Frees a string GEOS allocated, returning its Swift copy.
    func takeString(_ s: UnsafeMutablePointer<CChar>?, _ operation: String) throws -> String {
        let s = try check(s, operation)
        defer { GEOSFree_r(handle, s) }
        return String(cString: s)
    }
}
