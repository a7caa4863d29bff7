#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `Object` per thread, made on the thread's first use and released when the thread exits.
/// This is how GeoCore keeps the C library handles that must never be shared between threads
/// (GEOS contexts, PROJ contexts and their transformations): one per thread, reused, never one
/// per call.
final class ThreadLocal<Object: AnyObject>: @unchecked Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Object

    init(_ make: @escaping @Sendable () -> Object) {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            // Releasing needs no type: the pointer is the retained object itself.
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(raw).release()
            #else
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
            #endif
        }
        precondition(rc == 0, "pthread_key_create failed: the process is out of thread-local keys")
        self.key = key
        self.make = make
    }

    /// This thread's object.
    @inline(__always)
    var value: Object {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Object>.fromOpaque(raw).takeUnretainedValue()
        }
        let object = make()
        pthread_setspecific(key, Unmanaged.passRetained(object).toOpaque())
        return object
    }
}
