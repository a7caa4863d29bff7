import DataSources
import Foundation
import GeoCore
import Testing
import TestSupport

/// Rasters through GDAL: a GeoTIFF made by `gdal_translate` from an ASCII grid the test writes, read
/// back cell for cell; reprojection compared with `gdalwarp` run with the same settings.
@Suite("Raster files through GDAL")
struct RasterDatasetTests {
    static let grid = SampleGrids.wuhanDegrees

    @Test("a GeoTIFF reads with its size, geotransform, CRS, nodata and every cell")
    func geoTIFF() async throws {
        try await withTemporaryDirectory("gdal-tif") { dir in
            let asc = try GDALTools.write(Self.grid, "dem.asc", in: dir.url)
            try await GDALTools.run("gdal_translate", ["-of", "GTiff", "-a_srs", "EPSG:4490", "-ot", "Float32", asc.path, "dem.tif"], in: dir.url)
            let dem = try RasterDataset(file: dir.appending("dem.tif"))
            #expect(dem.driver == "GTiff")
            #expect(dem.width == 6 && dem.height == 5 && dem.bandCount == 1)
            #expect(dem.crs == CoordinateReferenceSystem(epsg: 4490))
            #expect(dem.noData() == -9999)
            let transform = try #require(dem.geoTransform)
            #expect(abs(transform.originX - 114.30) < 1e-12 && abs(transform.originY - 30.605) < 1e-12)
            #expect(abs(transform.pixelWidth - 0.001) < 1e-15 && abs(transform.pixelHeight + 0.001) < 1e-15)
            let grid = try dem.grid()
            #expect(grid.values[0] == 21.0 && grid.values[5] == 23.5 && grid.values[29] == 21.5)
            #expect(grid.values[14] == -9999 && grid.noData == -9999)
            #expect(throws: DataSourceError.self) { try dem.grid(band: 2) }
        }
    }

    @Test("reprojected to the district's metric CRS, every cell equals gdalwarp's with the same settings, nodata kept")
    func reprojectedAsGDALWarp() async throws {
        try await withTemporaryDirectory("gdal-warp") { dir in
            let asc = try GDALTools.write(Self.grid, "dem.asc", in: dir.url)
            try await GDALTools.run("gdal_translate", ["-of", "GTiff", "-a_srs", "EPSG:4490", "-ot", "Float32", asc.path, "dem.tif"], in: dir.url)
            try await GDALTools.run("gdalwarp", ["-t_srs", "EPSG:4547", "-r", "bilinear", "-tr", "20", "20", "-tap", "-dstnodata", "-9999",
                                                 "-ot", "Float32", "dem.tif", "warped.tif"], in: dir.url)
            let reference = try RasterDataset(file: dir.appending("warped.tif"))
            let ours = try RasterDataset(file: dir.appending("dem.tif")).reprojected(to: CoordinateReferenceSystem(epsg: 4547), cellSize: 20)
            #expect(ours.crs == CoordinateReferenceSystem(epsg: 4547))
            #expect(ours.width == reference.width && ours.height == reference.height)
            #expect(ours.geoTransform == reference.geoTransform)
            let (a, b) = (try ours.grid(), try reference.grid())
            #expect(a.values == b.values)
            #expect(a.values.contains(-9999) && a.values.contains { $0 > 19 && $0 < 24 })
        }
    }

    @Test("a vector file, a missing file and a raster without georeferencing are errors naming the file")
    func errors() async throws {
        try await withTemporaryDirectory("gdal-raster-errors") { dir in
            #expect(throws: DataSourceError.self) { try RasterDataset(file: dir.appending("none.tif")) }
            let json = try GDALTools.write(#"{"type": "FeatureCollection", "features": []}"#, "a.geojson", in: dir.url)
            #expect(throws: DataSourceError.self) { try RasterDataset(file: json) }
            let asc = try GDALTools.write(Self.grid, "dem.asc", in: dir.url)
            try await GDALTools.run("gdal_translate", ["-of", "PNG", "-ot", "Byte", "-scale", asc.path, "plain.png"], in: dir.url)
            try? FileManager.default.removeItem(at: dir.appending("plain.png.aux.xml"))
            let plain = try RasterDataset(file: dir.appending("plain.png"))
            #expect(throws: DataSourceError.self) { try plain.grid() }
            #expect(throws: DataSourceError.self) { try plain.reprojected(to: CoordinateReferenceSystem(epsg: 4547)) }
        }
    }
}
