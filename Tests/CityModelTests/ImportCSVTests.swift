import Foundation
import GeoCore
import Testing
import TwinStore
@testable import CityModel

@Suite("Import: CSV", .temporaryDirectories)
struct ImportCSVTests {
    @Test("an X/Y CSV written by ogr2ogr types its text by the layer schema")
    func xyColumns() throws {
        var source = try CSVSource(file: ImportFixtures.url("hydrants.csv"))
        #expect(source.crs == nil)   // x/y say nothing of the CRS
        let (features, crs) = try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants"), sourceCRS: .cgcs2000)
        #expect(crs == .cgcs2000)
        let original = try ImportFixtures.original("hydrants.geojson")
        #expect(features.count == original.count)
        for (a, b) in zip(features, original) {
            #expect(a.properties == b.properties)          // outlet_mm "100" became the integer 100
            expectSameGeometry(a.geometry, b.geometry)
        }
    }

    @Test("a GBK CSV decodes its Chinese road names")
    func gbk() throws {
        var source = try CSVSource(file: ImportFixtures.url("hydrants_gbk.csv"), encoding: .gb18030)
        let (features, _) = try LayerImport.read(&source, for: try ImportFixtures.layer("hydrants"), sourceCRS: .cgcs2000)
        #expect(features.map { $0.properties["road"] } == (try ImportFixtures.original("hydrants.geojson")).map { $0.properties["road"] })
        #expect(features.first?.properties["road"] == "齐安大道")
    }

    @Test("the GBK CSV read as UTF-8 is refused with a hint")
    func wrongEncoding() throws {
        let error = try #require(throws: ImportError.self) { try CSVSource(file: ImportFixtures.url("hydrants_gbk.csv"), encoding: .utf8) }
        #expect(error.reason.contains("GBK"))
    }

    @Test("a WKT column carries polygons with holes")
    func wkt() throws {
        var source = try CSVSource(file: ImportFixtures.url("land_use_wkt.csv"))
        let (features, _) = try LayerImport.read(&source, for: try ImportFixtures.layer("land_use"), sourceCRS: .cgcs2000)
        let original = try ImportFixtures.original("land_use.geojson")
        #expect(features.count == 2)
        for (a, b) in zip(features, original) { expectSameGeometry(a.geometry, b.geometry) }
        #expect(features[0].properties["imperviousness_pct"] == .number(65.5))
    }

    @Test("a table for a layer without geometry (15-minute traffic counts) imports with no geometry columns, typed by the schema")
    func attributesOnly() async throws {
        let store = try await ImportFixtures.store(["traffic_counts"])
        var source = try CSVSource(file: ImportFixtures.url("traffic_counts.csv"), geometry: .attributesOnly)
        let summary = try await LayerImport.run(&source, into: try ImportFixtures.layer("traffic_counts"), store: store)
        #expect(summary.count == 4)
        let rows = try await store.query(layer: "traffic_counts", FeatureQuery(), by: .admin).features
        #expect(rows.allSatisfy { $0.geometry == nil })
        #expect(rows.contains { $0.properties["through"]?.doubleValue == 150 && $0.properties["detector"] == "video" })
        // Without being told the layer stores no geometry, a table without geometry columns is refused as before.
        #expect(throws: ImportError.self) { try CSVSource(file: ImportFixtures.url("traffic_counts.csv")) }
    }

    @Test("a bad number in row 7 names the file, the row and the field, and nothing is written")
    func badNumber() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        var source = try CSVSource(file: ImportFixtures.url("hydrants_bad_row7.csv"))
        #expect(source.crs == .cgcs2000)   // lon/lat columns are degrees
        let error = await #expect(throws: ImportError.self) {
            try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store)
        }
        #expect(error?.file == "hydrants_bad_row7.csv")
        #expect(error?.location == "row 7")
        #expect(error?.field == "outlet_mm")
        #expect(try await store.count(layer: "hydrants", FeatureQuery(), by: .admin) == 0)
    }

    @Test("RFC 4180: quoted commas, doubled quotes and line breaks inside quotes")
    func quoting() throws {
        var rows = CSVRows(text: "a,b\n\"x, y\",\"say \"\"hi\"\"\"\n\"two\nlines\",z\r\n")
        #expect(try rows.next() == ["a", "b"])
        #expect(try rows.next() == ["x, y", "say \"hi\""])
        #expect(try rows.next() == ["two\nlines", "z"])
        #expect(try rows.next() == nil)
        var open = CSVRows(text: "\"never closed\n")
        #expect(throws: CSVSyntaxFailure.self) { try open.next() }
    }
}
