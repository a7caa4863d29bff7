/// A coordinate reference system named by an authority and a code: `EPSG:4490` (CGCS2000),
/// `EPSG:4547` (CGCS2000 / 3-degree Gauss-Krüger CM 114°E), the special `OGC:CRS84`
/// (WGS 84 with longitude first), or one of the two China display frames `GCJ02` / `BD09`
/// (see `ChinaDisplayOffset`: display output only, never storage).
///
/// A value is just the name; what PROJ knows about it (name, axis order, area of use, units)
/// is looked up once per CRS and cached process-wide (`metadata`). Coordinates inside CityTwin
/// are always in the internal order (longitude/latitude, easting/northing); the authority's axis
/// order is applied only at API edges with `toAuthorityOrder(_:)` / `fromAuthorityOrder(_:)`.
///
/// ```swift
/// let storage = CoordinateReferenceSystem.cgcs2000                    // EPSG:4490
/// let metric = try CoordinateReferenceSystem.cgcs2000GK3(centralMeridian: 114)  // EPSG:4547
/// let requested = try CoordinateReferenceSystem(parsing: "http://www.opengis.net/def/crs/EPSG/0/3857")
/// ```
public struct CoordinateReferenceSystem: Hashable, Sendable {
    /// The authority, upper-cased: `"EPSG"`, `"OGC"` (for CRS84), another PROJ authority such as
    /// `"ESRI"`, or `"CITYTWIN"` for the China display frames.
    public let authority: String
    /// The code within the authority: `"4490"`, `"CRS84"`, `"GCJ02"`.
    public let code: String

    /// A CRS by authority and code, without checking that PROJ knows it (lookups throw later
    /// if it does not). Use `init(parsing:)` for text from users.
    public init(authority: String, code: String) {
        self.authority = authority.uppercased()
        if self.authority == "EPSG", let n = Int(code) {
            self.code = String(n)
        } else {
            self.code = code.uppercased()
        }
    }

    /// The EPSG CRS with this code, e.g. `CoordinateReferenceSystem(epsg: 4490)`.
    public init(epsg code: Int) {
        self.init(authority: "EPSG", code: String(code))
    }

    /// The EPSG code, or `nil` for CRS84, the display frames and other authorities.
    public var epsgCode: Int? {
        authority == "EPSG" ? Int(code) : nil
    }

    /// The China display frame (GCJ-02 or BD-09) this pseudo-CRS stands for, if it is one.
    public var chinaDisplayFrame: ChinaDisplayOffset.Frame? {
        authority == Self.displayAuthority ? ChinaDisplayOffset.Frame(rawValue: code) : nil
    }

    /// The identifier OGC API Features Part 2 uses (`crs`, `bbox-crs`, `Content-Crs`):
    /// `http://www.opengis.net/def/crs/EPSG/0/4490`, `http://www.opengis.net/def/crs/OGC/1.3/CRS84`.
    /// The display frames have no OGC URI; they get `urn:x-citytwin:crs:GCJ02` (and are not
    /// advertised as storage or request CRSs by default).
    public var uri: String {
        if self == .crs84 { return "http://www.opengis.net/def/crs/OGC/1.3/CRS84" }
        if authority == Self.displayAuthority { return "urn:x-citytwin:crs:\(code)" }
        return "http://www.opengis.net/def/crs/\(authority)/0/\(code)"
    }

    static let displayAuthority = "CITYTWIN"

    // MARK: - Well-known systems

    /// OGC CRS84: WGS 84 geographic with longitude first (the GeoJSON / OGC API default).
    public static let crs84 = CoordinateReferenceSystem(authority: "OGC", code: "CRS84")
    /// EPSG:4326, WGS 84 geographic (authority axis order latitude, longitude).
    public static let wgs84 = CoordinateReferenceSystem(epsg: 4326)
    /// EPSG:4490, CGCS2000 geographic 2D: CityTwin's storage CRS (authority order latitude, longitude).
    public static let cgcs2000 = CoordinateReferenceSystem(epsg: 4490)
    /// EPSG:4547, CGCS2000 / 3-degree Gauss-Krüger CM 114°E (easting, northing in metres): the
    /// working CRS of the district's metric work — buffers, lengths, areas, flood grids, road
    /// graphs and routing costs — and of the sample district's survey coordinates.
    public static let districtMetric = CoordinateReferenceSystem(epsg: 4547)
    /// EPSG:3857, Web Mercator (metres; display output only).
    public static let webMercator = CoordinateReferenceSystem(epsg: 3857)
    /// GCJ-02 display frame (AMap, Tencent): display output only, never storage.
    public static let gcj02 = CoordinateReferenceSystem(authority: displayAuthority, code: ChinaDisplayOffset.Frame.gcj02.rawValue)
    /// BD-09 display frame (Baidu): display output only, never storage.
    public static let bd09 = CoordinateReferenceSystem(authority: displayAuthority, code: ChinaDisplayOffset.Frame.bd09.rawValue)

