import CGDAL
import Foundation
import GeoCore

/// A raster file read through GDAL: GeoTIFF and Cloud-Optimized GeoTIFF, ESRI ASCII and binary
/// grids, Erdas Imagine, JPEG2000, NetCDF, and every other raster GDAL reads, with its CRS,
/// geotransform and nodata. Not for concurrent use (see `VectorDataset`).
public final class RasterDataset {
    /// The file as given.
    public let file: URL
    let handle: GDALDatasetH

    /// Opens `file` read-only.
    /// - Throws: `DataSourceError.unreadable` when the file is missing or no driver reads it as a raster.
    public init(file: URL) throws {
        GDALLibrary.setUp()
        self.file = file
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw DataSourceError(.unreadable, file: file.lastPathComponent, "no such file")
        }
        let opened = file.withUnsafeFileSystemRepresentation { path in
            GDALOpenEx(path, UInt32(GDAL_OF_RASTER | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR), nil, nil, nil)
        }
        guard let opened else {
            throw DataSourceError(.unreadable, file: file.lastPathComponent, GDALLibrary.takeLastError() ?? "not a raster format GDAL reads")
        }
        handle = opened
    }

    private init(file: URL, handle: GDALDatasetH) {
        self.file = file
        self.handle = handle
    }

    deinit { GDALClose(handle) }

    /// The GDAL driver that read it: `GTiff`, `AAIGrid`, `HFA`, …
    public var driver: String {
        guard let driver = GDALGetDatasetDriver(handle) else { return "" }
        return String(cString: GDALGetDriverShortName(driver))
    }

    public var width: Int { Int(GDALGetRasterXSize(handle)) }
    public var height: Int { Int(GDALGetRasterYSize(handle)) }
    public var bandCount: Int { Int(GDALGetRasterCount(handle)) }

    /// The cell-to-map transform, or `nil` when the file has none (an image without georeferencing).
    public var geoTransform: GeoTransform? {
        var c = [Double](repeating: 0, count: 6)
        guard GDALGetGeoTransform(handle, &c) == CE_None else { return nil }
        return GeoTransform(gdalCoefficients: c)
    }

    /// The CRS when the file says and PROJ knows it (see `SpatialReference`).
    public var crs: CoordinateReferenceSystem? { SpatialReference.crs(GDALGetSpatialRef(handle)) }

    /// The CRS as the file defines it (WKT2), for a report when `crs` is `nil`.
    public var crsDefinition: String? { SpatialReference.wkt(GDALGetSpatialRef(handle)) }

    /// Band `band`'s nodata value (1-based), when it has one.
    public func noData(band: Int = 1) -> Double? {
        guard let b = GDALGetRasterBand(handle, Int32(band)) else { return nil }
        var has: Int32 = 0
        let value = GDALGetRasterNoDataValue(b, &has)
        return has != 0 ? value : nil
    }

    /// Band `band` (1-based) as a grid of 32-bit floats, nodata kept as the band's value.
    /// - Throws: `DataSourceError` for a band that does not exist, a raster without a
    ///   geotransform, or a read GDAL reports as failed.
    public func grid(band: Int = 1) throws -> Grid {
        let name = file.lastPathComponent
        guard (1...max(bandCount, 1)).contains(band), bandCount > 0, let b = GDALGetRasterBand(handle, Int32(band)) else {
            throw DataSourceError(.unsupported, file: name, location: "band \(band)", "has \(bandCount) band(s)")
        }
        guard let transform = geoTransform else {
            throw DataSourceError(.unsupported, file: name, "is not georeferenced (it has no geotransform)")
        }
        let (w, h) = (width, height)
        var values = [Float](repeating: 0, count: w * h)
        let status = values.withUnsafeMutableBytes { buffer in
            GDALRasterIO(b, GF_Read, 0, 0, Int32(w), Int32(h), buffer.baseAddress, Int32(w), Int32(h), GDT_Float32, 0, 0)
        }
        guard status == CE_None else {
            throw DataSourceError(.malformed, file: name, location: "band \(band)", GDALLibrary.takeLastError() ?? "could not be read")
        }
        return try Grid(width: w, height: h, geoTransform: transform, noData: noData(band: band).map(Float.init), values: values)
    }

    /// How cells are computed when a raster is reprojected.
    public enum Resampling: String, Sendable, CaseIterable {
        /// The cell whose centre is nearest (classes, masks).
        case nearest = "near"
        /// Distance-weighted from the 2×2 cells around (the default for elevations).
        case bilinear
        /// From the 4×4 cells around (smoother terrain).
        case cubic
        /// The mean of every source cell inside (a coarser grid from a finer one).
        case average
    }

    /// This raster reprojected to `crs`, as GDAL's warper (`gdalwarp`) makes it: cells of `cellSize`
    /// map units (GDAL's own choice keeping the source's resolution when `nil`), `resampling`
    /// between cells, nodata kept as nodata (cells outside the source become nodata: the source's
    /// value, or -9999 when it has none).
    /// - Throws: `DataSourceError` when the raster has no CRS or GDAL cannot reproject it.
    /// - Parameter source: the raster's CRS when the file does not say it (or says it wrongly).
    public func reprojected(to crs: CoordinateReferenceSystem, from source: CoordinateReferenceSystem? = nil, cellSize: Double? = nil,
                            resampling: Resampling = .bilinear) throws -> RasterDataset {
        let name = file.lastPathComponent
        guard source != nil || self.crs != nil || crsDefinition != nil else {
            throw DataSourceError(.unsupported, file: name, "has no CRS, so it cannot be reprojected; give the file's CRS")
        }
        let noData = self.noData() ?? -9999
        var arguments = ["-of", "MEM", "-t_srs", "\(crs.authority):\(crs.code)", "-r", resampling.rawValue,
                         "-dstnodata", "\(noData)", "-ot", "Float32"]
        if let source { arguments += ["-s_srs", "\(source.authority):\(source.code)"] }
        if let cellSize { arguments += ["-tr", "\(cellSize)", "\(cellSize)", "-tap"] }
        let warped: GDALDatasetH? = GDALLibrary.withStringList(arguments) { list in
            guard let options = GDALWarpAppOptionsNew(list, nil) else { return nil }
            defer { GDALWarpAppOptionsFree(options) }
            var sources: [GDALDatasetH?] = [handle]
            var failed: Int32 = 0
            return sources.withUnsafeMutableBufferPointer { GDALWarp("", nil, 1, $0.baseAddress, options, &failed) }
        }
        guard let warped else {
            throw DataSourceError(.unsupported, file: name, "could not be reprojected to \(crs.authority):\(crs.code): "
                                  + (GDALLibrary.takeLastError() ?? "GDAL's warper failed"))
        }
        return RasterDataset(file: file, handle: warped)
    }
}
