import Foundation

/// The GeoPackage binary geometry (OGC 12-128r19 §2.1.3): a header, magic `GP`, version, flags
/// (byte order, envelope indicator, empty flag), `srs_id` and an optional envelope, followed by
/// ISO WKB. The one encoder (GeoPackage export) and decoder (GeoPackage import).
public enum GeoPackageGeometry {
    /// Why a blob is not a GeoPackage geometry.
    public struct Failure: Error, Sendable { public var reason: String }

    /// The geometry of `blob`; `nil` for an empty geometry (flag bit 4).
    public static func decode(_ blob: Data) throws(Failure) -> Geometry? {
        let bytes = [UInt8](blob)
        guard bytes.count >= 2, bytes[0] == 0x47, bytes[1] == 0x50 else {
            throw Failure(reason: "not a GeoPackage geometry (magic \"GP\" missing)")
        }
        guard bytes.count >= 4, bytes[2] == 0 else {
            throw Failure(reason: "unsupported GeoPackage geometry version")
        }
        let flags = bytes[3]
        if flags & 0x20 != 0 { throw Failure(reason: "extended GeoPackage geometry types are not supported") }
        let envelopeBytes: Int
        switch (flags >> 1) & 0x07 {
        case 0: envelopeBytes = 0
        case 1: envelopeBytes = 32
        case 2, 3: envelopeBytes = 48
        case 4: envelopeBytes = 64
        default: throw Failure(reason: "invalid envelope indicator \((flags >> 1) & 0x07)")
        }
        if flags & 0x10 != 0 { return nil }
        let start = 8 + envelopeBytes
        guard blob.count > start else { throw Failure(reason: "the geometry ends inside its header") }
        do {
            return try Geometry(wkb: blob[(blob.startIndex + start)...])
        } catch let e as GeometryError {
            throw Failure(reason: "bad WKB: \(e.message)")
        } catch {
            throw Failure(reason: "bad WKB: \(error)")
        }
    }

    /// The blob of `g`: `GP`, version 0, flags (little-endian; xy envelope except for points;
    /// the empty flag for an empty geometry), the SRS id, the envelope, ISO WKB.
    public static func encode(_ g: Geometry, srsID: Int32) -> [UInt8] {
        let envelope = g.type == .point ? nil : g.envelope
        var flags: UInt8 = 0x01  // little-endian
        if envelope != nil { flags |= 0x02 }  // envelope [minx, maxx, miny, maxy]
        if g.isEmpty { flags |= 0x10 }
        var out: [UInt8] = [0x47, 0x50, 0x00, flags]
        withUnsafeBytes(of: srsID.littleEndian) { out += $0 }
        if let e = envelope {
            for v in [e.minX, e.maxX, e.minY, e.maxY] { withUnsafeBytes(of: v.bitPattern.littleEndian) { out += $0 } }
        }
        out += g.wkb(byteOrder: .littleEndian)
        return out
    }
}
