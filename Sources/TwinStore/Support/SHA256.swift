import Crypto
import Foundation

/// SHA-256 (FIPS 180-4) through swift-crypto (BoringSSL on Linux, CryptoKit on Apple
/// platforms). Used for content hashes of feature versions, the audit hash chain and, keyed
/// (HMAC-SHA256, RFC 2104), the `hash` masking rule. A thin streaming façade so the call sites
/// feed strings, byte arrays and single separator bytes alike without copying.
struct SHA256 {
    // Two optionals rather than an enum: optional chaining mutates the stored hasher in place,
    // where taking it out of an enum payload and writing it back leaves two references to
    // swift-crypto's digest context for the update, which then copies the whole state (an
    // allocation and a copy per `update`).
    private var plain: Crypto.SHA256?
    private var keyed: HMAC<Crypto.SHA256>?

    /// A plain SHA-256.
    init() { plain = Crypto.SHA256() }

    /// HMAC-SHA256 under `key` (any length; RFC 2104 hashes keys longer than 64 bytes).
    init(key: [UInt8]) { keyed = HMAC(key: SymmetricKey(data: key)) }

    mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { absorb(UnsafeRawBufferPointer($0)) }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { absorb($0) }
        }
    }

    mutating func update(_ s: String) {
        var s = s
        s.withUTF8 { absorb(UnsafeRawBufferPointer($0)) }
    }

    private mutating func absorb(_ raw: UnsafeRawBufferPointer) {
        if plain != nil {
            plain?.update(bufferPointer: raw)
        } else {
            keyed?.update(data: raw)
        }
    }

    /// The 32-byte digest (or authentication code, when keyed).
    func finalize() -> [UInt8] {
        if let h = plain { return Array(h.finalize()) }
        if let h = keyed { return Array(h.finalize()) }
        return []
    }

    /// Lower-case hex digest of `bytes`.
    static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var h = SHA256()
        h.update(bytes)
        return hexString(h.finalize())
    }

    /// Lower-case hex HMAC-SHA256 of `bytes` under `key`.
    static func keyedHex<S: Sequence>(key: [UInt8], _ bytes: S) -> String where S.Element == UInt8 {
        var h = SHA256(key: key)
        h.update(bytes)
        return hexString(h.finalize())
    }

    static func hexString<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let bytes = Array(digest)   // no copy for an array
        let digits: StaticString = "0123456789abcdef"
        return digits.withUTF8Buffer { hex in
            String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
                var o = 0
                for b in bytes {
                    out[o] = hex[Int(b >> 4)]
                    out[o + 1] = hex[Int(b & 15)]
                    o += 2
                }
                return o
            }
        }
    }
}
