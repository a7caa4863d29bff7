import Foundation
import GeoCore

/// JSON text with sorted keys and no whitespace: the form stored in the `props` column and
/// hashed for version content hashes, so equal properties always give equal text. Kept apart
/// from GeoCore's JSON writer (`GeoJSON.encodeBytes`, which every output uses) on purpose: these
/// exact bytes are inside every stored content hash, so their number format (Swift's shortest
/// `description`) may never follow a change of an output writer.
package enum CanonicalJSON {
    package static func text(_ v: JSONValue) -> String {
        var w = Writer()
        w.write(v)
        return w.text
    }

    package static func text(_ properties: [String: JSONValue]) -> String {
        var w = Writer()
        w.writeObject(properties)
        return w.text
    }

    /// The canonical UTF-8 bytes, written into one buffer (one allocation per text instead of
    /// a `String` append per piece); `containsNUL` tells whether a key or text held U+0000, and
    /// `containsControl` whether one held any C0 control character other than tab, LF and CR
    /// (U+0000 included: what XML 1.0 cannot carry, `PreparedFeature` refuses).
    package struct Writer {
        package private(set) var bytes: [UInt8] = []
        package private(set) var containsNUL = false
        package private(set) var containsControl = false

        package init(capacity: Int = 256) {
            bytes.reserveCapacity(capacity)
        }

        package var text: String { String(decoding: bytes, as: UTF8.self) }

        package mutating func write(_ v: JSONValue) {
            switch v {
            case .null: append("null")
            case .bool(let b): append(b ? "true" : "false")
            case .integer(let i): writeInteger(i)
            case .number(let d):
                if d.isFinite {
                    if d.rounded() == d, abs(d) < 1e15 {
                        writeInteger(Int64(d))
                        append(".0")
                    } else {
                        append(d.description)
                    }
                } else {
                    append("null")
                }
            case .string(let s): writeString(s)
            case .array(let a):
                bytes.append(UInt8(ascii: "["))
                for (i, e) in a.enumerated() {
                    if i > 0 { bytes.append(UInt8(ascii: ",")) }
                    write(e)
                }
                bytes.append(UInt8(ascii: "]"))
            case .object(let o): writeObject(o)
            }
        }

        package mutating func writeObject(_ o: [String: JSONValue]) {
            bytes.append(UInt8(ascii: "{"))
            for (i, (k, v)) in o.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(k)
                bytes.append(UInt8(ascii: ":"))
                write(v)
            }
            bytes.append(UInt8(ascii: "}"))
        }

        package mutating func writeString(_ s: String) {
            bytes.append(UInt8(ascii: "\""))
            var s = s
            s.withUTF8 { utf8 in
                // Most text needs no escape: append it whole.
                guard utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                    bytes.append(contentsOf: utf8)
                    return
                }
                for b in utf8 {
                    switch b {
                    case 0x22: append("\\\"")
                    case 0x5C: append("\\\\")
                    case 0x0A: append("\\n")
                    case 0x0D: append("\\r")
                    case 0x09: append("\\t")
                    case 0..<0x20:
                        if b == 0 { containsNUL = true }
                        containsControl = true
                        append("\\u00")
                        bytes.append(Self.hexDigits[Int(b >> 4)])
                        bytes.append(Self.hexDigits[Int(b & 0x0F)])
                    default: bytes.append(b)
                    }
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        private mutating func writeInteger(_ i: Int64) {
            if i < 0 { bytes.append(UInt8(ascii: "-")) }
            var m = i.magnitude
            var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits of any Int64
            withUnsafeMutableBytes(of: &digits) { buffer in
                var n = 0
                repeat {
                    buffer[23 - n] = UInt8(ascii: "0") + UInt8(m % 10)
                    m /= 10
                    n += 1
                } while m > 0
                bytes.append(contentsOf: buffer[(24 - n)...])
            }
        }

        private mutating func append(_ s: String) {
            bytes.append(contentsOf: s.utf8)
        }

        private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    }
}
