import Foundation
import GeoCore
import Testing
import TestSupport
import TwinStore

/// `citytwin raster import` reads a city's own terrain (issue 52 §5): a GeoTIFF in another CRS is
/// reprojected to the flood engine's metric CRS as `gdalwarp` does it with the same settings, nodata
/// kept; a grid that names no CRS is taken as --source-crs says; a file GDAL cannot read is refused
/// naming it, never quoting it.
@Suite("Raster import through GDAL", .temporaryDirectories)
struct RasterImportCommandTests {
    static let grid = SampleGrids.wuhanDegrees

    static func gdal(_ program: String, _ arguments: [String], in directory: TemporaryDirectory) async throws {
        let run = try await CommandProcess.run("/usr/bin/\(program)", arguments, directory: directory.url.path, within: 120)
        try #require(run.exitStatus == 0, "\(program): \(run.output)")
    }

    static func citytwin(_ arguments: [String], in directory: TemporaryDirectory) async throws -> CommandProcess {
        try await CommandProcess.run(try OutageHarness.binary(), arguments, directory: directory.url.path, within: 120)
    }

    static func stored(_ id: String, in store: String) async throws -> (ManagedRaster, Grid) {
        let opened = try SpatiaLiteStore(path: store)
        let raster = try #require(try await opened.managedRaster(id))
        let data = try #require(try await opened.managedRasterData(id))
        return (raster, try Grid(esriASCIIData: data))
    }

    @Test("a GeoTIFF in EPSG:4490 is stored in EPSG:4547, cell for cell as gdalwarp makes it with the same settings, nodata kept")
    func geoTIFFReprojected() async throws {
        let dir = try TemporaryDirectory.forTestCase("raster-import-tif")
        try Data(Self.grid.utf8).write(to: dir.appending("dem.asc"))
        try await Self.gdal("gdal_translate", ["-of", "GTiff", "-a_srs", "EPSG:4490", "-ot", "Float32", "dem.asc", "dem.tif"], in: dir)
        try await Self.gdal("gdalwarp", ["-t_srs", "EPSG:4547", "-r", "bilinear", "-tr", "20", "20", "-tap", "-dstnodata", "-9999",
                                         "-ot", "Float32", "dem.tif", "warped.tif"], in: dir)
        try await Self.gdal("gdal_translate", ["-of", "AAIGrid", "-co", "DECIMAL_PRECISION=6", "warped.tif", "warped.asc"], in: dir)
        let store = dir.appending("city.sqlite").path
        _ = try SpatiaLiteStore(path: store)
        let done = try await Self.citytwin(["raster", "import", "dem.tif", "--id", "terrain", "--cell-size", "20", "--store", store], in: dir)
        #expect(done.exitStatus == 0, "\(done.output)")
        #expect(done.output.contains("reprojected from EPSG:4490"), "\(done.output)")
        let (raster, grid) = try await Self.stored("terrain", in: store)
        #expect(raster.crs == "EPSG:4547")
        let reference = try Grid(esriASCIIData: try Data(contentsOf: dir.appending("warped.asc")))
        #expect(grid.width == reference.width && grid.height == reference.height)
        #expect(abs(grid.geoTransform.originX - reference.geoTransform.originX) < 1e-6)
        #expect(abs(grid.geoTransform.originY - reference.geoTransform.originY) < 1e-6)
        #expect(grid.noData == -9999)
        for (a, b) in zip(grid.values, reference.values) {
            #expect(abs(a - b) < 1e-4, "cell \(a) vs gdalwarp's \(b)")
        }
        #expect(grid.values.contains(-9999) && grid.values.contains { $0 > 19 && $0 < 24 })
    }

