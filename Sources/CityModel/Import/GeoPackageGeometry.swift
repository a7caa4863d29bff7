import Foundation
import GeoCore

/// The GeoPackage binary geometry (OGC 12-128r19 §2.1.3): a header, magic `GP`, version, flags
/// (byte order, envelope indicator, empty flag), `srs_id` and an optional envelope, followed by
/// ISO WKB.
enum GeoPackageGeometry {
    /// Why a blob is not a GeoPackage geometry.
    struct Failure: Error { var reason: String }

    /// The geometry of `blob`; `nil` for an empty geometry (flag bit 4).
    static func decode(_ blob: Data) throws(Failure) -> Geometry? {
        let r = BinaryRecord(bytes: blob)
        guard (try? r.uint8(0)) == 0x47, (try? r.uint8(1)) == 0x50 else {
            throw Failure(reason: "not a GeoPackage geometry (magic \"GP\" missing)")
        }
        guard let version = try? r.uint8(2), version == 0, let flags = try? r.uint8(3) else {
            throw Failure(reason: "unsupported GeoPackage geometry version")
        }
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
}
