import Foundation
import GeoCore

/// SpatiaLite's internal geometry BLOB (the format of a geometry column, "BLOB-Geometry" in
/// SpatiaLite's documentation) written straight from ISO WKB, the bytes `ST_GeomFromWKB(wkb, srid)`
/// stores: START 0x00, little-endian mark 0x01, SRID (int32), the MBR (min x, min y, max x,
/// max y as doubles), 0x7C, the class type (the WKB type code), the WKB body with every nested
/// geometry's byte-order mark replaced by the ENTITY mark 0x69, and END 0xFE.
///
/// The MBR is computed as SpatiaLite computes it: over points, line vertices and polygon
/// EXTERIOR rings only (interior rings never widen it).
enum SpatiaLiteBlob {
    /// The BLOB of little-endian ISO `wkb` in `srid`; `nil` for anything else (big-endian, a
    /// type code outside 1…7 with 0/1000/2000/3000 dimension offsets, truncated input), so the
    /// caller can fall back to SpatiaLite's own conversion.
    static func make(wkb: [UInt8], srid: Int32) -> [UInt8]? {
        wkb.withUnsafeBytes { raw -> [UInt8]? in
            var reader = Reader(raw: raw)
            var body = [UInt8]()
            body.reserveCapacity(wkb.count + 44)
            var mbr = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
            guard reader.geometry(into: &body, mbr: &mbr, nested: false), reader.offset == raw.count else { return nil }
            var out = [UInt8]()
            out.reserveCapacity(body.count + 40)
            out.append(0x00)
            out.append(0x01)
            Self.append(UInt32(bitPattern: srid), to: &out)
            // An empty geometry has no MBR; SpatiaLite stores zeros then, which the store never writes.
            guard mbr.minX <= mbr.maxX, mbr.minY <= mbr.maxY else { return nil }
            for v in [mbr.minX, mbr.minY, mbr.maxX, mbr.maxY] { Self.append(v.bitPattern, to: &out) }
            out.append(0x7C)
            out.append(contentsOf: body)
            out.append(0xFE)
            return out
        }
    }

    /// The MBR stored in a BLOB `make` wrote (EPSG:4490 degrees), `nil` for anything shorter
    /// than its header.
    static func mbr(of blob: [UInt8]) -> Envelope? {
        guard blob.count >= 39, blob[0] == 0x00, blob[1] == 0x01, blob[38] == 0x7C else { return nil }
        return blob.withUnsafeBytes { raw in
            func double(_ at: Int) -> Double { Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))) }
            return Envelope(minX: double(6), minY: double(14), maxX: double(22), maxY: double(30))
        }
    }

    /// Whether a BLOB `make` wrote fits a geometry column declared as `declaredType` (the
    /// `geometry_columns.geometry_type` code) as SpatiaLite's `GeometryConstraints` decides it:
    /// the same dimensions (XY, XYZ, XYM, XYZM) and the same class, any class for a GEOMETRY column.
    static func satisfies(_ blob: [UInt8], declaredType: UInt32) -> Bool {
        guard blob.count >= 43 else { return false }
        let c = blob.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 39, as: UInt32.self)) }
        return c / 1000 == declaredType / 1000 && (declaredType % 1000 == 0 || c % 1000 == declaredType % 1000)
    }

    private static func append(_ v: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func append(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    /// A cursor over little-endian ISO WKB that copies what it reads into the BLOB body.
    private struct Reader {
        let raw: UnsafeRawBufferPointer
        var offset = 0

        mutating func uint32() -> UInt32? {
            guard offset + 4 <= raw.count else { return nil }
            defer { offset += 4 }
            return UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }

        /// One geometry: its byte-order mark (`0x69` in the BLOB when nested; the top level's
        /// is the header's), type code and body.
        mutating func geometry(into body: inout [UInt8], mbr: inout (minX: Double, minY: Double, maxX: Double, maxY: Double),
                               nested: Bool) -> Bool {
            guard offset < raw.count, raw[offset] == 0x01 else { return false }
            offset += 1
            if nested { body.append(0x69) }
            guard let type = uint32() else { return false }
            let base = type % 1000, dimension = type / 1000
            guard (1...7).contains(base), dimension <= 3 else { return false }
            SpatiaLiteBlob.append(type, to: &body)
            let width = 2 + (dimension == 1 || dimension == 2 ? 1 : 0) + (dimension == 3 ? 2 : 0)
            func points(_ n: Int, widen: Bool) -> Bool {
                let bytes = n * width * 8
                guard n >= 0, offset + bytes <= raw.count else { return false }
                if widen {
                    for i in 0..<n {
                        let at = offset + i * width * 8
                        let x = raw.loadUnaligned(fromByteOffset: at, as: Double.self)
                        let y = raw.loadUnaligned(fromByteOffset: at + 8, as: Double.self)
                        mbr.minX = Swift.min(mbr.minX, x); mbr.maxX = Swift.max(mbr.maxX, x)
                        mbr.minY = Swift.min(mbr.minY, y); mbr.maxY = Swift.max(mbr.maxY, y)
                    }
                }
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + bytes]))
                offset += bytes
                return true
            }
            func count() -> Int? {
                guard let n = uint32(), n <= UInt32(Int32.max) else { return nil }
                SpatiaLiteBlob.append(n, to: &body)
                return Int(n)
            }
            switch base {
            case 1:
                return points(1, widen: true)
            case 2:
                guard let n = count() else { return false }
                return points(n, widen: true)
            case 3:
                guard let rings = count() else { return false }
                for r in 0..<rings {
                    guard let n = count(), points(n, widen: r == 0) else { return false }
                }
                return true
            default:
                guard let parts = count() else { return false }
                for _ in 0..<parts {
                    guard geometry(into: &body, mbr: &mbr, nested: true) else { return false }
                }
                return true
            }
        }
    }
}
