import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

@Suite("Import: Shapefile (through GDAL)")
struct ImportShapefileTests {
    @Test("a GBK shapefile (.cpg GBK) gives the Chinese attributes and the original points")
    func gbkPoints() throws {
        var source = try GDALSource(file: ImportFixtures.url("hydrants_gbk.shp"))
        #expect(try GDALSource.shapefileEncoding(ImportFixtures.url("hydrants_gbk.shp")) == .gb18030)
        #expect(source.crs == .wgs84)          // ogr2ogr wrote GCS_WGS_1984 for the CRS84 original
        #expect(source.expectedCount == 10)
        let (features, _) = try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants"))
        let original = try ImportFixtures.original("hydrants.geojson")
        #expect(features.count == 10)
        for (a, b) in zip(features, original) {
            #expect(a.properties == b.properties)      // N field with 0 decimals → integer outlet_mm
            expectSameGeometry(a.geometry, b.geometry)
        }
        let roads = features.compactMap { $0.properties["road"]?.stringValue }
        #expect(roads.contains("涨渡湖路"))
    }

    @Test("an EPSG:4547 shapefile is recognised from its .prj and transformed to EPSG:4490")
    func projected() throws {
        var source = try GDALSource(file: ImportFixtures.url("hydrants_4547.shp"))
        #expect(source.crs == CoordinateReferenceSystem(epsg: 4547))
        let (features, crs) = try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants"))
        #expect(crs == CoordinateReferenceSystem(epsg: 4547))
        for (a, b) in zip(features, try ImportFixtures.original("hydrants.geojson")) {
            // GDAL forward and PROJ inverse of the same Gauss-Krüger projection: sub-millimetre.
            expectSameGeometry(a.geometry, b.geometry, tolerance: 1e-8)
        }
    }

    @Test("polygon rings: the clockwise shell and counter-clockwise hole come back as an RFC 7946 polygon with its hole")
    func polygonHoles() throws {
        var source = try GDALSource(file: ImportFixtures.url("land_use.shp"))
        let records = try source.next(upTo: 100)
        let original = try ImportFixtures.original("land_use.geojson")
        #expect(records.count == 2)
        for (r, o) in zip(records, original) { expectSameGeometry(r.feature.geometry, o.geometry) }
        guard case .polygon(let p)? = records.first?.feature.geometry else { Issue.record("not a polygon"); return }
        #expect(p.interiors.count == 1)
        #expect(try source.next(upTo: 100).isEmpty)
    }

    @Test("a truncated .shp names the feature instead of crashing")
    func truncated() throws {
        try withTemporaryDirectory("shp") { dir in
            for ext in ["shx", "dbf", "cpg", "prj"] {
                try FileManager.default.copyItem(at: ImportFixtures.url("hydrants_gbk.\(ext)"), to: dir.appending("h.\(ext)"))
            }
            let shp = try Data(contentsOf: ImportFixtures.url("hydrants_gbk.shp"))
            try shp.prefix(100 + 28 * 3 + 10).write(to: dir.appending("h.shp"))
            var source = try GDALSource(file: dir.appending("h.shp"))
            let error = try #require(throws: ImportError.self) { _ = try source.next(upTo: 100) }
            #expect(error.location == "feature 4")
        }
    }

    @Test("without a .cpg: the .dbf's Chinese language driver means GBK; with none the text must be UTF-8, or the import names the field and asks for the encoding (never Latin-1 guesses)")
    func encodingWithoutCPG() throws {
        try withTemporaryDirectory("shp-cpg") { dir in
            for ext in ["shp", "shx", "dbf", "prj"] {
                try FileManager.default.copyItem(at: ImportFixtures.url("hydrants_gbk.\(ext)"), to: dir.appending("h.\(ext)"))
            }
            var dbf = try Data(contentsOf: dir.appending("h.dbf"))
            dbf[29] = 0x4D   // CP936
            try dbf.write(to: dir.appending("h.dbf"))
            var chinese = try GDALSource(file: dir.appending("h.shp"))
            let roads = try chinese.next(upTo: 100).compactMap { $0.feature.properties["road"]?.stringValue }
            #expect(roads.contains("涨渡湖路"))
            dbf[29] = 0
            try dbf.write(to: dir.appending("h.dbf"))
            var unknown = try GDALSource(file: dir.appending("h.shp"))
            let error = try #require(throws: ImportError.self) { _ = try unknown.next(upTo: 100) }
            #expect(error.field != nil && error.reason.contains("UTF-8"), "\(error)")
            var given = try GDALSource(file: dir.appending("h.shp"), encoding: .gb18030)
            #expect(try given.next(upTo: 100).count == 10)
        }
    }

    @Test("a .cpg naming an encoding CityTwin does not read is refused naming it")
    func unknownCPG() throws {
        try withTemporaryDirectory("shp-cpg-unknown") { dir in
            for ext in ["shp", "shx", "dbf", "prj"] {
                try FileManager.default.copyItem(at: ImportFixtures.url("hydrants_gbk.\(ext)"), to: dir.appending("h.\(ext)"))
            }
            try Data("KOI8-R".utf8).write(to: dir.appending("h.cpg"))
            let error = try #require(throws: ImportError.self) { try GDALSource(file: dir.appending("h.shp")) }
            #expect(error.reason.contains("KOI8-R"))
        }
    }

    @Test(".prj files as ogr2ogr and ArcGIS write them: CGCS2000 Gauss-Krüger by central meridian and by zone, and an authority code, are matched to EPSG")
    func projectionNames() throws {
        try withTemporaryDirectory("shp-prj") { dir in
            let cases: [(String, Int)] = [
                (#"PROJCS["CGCS2000_3_Degree_GK_CM_114E",GEOGCS["GCS_China_Geodetic_Coordinate_System_2000",DATUM["D_China_2000",SPHEROID["CGCS2000",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Gauss_Kruger"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",114.0],PARAMETER["Scale_Factor",1.0],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#, 4547),
                (#"PROJCS["CGCS2000_3_Degree_GK_Zone_38",GEOGCS["GCS_China_Geodetic_Coordinate_System_2000",DATUM["D_China_2000",SPHEROID["CGCS2000",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Gauss_Kruger"],PARAMETER["False_Easting",38500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",114.0],PARAMETER["Scale_Factor",1.0],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#, 4526),
                (#"GEOGCS["GCS_China_Geodetic_Coordinate_System_2000",DATUM["D_China_2000",SPHEROID["CGCS2000",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#, 4490),
            ]
            for (wkt, code) in cases {
                for ext in ["shp", "shx", "dbf", "cpg"] {
                    try? FileManager.default.removeItem(at: dir.appending("h.\(ext)"))
                    try FileManager.default.copyItem(at: ImportFixtures.url("hydrants_gbk.\(ext)"), to: dir.appending("h.\(ext)"))
                }
                try Data(wkt.utf8).write(to: dir.appending("h.prj"))
                #expect(try GDALSource(file: dir.appending("h.shp")).crs == CoordinateReferenceSystem(epsg: code), "\(wkt.prefix(40))")
            }
            try Data(#"LOCAL_CS["site grid"]"#.utf8).write(to: dir.appending("h.prj"))
            #expect(try GDALSource(file: dir.appending("h.shp")).crs == nil)
        }
    }
}
