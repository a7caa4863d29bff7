import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

@Suite("Import: Shapefile")
struct ImportShapefileTests {
    @Test("a GBK shapefile (.cpg GBK) gives the Chinese attributes and the original points")
    func gbkPoints() throws {
        var source = try ShapefileSource(file: ImportFixtures.url("hydrants_gbk.shp"))
        #expect(source.encoding == .gb18030)
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
        var source = try ShapefileSource(file: ImportFixtures.url("hydrants_4547.shp"))
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
        var source = try ShapefileSource(file: ImportFixtures.url("land_use.shp"))
        let records = try source.next(upTo: 100)
        let original = try ImportFixtures.original("land_use.geojson")
        #expect(records.count == 2)
        for (r, o) in zip(records, original) { expectSameGeometry(r.feature.geometry, o.geometry) }
        guard case .polygon(let p)? = records.first?.feature.geometry else { Issue.record("not a polygon"); return }
        #expect(p.interiors.count == 1)
        #expect(try source.next(upTo: 100).isEmpty)
    }

    @Test("ring grouping starts with the empty ring list")
    func emptyRings() {
        #expect(ShapeGeometry.polygon(rings: []) == .multiPolygon(MultiPolygon([])))
    }

    @Test("a truncated .shp names the feature instead of crashing")
    func truncated() throws {
        try withTemporaryDirectory("shp") { dir in
            for ext in ["dbf", "cpg", "prj"] {
                try FileManager.default.copyItem(at: ImportFixtures.url("hydrants_gbk.\(ext)"), to: dir.appending("h.\(ext)"))
            }
            let shp = try Data(contentsOf: ImportFixtures.url("hydrants_gbk.shp"))
            try shp.prefix(100 + 28 * 3 + 10).write(to: dir.appending("h.shp"))
            var source = try ShapefileSource(file: dir.appending("h.shp"))
            let error = try #require(throws: ImportError.self) { _ = try source.next(upTo: 100) }
            #expect(error.location == "feature 4")
        }
    }

    @Test(".prj names: CGCS2000 geographic, Gauss-Krüger by central meridian and by zone, authority codes")
    func projectionNames() {
        #expect(ProjectionFile.crs(wkt: #"GEOGCS["GCS_China_Geodetic_Coordinate_System_2000",DATUM["D_China_2000"]]"#) == .cgcs2000)
        #expect(ProjectionFile.crs(wkt: #"PROJCS["CGCS2000_3_Degree_GK_CM_114E",GEOGCS["x"]]"#) == CoordinateReferenceSystem(epsg: 4547))
        #expect(ProjectionFile.crs(wkt: #"PROJCS["CGCS2000_3_Degree_GK_Zone_38",GEOGCS["x"]]"#) == CoordinateReferenceSystem(epsg: 4526))
        #expect(ProjectionFile.crs(wkt: #"PROJCS["whatever",GEOGCS["x",AUTHORITY["EPSG","4490"]],AUTHORITY["EPSG","4549"]]"#) == CoordinateReferenceSystem(epsg: 4549))
        #expect(ProjectionFile.crs(wkt: #"LOCAL_CS["site grid"]"#) == nil)
    }
}