    /// CGCS2000 / 3-degree Gauss-Krüger with the given central meridian and **no** zone prefix
    /// in the easting (false easting 500,000 m): EPSG:4534 (CM 75°E) … EPSG:4554 (CM 135°E).
    /// CM 114°E (Wuhan, Ezhou, Huangshi) is EPSG:4547, CityTwin's metric working CRS.
    /// - Parameter centralMeridian: degrees east, a multiple of 3 from 75 to 135.
    public static func cgcs2000GK3(centralMeridian: Int) throws -> CoordinateReferenceSystem {
        guard (75...135).contains(centralMeridian), centralMeridian % 3 == 0 else {
            throw GeometryError(.invalidArgument,
                "no CGCS2000 3-degree Gauss-Krüger CRS has central meridian \(centralMeridian)°E (expected a multiple of 3 from 75 to 135)")
        }
        return CoordinateReferenceSystem(epsg: 4534 + (centralMeridian - 75) / 3)
    }

    /// CGCS2000 / 3-degree Gauss-Krüger zone `zone` **with** the zone number prefixed to the
    /// easting (false easting zone × 10⁶ + 500,000 m): EPSG:4513 (zone 25) … EPSG:4533 (zone 45).
    /// Zone 38 (CM 114°E) is EPSG:4526.
    /// - Parameter zone: 25...45 (central meridian = 3 × zone degrees east).
    public static func cgcs2000GK3Zone(_ zone: Int) throws -> CoordinateReferenceSystem {
        guard (25...45).contains(zone) else {
            throw GeometryError(.invalidArgument,
                "no CGCS2000 3-degree Gauss-Krüger zone \(zone) (expected 25...45)")
        }
        return CoordinateReferenceSystem(epsg: 4513 + zone - 25)
    }
}

extension CoordinateReferenceSystem: CustomStringConvertible {
    /// `EPSG:4490`, `OGC:CRS84`, `GCJ02`, `BD09`: the short form the CLI and logs use.
    public var description: String {
        authority == Self.displayAuthority ? code : "\(authority):\(code)"
    }
}

// MARK: - Parsing

extension CoordinateReferenceSystem {
    /// Parses a CRS identifier as users and OGC clients write it, and checks that PROJ knows it.
    ///
    /// Accepted forms: `EPSG:4490`, `4490`, `urn:ogc:def:crs:EPSG::4490` (a version between the
    /// colons is allowed), `http(s)://www.opengis.net/def/crs/EPSG/0/4490`,
    /// `http://www.opengis.net/def/crs/OGC/1.3/CRS84`, `CRS84`, `OGC:CRS84`, `CRS:84`,
    /// `GCJ02`/`GCJ-02`, `BD09`/`BD-09`, and `AUTHORITY:CODE` for any other authority PROJ knows.
    /// - Throws: `GeometryError` `.crs`: "cannot parse CRS identifier …" for malformed text,
    ///   "unknown CRS EPSG:999999" when PROJ's database has no such CRS.
    public init(parsing identifier: String) throws {
        let crs = try Self.syntax(identifier)
        _ = try crs.metadata
        self = crs
    }

    private static func syntax(_ identifier: String) throws -> CoordinateReferenceSystem {
        let text = identifier.trimmingWhitespace
        let upper = text.uppercased()
        func bad() -> GeometryError {
            GeometryError(.crs, "cannot parse CRS identifier '\(identifier)': expected EPSG:<code>, an OGC URI or URN, CRS84, GCJ02 or BD09")
        }
        func make(_ authority: String, _ code: String) throws -> CoordinateReferenceSystem {
            let a = authority.uppercased(), c = code.uppercased()
            guard !a.isEmpty, !c.isEmpty,
                  a.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }),
                  c.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else { throw bad() }
            if a == "OGC" || a == "CRS" {
                guard c == "CRS84" || c == "84" else { throw bad() }
                return .crs84
            }
            if a == "EPSG" {
                guard c.allSatisfy(\.isASCIIDigit), let n = Int(c) else { throw bad() }
                return CoordinateReferenceSystem(epsg: n)
            }
            return CoordinateReferenceSystem(authority: a, code: c)
        }

        switch upper {
        case "CRS84": return .crs84
        case "GCJ02", "GCJ-02": return .gcj02
        case "BD09", "BD-09": return .bd09
        default: break
        }
        if !upper.isEmpty, upper.allSatisfy(\.isASCIIDigit) {
            return try make("EPSG", upper)
        }
        // OGC http URI: http://www.opengis.net/def/crs/{authority}/{version}/{code}
        for prefix in ["HTTP://WWW.OPENGIS.NET/DEF/CRS/", "HTTPS://WWW.OPENGIS.NET/DEF/CRS/"] where upper.hasPrefix(prefix) {
            let parts = upper.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3 else { throw bad() }
            return try make(String(parts[0]), String(parts[2]))
        }
        // OGC URN: urn:ogc:def:crs:{authority}:{version?}:{code}
        if upper.hasPrefix("URN:OGC:DEF:CRS:") {
            let parts = upper.dropFirst("URN:OGC:DEF:CRS:".count).split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 3 else { throw bad() }
            return try make(String(parts[0]), String(parts[2]))
        }
        if upper.hasPrefix("URN:X-CITYTWIN:CRS:") {
            let code = upper.dropFirst("URN:X-CITYTWIN:CRS:".count)
            guard let frame = ChinaDisplayOffset.Frame(rawValue: String(code)) else { throw bad() }
            return frame == .gcj02 ? .gcj02 : .bd09
        }
        let parts = upper.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw bad() }
        return try make(String(parts[0]), String(parts[1]))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
