import DataSources
import Foundation
import GeoCore
import Testing
import TestSupport

/// Vectors through GDAL: each file is made by `ogr2ogr` from a GeoJSON the test writes, and read
/// back through `VectorDataset`; GDAL's own `ogrinfo` is the reference where a value is GDAL's reading.
@Suite("Vector files through GDAL")
struct VectorDatasetTests {
    static let roads = """
        {"type": "FeatureCollection", "features": [
         {"type": "Feature", "properties": {"name": "解放大道", "lanes": 6, "width_m": 32.5, "opened": "1998-10-01"},
          "geometry": {"type": "LineString", "coordinates": [[114.30, 30.60], [114.31, 30.61], [114.32, 30.615]]}},
         {"type": "Feature", "properties": {"name": "沿江大道", "lanes": 4, "width_m": null, "opened": null},
          "geometry": {"type": "LineString", "coordinates": [[114.29, 30.58], [114.30, 30.60]]}},
         {"type": "Feature", "properties": {"name": "无几何", "lanes": 2, "width_m": 7.0, "opened": null}, "geometry": null}]}
        """

    @Test("a GeoPackage made by ogr2ogr reads back with its layer, fields, CRS and every value")
    func geoPackage() async throws {
        try await withTemporaryDirectory("gdal-gpkg") { dir in
            let source = try GDALTools.write(Self.roads, "roads.geojson", in: dir.url)
            try await GDALTools.run("ogr2ogr", ["-f", "GPKG", "city.gpkg", source.path, "-nln", "roads", "-a_srs", "EPSG:4490"], in: dir.url)
            let file = try VectorDataset(file: dir.appending("city.gpkg"))
            #expect(file.driver == "GPKG")
            #expect(file.layerNames == ["roads"])
            let roads = try file.layer(named: nil)
            #expect(roads.crs == CoordinateReferenceSystem(epsg: 4490))
            #expect(roads.featureCount == 3)
            #expect(roads.fields.map(\.name) == ["name", "lanes", "width_m", "opened"])
            #expect(roads.fields.map(\.type) == [.string, .integer, .real, .date])
            let features = try roads.next(upTo: 10)
            #expect(try roads.next(upTo: 10).isEmpty)
            #expect(features.count == 3)
            #expect(features[0].properties == ["name": "解放大道", "lanes": 6, "width_m": 32.5, "opened": "1998-10-01"])
            #expect(features[1].properties["width_m"] == .null)
            #expect(features[2].geometry == nil)
            let line = try #require(features[0].geometry)
            #expect(line == .lineString(LineString([Position(114.30, 30.60), Position(114.31, 30.61), Position(114.32, 30.615)])))
            roads.rewind()
            #expect(try roads.next(upTo: 2).count == 2)
        }
    }

    @Test("a Shapefile in GBK reads its Chinese names through its .cpg, and through the encoding given when it has none")
    func gbkShapefile() async throws {
        try await withTemporaryDirectory("gdal-gbk") { dir in
            let source = try GDALTools.write(Self.roads, "roads.geojson", in: dir.url)
            try await GDALTools.run("ogr2ogr", ["-f", "ESRI Shapefile", "-lco", "ENCODING=GBK", "roads.shp", source.path,
                                                "-s_srs", "EPSG:4490", "-t_srs", "EPSG:4547"], in: dir.url)
            let dbf = try Data(contentsOf: dir.appending("roads.dbf"))
            #expect(dbf.range(of: Data([189, 226, 183, 197, 180, 243, 181, 192])) != nil, "ogr2ogr wrote 解放大道 in GBK")
            func names(_ file: VectorDataset) throws -> [String] {
                try file.layer(named: nil).next(upTo: 10).compactMap { $0.properties["name"]?.stringValue }
            }
            #expect(try names(VectorDataset(file: dir.appending("roads.shp"))) == ["解放大道", "沿江大道", "无几何"])
            try FileManager.default.removeItem(at: dir.appending("roads.cpg"))
            #expect(try names(VectorDataset(file: dir.appending("roads.shp"), encoding: "GBK")) == ["解放大道", "沿江大道", "无几何"])
            // The .prj ogr2ogr writes is ESRI's WKT without an authority: matched to EPSG:4547.
            #expect(try VectorDataset(file: dir.appending("roads.shp")).layer(named: nil).crs == CoordinateReferenceSystem(epsg: 4547))
        }
    }

