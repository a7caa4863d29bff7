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

    /// An integer column, in decimal.
    mutating func integer(_ value: Int64?) {
        guard let value else { return null() }
        separate()
        // Digits straight into the buffer (a String of 16 digits would be a heap allocation).
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { out in
            var i = out.count
            repeat {
                i -= 1
                out[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { i -= 1; out[i] = UInt8(ascii: "-") }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: out[i...]))
        }
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

/// One bulk insert chunk as COPY text, encoded on the preparing thread (`PreparedChunks`):
/// the new versions for the layer table and the journal rows for `audit_log` (audit entry and
/// change event, `JournalSQL`), each in messages of about `messageBytes`. An insert chunk's
/// plan is one version and one insert change per feature in order, so these are the rows
/// `WriteBatch.plan` and `auditRows` give for it.
struct BulkCopyRows: Sendable {
    var versions: [ByteBuffer]
    var journal: [ByteBuffer]
    /// The index of the first feature whose id an earlier one of the chunk has, if any.
    var firstRepeat: Int?

    /// Bytes per COPY data message: small enough that the server's work on the last one, while
    /// the client waits for the end of the COPY, is short.
    static let messageBytes = 256 << 10

    /// The layer table's columns in the order of `versions`.
    static func versionColumns(_ layer: LayerDefinition) -> [String] {
        ["fid", "props"] + (layer.hasGeometry ? ["geom"] : []) + ["valid_from", "valid_to", "author", "department", "hash"]
    }

    init(_ features: [PreparedFeature], entryHashes: [String], of batch: WriteBatch) {
        var seen = Set<String>(minimumCapacity: features.count)
        firstRepeat = features.firstIndex { !seen.insert($0.id).inserted }
        let geometry = batch.layer.hasGeometry
        let time = batch.time, actor = batch.actor, department = batch.department, role = batch.role, layer = batch.layer.id
        versions = Self.messages(features) { out, f in
            out.text(f.id)
            out.text(f.propertiesText)
            if geometry { out.geometry(wkb: f.wkb, srid: LayerDefinition.storageSRID) }
            out.integer(time)
            out.null()
            out.text(actor)
            out.text(department)
            out.text(f.hash)
        }
        journal = Self.messages(zip(features, entryHashes)) { out, row in
            let (f, entryHash) = row
            let change = WritePlan.Change(featureID: f.id, kind: .insert, before: nil, after: f)
            out.integer(time)
            out.text(actor)
            out.text(department)
            out.text(role)
            out.text(layer)
            out.text(f.id)
            out.text(change.kind.rawValue)
            out.null()
            out.text(f.hash)
            out.text(entryHash)
            for v in JournalSQL.boxValues(change) { out.double(v) }
        }
    }

    /// `rows` written by `row`, one row after another, cut into messages of about `messageBytes`.
    private static func messages<Rows: Sequence>(_ rows: Rows, _ row: (inout CopyRows, Rows.Element) -> Void) -> [ByteBuffer] {
        var messages = [ByteBuffer]()
        var out = CopyRows(capacity: messageBytes + (messageBytes >> 2))
        for r in rows {
            row(&out, r)
            out.endRow()
            if out.buffer.readableBytes >= messageBytes {
                messages.append(out.buffer)
                out = CopyRows(capacity: messageBytes + (messageBytes >> 2))
            }
        }
        if out.buffer.readableBytes > 0 { messages.append(out.buffer) }
        return messages
    }
}
