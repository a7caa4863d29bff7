import CGDAL
import GeoCore

/// The CRS GDAL read from a file (a `.prj`, a GeoPackage `srs_id`, a GeoTIFF's keys), as the
/// authority and code CityTwin names CRSs by. A definition without one (an ESRI `.prj` spelling an
/// EPSG CRS in its own words) is matched against PROJ's database, accepting only a match PROJ
/// rates 90 % or better; anything else is `nil`, so the importer asks for `--source-crs`.
enum SpatialReference {
    static func crs(_ handle: OGRSpatialReferenceH?) -> CoordinateReferenceSystem? {
        guard let handle else { return nil }
        if let named = authority(handle) { return named }
        // A clone: identification may rewrite the definition in place.
        guard let copy = OSRClone(handle) else { return nil }
        defer { OSRDestroySpatialReference(copy) }
        if OSRAutoIdentifyEPSG(copy) == OGRERR_NONE, let named = authority(copy) { return named }
        var count: Int32 = 0
        var confidences: UnsafeMutablePointer<Int32>? = nil
        guard let matches = OSRFindMatches(handle, nil, &count, &confidences) else { return nil }
        defer {
            OSRFreeSRSArray(matches)
            VSIFree(confidences)
        }
        for i in 0..<Int(count) where (confidences?[i] ?? 0) >= 90 {
            if let match = matches[i], let named = authority(match) { return named }
        }
        return nil
    }

    /// The authority and code the definition itself carries at its root.
    private static func authority(_ handle: OGRSpatialReferenceH) -> CoordinateReferenceSystem? {
        guard let name = OSRGetAuthorityName(handle, nil), let code = OSRGetAuthorityCode(handle, nil) else { return nil }
        let authority = String(cString: name), value = String(cString: code)
        // OGC:CRS84 is how GeoJSON and GDAL spell WGS 84 longitude-first.
        if authority.uppercased() == "OGC", value.uppercased() == "CRS84" { return .crs84 }
        return CoordinateReferenceSystem(authority: authority, code: value)
    }

    /// The definition as WKT2, for a report or a sidecar (`nil` when GDAL cannot write it).
    static func wkt(_ handle: OGRSpatialReferenceH?) -> String? {
        guard let handle else { return nil }
        var text: UnsafeMutablePointer<CChar>? = nil
        return GDALLibrary.withStringList(["FORMAT=WKT2_2019"]) { options in
            guard OSRExportToWktEx(handle, &text, GDALLibrary.constant(options)) == OGRERR_NONE, let text else { return nil }
            defer { VSIFree(text) }
            return String(cString: text)
        }
    }
}