    @Test("coordinates ogr2ogr reprojected read back as ogr2ogr wrote them (to the last bit of the WKB)")
    func coordinatesAsWritten() async throws {
        try await withTemporaryDirectory("gdal-coords") { dir in
            let source = try GDALTools.write(Self.roads, "roads.geojson", in: dir.url)
            try await GDALTools.run("ogr2ogr", ["-f", "GPKG", "m.gpkg", source.path, "-s_srs", "EPSG:4490", "-t_srs", "EPSG:4547",
                                                "-nln", "roads"], in: dir.url)
            // ogrinfo's WKT at full precision is the reference for the projected vertices.
            let info = try await GDALTools.run("ogrinfo", ["-ro", "-q", "-wkt_format", "WKT2", "m.gpkg", "roads", "-where", "lanes = 6"], in: dir.url)
            let wkt = try #require(info.split(separator: "\n").first { $0.contains("LINESTRING") })
            let expected = try Geometry(wkt: String(wkt.drop { $0 == " " }))
            let read = try VectorDataset(file: dir.appending("m.gpkg")).layer(named: "roads").next(upTo: 1)
            let got = try #require(read.first?.geometry)
            guard case .lineString(let a) = got, case .lineString(let b) = expected else { Issue.record("not lines: \(got)"); return }
            #expect(a.positions.count == b.positions.count)
            for (p, q) in zip(a.positions, b.positions) {
                #expect(abs(p.x - q.x) < 1e-6 && abs(p.y - q.y) < 1e-6, "\(p) vs ogrinfo's \(q)")
            }
        }
    }

    @Test("an OpenStreetMap extract reads as GDAL's OSM layers with their tags")
    func openStreetMap() async throws {
        try await withTemporaryDirectory("gdal-osm") { dir in
            let osm = """
                <?xml version="1.0" encoding="UTF-8"?>
                <osm version="0.6" generator="citytwin-test">
                  <node id="1" lat="30.60" lon="114.30" version="1"/>
                  <node id="2" lat="30.61" lon="114.31" version="1"/>
                  <node id="3" lat="30.62" lon="114.33" version="1"><tag k="emergency" v="fire_hydrant"/></node>
                  <way id="10" version="1"><nd ref="1"/><nd ref="2"/><tag k="highway" v="primary"/><tag k="name" v="中山大道"/><tag k="oneway" v="yes"/></way>
                </osm>
                """
            _ = try GDALTools.write(osm, "extract.osm", in: dir.url)
            let file = try VectorDataset(file: dir.appending("extract.osm"))
            #expect(file.driver == "OSM")
            #expect(file.layerNames.contains("lines") && file.layerNames.contains("points"))
            let lines = try file.layer(named: "lines").next(upTo: 10)
            #expect(lines.count == 1)
            #expect(lines.first?.properties["highway"] == "primary")
            #expect(lines.first?.properties["name"] == "中山大道")
            #expect(lines.first?.properties["other_tags"]?.stringValue?.contains("\"oneway\"=>\"yes\"") == true)
            let points = try file.layer(named: "points").next(upTo: 10)
            #expect(points.count == 1)
            #expect(points.first?.geometry == .point(Point(Position(114.33, 30.62))))
        }
    }

    @Test("a missing file, a file no driver reads and an unknown layer are errors naming the file, never quoting it")
    func errors() throws {
        try withTemporaryDirectory("gdal-errors") { dir in
            #expect(throws: DataSourceError.self) { try VectorDataset(file: dir.appending("none.gpkg")) }
            let secret = dir.appending("notes.txt")
            try Data("root:x:0:0:secret line that must not appear\n".utf8).write(to: secret)
            do {
                _ = try VectorDataset(file: secret)
                Issue.record("a text file opened as vectors")
            } catch let error as DataSourceError {
                #expect(error.file == "notes.txt")
                #expect(!error.description.contains("secret"), "\(error)")
            }
            let json = try GDALTools.write(Self.roads, "roads.geojson", in: dir.url)
            #expect(throws: DataSourceError.self) { try VectorDataset(file: json).layer(named: "buildings") }
        }
    }
}
