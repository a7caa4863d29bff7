import Crypto
import Foundation

/// SHA-256 (FIPS 180-4) through swift-crypto (BoringSSL on Linux, CryptoKit on Apple
/// platforms). Used for content hashes of feature versions, the audit hash chain and, keyed
/// (HMAC-SHA256, RFC 2104), the `hash` masking rule. A thin streaming façade so the call sites
/// feed strings, byte arrays and single separator bytes alike without copying.
struct SHA256 {
    private enum Engine {
        case plain(Crypto.SHA256)
        case keyed(HMAC<Crypto.SHA256>)
    }

    private var engine: Engine

    /// A plain SHA-256.
    init() { engine = .plain(Crypto.SHA256()) }

    /// HMAC-SHA256 under `key` (any length; RFC 2104 hashes keys longer than 64 bytes).
    init(key: [UInt8]) { engine = .keyed(HMAC(key: SymmetricKey(data: key))) }

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
        switch engine {
        case .plain(var h):
            h.update(bufferPointer: raw)
            engine = .plain(h)
        case .keyed(var h):
            h.update(data: raw)
            engine = .keyed(h)
        }
    }

    /// The 32-byte digest (or authentication code, when keyed).
    func finalize() -> [UInt8] {
        switch engine {
        case .plain(let h): Array(h.finalize())
        case .keyed(let h): Array(h.finalize())
        }
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
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
