import ArgumentParser
import CSpatiaLite
import GeoCore

/// `citytwin version`: CityTwin and the versions of the C libraries it runs on, as they report
/// themselves at run time (what is linked, not what was compiled against).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version",
        abstract: "Print the versions of CityTwin, GEOS, PROJ, SpatiaLite and SQLite.")

    func run() throws {
        print("CityTwin \(CityTwinVersion.current)")
        print("GEOS \(LibraryVersions.geos)")
        print("PROJ \(LibraryVersions.proj)")
        print("SpatiaLite \(String(cString: spatialite_version()))")
        print("SQLite \(String(cString: sqlite3_libversion()))")
    }
}
