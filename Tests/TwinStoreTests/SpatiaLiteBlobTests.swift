import Foundation
import GeoCore
import GRDB
import Testing
@testable import TwinStore

/// The bulk insert writes SpatiaLite's geometry BLOB itself: it must be byte for byte the BLOB
/// SpatiaLite's own `ST_GeomFromWKB(wkb, 4490)` makes, for every geometry type, 2D and 3D.
@Suite("SpatiaLite geometry BLOBs written from WKB equal SpatiaLite's own")
struct SpatiaLiteBlobTests {
    static let shapes = [
        "POINT (114.3 30.5)",
        "LINESTRING (114.3 30.5, 114.31 30.52, 114.35 30.49)",
        // The hole lies partly outside the shell: SpatiaLite's MBR covers the shell only.
        "POLYGON ((114.3 30.5, 114.4 30.5, 114.4 30.6, 114.3 30.6, 114.3 30.5), (114.35 30.55, 114.45 30.55, 114.45 30.56, 114.35 30.55))",
        "MULTIPOINT ((114.3 30.5), (114.2 30.7))",
        "MULTILINESTRING ((114.3 30.5, 114.31 30.52), (114.1 30.1, 114.2 30.2))",
        "MULTIPOLYGON (((114.3 30.5, 114.4 30.5, 114.4 30.6, 114.3 30.5)), ((113.9 29.9, 114.0 29.9, 114.0 30.0, 113.9 29.9)))",
        "GEOMETRYCOLLECTION (POINT (114.3 30.5), LINESTRING (114.0 30.0, 114.1 30.2))",
        "POINT Z (114.3 30.5 12.5)",
        "MULTIPOLYGON Z (((114.3 30.5 0, 114.4 30.5 1, 114.4 30.6 2, 114.3 30.5 0)))",
        "LINESTRING Z (114.3 30.5 -3, 114.31 30.52 4)",
    ]

    @Test(arguments: shapes)
    func theBlobIsSpatiaLites(wkt: String) throws {
        let wkb = try Geometry(wkt: wkt).wkb()
        let ours = try #require(SpatiaLiteBlob.make(wkb: wkb, srid: 4490))
        var config = Configuration()
        config.prepareDatabase { db in try SpatiaLiteConnection.prepare(db) }
        let db = try DatabaseQueue(configuration: config)
        let theirs = try db.read { db in
            try Data.fetchOne(db, sql: "SELECT ST_GeomFromWKB(?, 4490)", arguments: [Data(wkb)])
        }
        #expect(theirs.map { [UInt8]($0) } == ours)
    }

    @Test
    func wkbItCannotReadIsLeftToSpatiaLite() throws {
        let wkb = try Geometry(wkt: "POLYGON ((114.3 30.5, 114.4 30.5, 114.4 30.6, 114.3 30.5))").wkb()
        #expect(SpatiaLiteBlob.make(wkb: [], srid: 4490) == nil)
        #expect(SpatiaLiteBlob.make(wkb: Array(wkb.dropLast(8)), srid: 4490) == nil)
        #expect(SpatiaLiteBlob.make(wkb: wkb + [0], srid: 4490) == nil)
        #expect(SpatiaLiteBlob.make(wkb: try Geometry(wkt: "POINT (1 2)").wkb(byteOrder: .bigEndian), srid: 4490) == nil)
    }
}
