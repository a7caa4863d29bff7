import ArgumentParser
import GeoCore

struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version",
        abstract: "Print the versions of CityTwin and the C libraries it runs on.")
    func run() throws {
        print("CityTwin \(CityTwinVersion.current)")
        print("GEOS \(LibraryVersions.geos)")
    }
}
