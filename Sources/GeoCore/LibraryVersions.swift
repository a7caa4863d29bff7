import CGEOS
import CPROJ

/// CityTwin's own version.
public enum CityTwinVersion {
    public static let current = "0.1.0"
}

/// Versions of the C libraries GeoCore is linked against, as they report them at run time.
public enum LibraryVersions {
    public static var geos: String { String(cString: GEOSversion()) }
    public static var proj: String { String(cString: proj_info().version) }
}
