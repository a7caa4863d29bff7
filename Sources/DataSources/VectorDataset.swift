import CGDAL
import Foundation
import GeoCore

/// A file (or folder: a FileGDB, a Shapefile directory) of vector layers, read through GDAL:
/// GeoPackage, Shapefile (with its `.cpg`, or the encoding given), FileGDB, DXF, MapInfo, KML,
/// GML, GeoJSON, FlatGeobuf, OpenStreetMap `.osm`/`.pbf`, and every other format GDAL reads.
///
/// Not for concurrent use: one dataset is read by one task at a time (GDAL's handles are not
/// thread-safe); open one per task to read in parallel.
///
/// ```swift
/// let file = try VectorDataset(file: URL(fileURLWithPath: "roads.shp"), encoding: "GBK")
/// let roads = try file.layer(named: nil)          // the only layer
/// while case let batch = try roads.next(upTo: 1_000), !batch.isEmpty { … }
/// ```
public final class VectorDataset {
    /// The file as given.
    public let file: URL
    let handle: GDALDatasetH

    /// Opens `file` read-only.
    /// - Parameters:
    ///   - encoding: the attributes' text encoding where the format lets the reader choose
    ///     (a Shapefile's `.dbf`: overrides its `.cpg`); `nil` leaves it to the file.
    ///   - openOptions: the driver's open options, `KEY=VALUE` (GDAL's `-oo`).
    /// - Throws: `DataSourceError.unreadable` when the file is missing or no driver reads it as vectors.
    public init(file: URL, encoding: String? = nil, openOptions: [String] = []) throws {
        GDALLibrary.setUp()
        self.file = file
        var options = openOptions
        if let encoding { options.append("ENCODING=\(encoding)") }
        let name = file.lastPathComponent
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw DataSourceError(.unreadable, file: name, "no such file")
        }
        let opened = GDALLibrary.withStringList(options) { list in
            // Open options a driver does not know are ignored with a warning, not refused, so one
            // ENCODING can be offered to every vector format.
            file.withUnsafeFileSystemRepresentation { path in
                GDALOpenEx(path, UInt32(GDAL_OF_VECTOR | GDAL_OF_READONLY | GDAL_OF_VERBOSE_ERROR), nil, GDALLibrary.constant(list), nil)
            }
        }
        guard let opened else {
            throw DataSourceError(.unreadable, file: name, GDALLibrary.takeLastError() ?? "not a vector format GDAL reads")
        }
        guard GDALDatasetGetLayerCount(opened) > 0 else {
            GDALClose(opened)
            throw DataSourceError(.unsupported, file: name, "holds no vector layer")
        }
        handle = opened
    }

    deinit { GDALClose(handle) }

    /// The GDAL driver that read it: `GPKG`, `ESRI Shapefile`, `OpenFileGDB`, `OSM`, `DXF`, …
    public var driver: String {
        guard let driver = GDALGetDatasetDriver(handle) else { return "" }
        return String(cString: GDALGetDriverShortName(driver))
    }

    /// The layers' names, in the file's order.
    public var layerNames: [String] {
        (0..<GDALDatasetGetLayerCount(handle)).compactMap { i in
            GDALDatasetGetLayer(handle, i).map { String(cString: OGR_L_GetName($0)) }
        }
    }

    /// The layer called `name`; with `nil`, the only layer (an error naming them when there are several).
    public func layer(named name: String?) throws -> VectorLayer {
        let names = layerNames
        if let name {
            guard let layer = GDALDatasetGetLayerByName(handle, name) else {
                throw DataSourceError(.unsupported, file: file.lastPathComponent,
                                      "has no layer '\(name)' (its layers: \(names.joined(separator: ", ")))")
            }
            return VectorLayer(dataset: self, handle: layer)
        }
        guard names.count == 1, let layer = GDALDatasetGetLayer(handle, 0) else {
            throw DataSourceError(.unsupported, file: file.lastPathComponent,
                                  "holds \(names.count) layers; name one (its layers: \(names.joined(separator: ", ")))")
        }
        return VectorLayer(dataset: self, handle: layer)
    }
}
