import Foundation
import GeoCore

/// The CRS a Shapefile's `.prj` (ESRI or OGC WKT1) describes.
///
/// CityModel has no PROJ handle of its own, so the WKT is matched by what it says rather than
/// by `proj_identify`: an `AUTHORITY["EPSG", "…"]` on the outermost node wins; otherwise the
/// names GDAL and ArcGIS write for the CRSs of Chinese city data: CGCS2000 geographic, the
/// CGCS2000 3-degree Gauss-Krüger systems (with and without the zone prefix), WGS 84, Web
/// Mercator and WGS 84 / UTM.
enum ProjectionFile {
    /// The CRS of `wkt`, or `nil` when it is not one the matcher knows.
    static func crs(wkt: String) -> CoordinateReferenceSystem? {
        let text = wkt.trimmingCharacters(in: .whitespacesAndNewlines)
        if let code = outermostEPSG(text) { return CoordinateReferenceSystem(epsg: code) }
        guard let name = firstName(text) else { return nil }
        let n = name.uppercased().replacingOccurrences(of: " ", with: "_")
        let isProjected = text.uppercased().hasPrefix("PROJCS") || text.uppercased().hasPrefix("PROJCRS")
        if !isProjected {
            if n.contains("CGCS") || n.contains("CHINA_GEODETIC_COORDINATE_SYSTEM_2000") || n.contains("CGCS_2000") { return .cgcs2000 }
            if n.contains("WGS_1984") || n.contains("WGS_84") || n == "WGS84" { return .wgs84 }
            return nil
        }
        if n.contains("CGCS2000") || n.contains("CGCS_2000") || n.contains("CHINA_2000") {
            // "CGCS2000_3_Degree_GK_CM_114E" / "CGCS2000 / 3-degree Gauss-Kruger CM 114E"
            if let cm = number(after: "CM_", in: n) { return try? .cgcs2000GK3(centralMeridian: cm) }
            // "CGCS2000_3_Degree_GK_Zone_38" / "CGCS2000 / 3-degree Gauss-Kruger zone 38"
            if let zone = number(after: "ZONE_", in: n) { return try? .cgcs2000GK3Zone(zone) }
            return nil
        }
        if n.contains("WEB_MERCATOR") || n.contains("PSEUDO-MERCATOR") || n.contains("PSEUDO_MERCATOR") { return .webMercator }
        if n.contains("WGS_1984_UTM_ZONE_") || n.contains("WGS_84_/_UTM_ZONE_") {
            guard let zone = number(after: "ZONE_", in: n), (1...60).contains(zone) else { return nil }
            return CoordinateReferenceSystem(epsg: (n.hasSuffix("S") ? 32700 : 32600) + zone)
        }
        return nil
    }

    /// The quoted name of the outermost node: `PROJCS["name", …` → `name`.
    private static func firstName(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "\"") else { return nil }
        let rest = text[text.index(after: open)...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<close])
    }

    /// The EPSG code of the last top-level `AUTHORITY["EPSG","…"]` (or `ID["EPSG",…]`): the one
    /// that closes the outermost node, not the datum's or the ellipsoid's.
    private static func outermostEPSG(_ text: String) -> Int? {
        let chars = Array(text)
        var depth = 0
        var found: Int?
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "[" || c == "(" { depth += 1 } else if c == "]" || c == ")" { depth -= 1 }
            if depth == 1, c == ",", let code = authorityCode(chars, from: i + 1) { found = code }
            i += 1
        }
        return found
    }

    private static func authorityCode(_ chars: [Character], from start: Int) -> Int? {
        let tail = String(chars[start..<min(chars.count, start + 40)]).uppercased()
            .replacingOccurrences(of: " ", with: "")
        for head in ["AUTHORITY[\"EPSG\",\"", "ID[\"EPSG\","] where tail.hasPrefix(head) {
            let digits = tail.dropFirst(head.count).prefix { $0.isNumber }
            return Int(digits)
        }
        return nil
    }

    private static func number(after key: String, in text: String) -> Int? {
        guard let r = text.range(of: key, options: .backwards) else { return nil }
        return Int(text[r.upperBound...].prefix { $0.isNumber })
    }
}
