import Foundation
import PostgresNIO

/// Rows in PostgreSQL's COPY text format (tab between columns, newline after each row, `\N`
/// for NULL, backslash escapes for backslash, tab, newline and carriage return), written
/// straight into one buffer for `COPY … FROM STDIN`.
struct CopyRows {
    private(set) var buffer: ByteBuffer
    private var atRowStart = true

    /// An empty buffer with room for about `capacity` bytes.
    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    private mutating func separate() {
        if atRowStart { atRowStart = false } else { buffer.writeInteger(UInt8(ascii: "\t")) }
    }

    /// Ends the current row.
    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        atRowStart = true
    }

    /// A NULL column.
    mutating func null() {
        separate()
        buffer.writeStaticString("\\N")
    }

    /// A text column (NULL when `nil`), escaped.
    mutating func text(_ value: String?) {
        guard var value else { return null() }
        separate()
        value.withUTF8 { utf8 in
            // Almost every value needs no escape: one copy of the whole string.
            guard utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
                buffer.writeBytes(UnsafeRawBufferPointer(utf8))
                return
            }
            for b in utf8 {
                switch b {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(b)
                }
            }
        }
    }

    /// An integer column.
    mutating func integer(_ value: Int64?) {
        guard let value else { return null() }
        separate()
        buffer.writeString(String(value))
    }

    /// A float8 column in the shortest text that reads back as the same double.
    mutating func double(_ value: Double?) {
        guard let value else { return null() }
        separate()
        buffer.writeString(value.description)
    }

    /// A geometry column: `SRID=<srid>;` and the WKB in hex, which PostGIS's geometry input reads
    /// as ST_GeomFromWKB(wkb, srid) does; NULL without WKB.
    mutating func geometry(wkb: [UInt8]?, srid: Int32) {
        guard let wkb else { return null() }
        separate()
        buffer.writeString("SRID=\(srid);")
        let digits: StaticString = "0123456789ABCDEF"
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wkb.count * 2) { out in
            digits.withUTF8Buffer { hex in
                var o = 0
                for b in wkb {
                    out[o] = hex[Int(b >> 4)]
                    out[o + 1] = hex[Int(b & 0x0F)]
                    o += 2
                }
            }
            return wkb.count * 2
        }
    }
}