    @Test("a grid that names no CRS is stored as it is in --crs, or reprojected from --source-crs; bad files and options are refused naming them")
    func sourceCRSAndErrors() async throws {
        let dir = try TemporaryDirectory.forTestCase("raster-import-asc")
        try Data(Self.grid.utf8).write(to: dir.appending("degrees.asc"))
        let store = dir.appending("city.sqlite").path
        _ = try SpatiaLiteStore(path: store)
        let from = try await Self.citytwin(["raster", "import", "degrees.asc", "--id", "terrain", "--source-crs", "EPSG:4490",
                                            "--cell-size", "25", "--store", store], in: dir)
        #expect(from.exitStatus == 0, "\(from.output)")
        let (_, grid) = try await Self.stored("terrain", in: store)
        #expect(grid.geoTransform.pixelWidth == 25 && grid.geoTransform.originX > 100_000, "metres in Gauss–Krüger: \(grid.geoTransform)")

        let metric = """
            ncols 3
            nrows 2
            xllcorner 577000
            yllcorner 3365000
            cellsize 10
            NODATA_value -9999
            1 2 3
            4 5 6
            """
        try Data(metric.utf8).write(to: dir.appending("metric.asc"))
        let asIs = try await Self.citytwin(["raster", "import", "metric.asc", "--id", "site", "--store", store], in: dir)
        #expect(asIs.exitStatus == 0 && asIs.output.contains("names no CRS"), "\(asIs.output)")
        let (_, kept) = try await Self.stored("site", in: store)
        #expect(kept.values == [1, 2, 3, 4, 5, 6])

        try Data("root:x:0:0:a secret line\n".utf8).write(to: dir.appending("notes.tif"))
        let bad = try await Self.citytwin(["raster", "import", "notes.tif", "--id", "other", "--store", store], in: dir)
        #expect(bad.exitStatus != 0 && bad.output.contains("notes.tif") && !bad.output.contains("secret"), "\(bad.output)")
        let size = try await Self.citytwin(["raster", "import", "metric.asc", "--id", "other", "--cell-size", "0", "--store", store], in: dir)
        #expect(size.exitStatus != 0 && size.output.contains("--cell-size"), "\(size.output)")
    }

    @Test("a DEM in Finland's national CRS (EPSG:3067) into a store without a city is stored in Helsinki's UTM zone, EPSG:32635, as gdalwarp makes it, and the zone is recorded as the city's")
    func cityZoneFromTheRaster() async throws {
        let dir = try TemporaryDirectory.forTestCase("raster-import-helsinki")
        // 4 x 3 cells of 50 m around Helsinki's centre in ETRS-TM35FIN.
        let grid = """
            ncols 4
            nrows 3
            xllcorner 385000
            yllcorner 6671000
            cellsize 50
            NODATA_value -9999
            12 14 16 18
            10 11 -9999 15
            8 9 10 12
            """
        try Data(grid.utf8).write(to: dir.appending("dem.asc"))
        try await Self.gdal("gdal_translate", ["-of", "GTiff", "-a_srs", "EPSG:3067", "-ot", "Float32", "dem.asc", "dem.tif"], in: dir)
        try await Self.gdal("gdalwarp", ["-t_srs", "EPSG:32635", "-r", "bilinear", "-tr", "50", "50", "-tap", "-dstnodata", "-9999",
                                         "-ot", "Float32", "dem.tif", "warped.tif"], in: dir)
        try await Self.gdal("gdal_translate", ["-of", "AAIGrid", "-co", "DECIMAL_PRECISION=6", "warped.tif", "warped.asc"], in: dir)
        let store = dir.appending("city.sqlite").path
        _ = try SpatiaLiteStore(path: store)
        let done = try await Self.citytwin(["raster", "import", "dem.tif", "--cell-size", "50", "--store", store], in: dir)
        #expect(done.exitStatus == 0 && done.output.contains("Recorded the city's metric CRS: EPSG:32635"), "\(done.output)")
        let (raster, stored) = try await Self.stored("dem", in: store)
        #expect(raster.crs == "EPSG:32635")
        let reference = try Grid(esriASCIIData: try Data(contentsOf: dir.appending("warped.asc")))
        #expect(stored.width == reference.width && stored.height == reference.height)
        #expect(abs(stored.geoTransform.originX - reference.geoTransform.originX) < 1e-6)
        for (a, b) in zip(stored.values, reference.values) { #expect(abs(a - b) < 1e-4, "cell \(a) vs gdalwarp's \(b)") }
        let record = try #require(try await SpatiaLiteStore(path: store).cityRecord())
        #expect(record.metricCRS == "EPSG:32635")

        // The next DEM of the city goes to the recorded zone too, and a second import records nothing.
        let again = try await Self.citytwin(["raster", "import", "dem.tif", "--id", "dem2", "--cell-size", "50", "--store", store], in: dir)
        #expect(again.exitStatus == 0 && !again.output.contains("Recorded"), "\(again.output)")
        #expect(try await Self.stored("dem2", in: store).0.crs == "EPSG:32635")
    }
}
