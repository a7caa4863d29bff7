import Foundation

/// Ids for features that arrive without one: UUID version 7 text (RFC 9562 §5.7, lower-case
/// 8-4-4-4-12 hex): a 48-bit Unix timestamp in milliseconds, a 12-bit counter, and 62 random
/// bits. Ids from one generator strictly increase, also within one millisecond (the counter,
/// RFC 9562 §6.2 method 1; when it runs out the timestamp moves on by a millisecond), so they
/// sort in the order they were made: the B-tree indexes on feature ids grow at their right edge
/// instead of at random pages, and a bulk load's index build sorts keys that are already in order.
///
/// Random bits are drawn 4 KiB at a time from /dev/urandom (one read per 512 ids, where
/// `UUID()` opens the device for each). A generator is not thread-safe: one per reading thread,
/// or `FeatureIDGenerator.next()` for single ids.
public final class FeatureIDGenerator {
    private var pool = [UInt8](repeating: 0, count: 4096)
    private var used = 4096
    private let source = FileHandle(forReadingAtPath: "/dev/urandom")
    private var lastMillisecond: UInt64 = 0
    private var counter: UInt16 = 0

    public init() {}

    deinit { try? source?.close() }

    /// The next id, greater (as text and as a UUID) than every id this generator made before.
    public func next() -> String {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        let random = draw()
        if now > lastMillisecond {
            lastMillisecond = now
            // A random start in the lower half leaves room to count up within the millisecond.
            counter = UInt16(random.0 >> 53)  // 11 bits
        } else if counter < 0xFFF {
            counter += 1
        } else {
            lastMillisecond += 1
            counter = UInt16(random.0 >> 53)
        }
        return Self.text(millisecond: lastMillisecond, counter: counter, random: random.1)
    }

    /// A single id, from a generator shared by the process.
    public static func next() -> String {
        shared.withLock { $0.next() }
    }

    private static let shared = LockedGenerator()

    /// 16 random bytes as two words.
    private func draw() -> (UInt64, UInt64) {
        if used + 16 > pool.count {
            let drawn = source?.readData(ofLength: pool.count) ?? Data()
            if drawn.count == pool.count {
                pool = [UInt8](drawn)
            } else {
                // No /dev/urandom: the system generator, eight bytes at a time.
                var g = SystemRandomNumberGenerator()
                pool.withUnsafeMutableBytes { raw in
                    for i in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: g.next() as UInt64, toByteOffset: i, as: UInt64.self) }
                }
            }
            used = 0
        }
        defer { used += 16 }
        return pool.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: used, as: UInt64.self), raw.loadUnaligned(fromByteOffset: used + 8, as: UInt64.self))
        }
    }

    /// The UUID text of version 7 fields: `unix_ts_ms` (48 bits), version 7, `rand_a` = the
    /// counter (12 bits), variant 0b10, `rand_b` = 62 random bits.
    static func text(millisecond: UInt64, counter: UInt16, random: UInt64) -> String {
        let high = (millisecond & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | UInt64(counter & 0xFFF)
        let low = random & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { out in
            var o = 0
            for i in 0..<16 {
                let b = UInt8(truncatingIfNeeded: i < 8 ? high >> (56 - 8 * i) : low >> (56 - 8 * (i - 8)))
                if i == 4 || i == 6 || i == 8 || i == 10 { out[o] = UInt8(ascii: "-"); o += 1 }
                out[o] = hexDigits[Int(b >> 4)]
                out[o + 1] = hexDigits[Int(b & 0x0F)]
                o += 2
            }
            return o
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The process's generator behind a lock (ids from any thread, still increasing).
    private final class LockedGenerator: @unchecked Sendable {
        private let lock = NSLock()
        private let generator = FeatureIDGenerator()

        func withLock<R>(_ body: (FeatureIDGenerator) -> R) -> R {
            lock.lock()
            defer { lock.unlock() }
            return body(generator)
        }
    }
}
