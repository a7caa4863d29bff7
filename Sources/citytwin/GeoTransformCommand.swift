import ArgumentParser
import Foundation
import GeoCore

/// `citytwin geo transform --from CRS --to CRS`: GeoJSON or WKT lines in, the same kind out.
struct GeoTransformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "transform",
        abstract: "Transform GeoJSON or WKT (one geometry per line) on stdin between coordinate systems.",
        discussion: """
        CRS: EPSG:n, an OGC URI (http://www.opengis.net/def/crs/EPSG/0/4490, …/OGC/1.3/CRS84), GCJ02 or BD09.
        Coordinates are read and written in CityTwin's order: lon/lat or easting/northing.
        GCJ02 and BD09 are display outputs for Chinese web base maps only: never store them.
        """)

    @Option(help: "Source CRS (default: CGCS2000, EPSG:4490).") var from: String = "EPSG:4490"
    @Option(help: "Target CRS.") var to: String
    @Option(help: "Decimals to round output coordinates to (default: full precision).") var precision: Int?

    func run() throws {
        let transformer = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(parsing: from),
                                                           to: CoordinateReferenceSystem(parsing: to))
        let document = try GeoDocument.read(readStandardInput())
        let output = try document.mapGeometries { try transformer.transform($0) }
        FileHandle.standardOutput.write(output.write(precision: precision))
    }
}
