import ArgumentParser
import DataSources
import Foundation
import GeoCore
import TwinStore

/// `citytwin raster`: the rasters the store manages (a city's DEM): imported by the platform
/// administrator from a file on this machine, listed, deleted. Runs and requests name them by
/// id; no request names a file on the server.
struct RasterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "raster",
        abstract: "Import, list and delete the rasters the store manages (the DEM flood runs read by id).",
        subcommands: [Import.self, List.self, Delete.self])

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import a raster (GeoTIFF/COG, ESRI ASCII, any format GDAL reads) into the store as a managed raster.",
            discussion: """
                The raster is reprojected from its own CRS (or --source-crs) to --crs (by default the city's \
                metric CRS, the one flood runs read DEMs in, which the store records) with GDAL's warper (\
                --resampling, bilinear by default for elevations; square cells of the source's resolution \
                unless --cell-size), nodata kept as nodata, and stored as an ESRI ASCII grid. A raster \
                already in --crs at the asked cell size is stored cell for cell. An existing id is replaced \
                only with --replace; every import is an entry of the audit log.
                """)

        @Argument(help: "The raster file (GeoTIFF, COG, ESRI ASCII .asc, or any other format GDAL reads).")
        var file: String

        @Option(help: "The raster's id (lower-case letters, digits, '-', '_'): what runs name it by.")
        var id: String = ManagedRaster.defaultDEM

        @Option(help: "What the raster is: \(ManagedRaster.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        var kind: ManagedRaster.Kind = .dem

        @Option(help: ArgumentHelp(
            "The CRS to store it in, as an EPSG code (default: the city's metric CRS, which flood runs read DEMs in).",
            discussion: "A store without a city yet records the metric zone of where the raster lies as its city's CRS."))
        var crs: Int?

        @Option(help: "The file's CRS when it does not say it (e.g. EPSG:4490); a file that names none is otherwise taken to be in --crs.")
        var sourceCRS: String?

        @Option(help: "Cell size in metres (units of --crs) after reprojection (default: the source's resolution).")
        var cellSize: Double?

        @Option(help: "How cells are computed when reprojected: \(RasterDataset.Resampling.allCases.map(\.rawValue).joined(separator: ", ")).")
        var resampling: RasterDataset.Resampling = .bilinear

        @Option(help: "A title for the raster list.")
        var title: String?

        @Flag(help: "Replace a raster of the same id.")
        var replace = false

        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            guard ManagedRaster.isValidID(id) else {
                throw ValidationError("--id must be 1–64 lower-case letters, digits, '-' and '_', starting with a letter or digit")
            }
            if let cellSize, !(cellSize > 0 && cellSize <= 10_000) {
                throw ValidationError("--cell-size must be more than 0 and at most 10000 (units of --crs), got \(cellSize)")
            }
            let given = try sourceCRS.map { text in
                do { return try CoordinateReferenceSystem(parsing: text) } catch { throw ValidationError("--source-crs: \(error)") }
            }
            let featureStore = try await StoreLocation(storeOption.path).openExisting()
            let grid: Grid
            let note: String
            let target: CoordinateReferenceSystem
            do {
                let source = try RasterDataset(file: URL(fileURLWithPath: file))
                target = try await storedCRS(of: source, given: given, in: featureStore)
                let from = given ?? source.crs
                // A CRS the file defines that PROJ names no EPSG code for still drives the warp.
                let ownDefinition = given == nil && source.crs == nil && source.crsDefinition != nil
                if !ownDefinition && (from ?? target) == target && cellSize == nil {
                    grid = try source.grid()
                    note = from == nil ? " (the file names no CRS: taken to be in \(target); give --source-crs otherwise)" : ""
                } else {
                    let warped = try source.reprojected(to: target, from: given ?? (source.crs == nil && source.crsDefinition == nil ? target : nil),
                                                       cellSize: cellSize, resampling: resampling)
                    grid = try warped.grid()
                    note = " (reprojected from \(from.map(\.description) ?? "the file's CRS") with \(resampling.rawValue) resampling)"
                }
            } catch let e as DataSourceError {
                throw CommandFailure(presenting: e, in: "cannot import")  // the one mapping's words: file, band, reason
            }
            guard abs(grid.geoTransform.pixelWidth) == abs(grid.geoTransform.pixelHeight), grid.geoTransform.isNorthUp else {
                throw CommandFailure("\(file) has \(abs(grid.geoTransform.pixelWidth)) x \(abs(grid.geoTransform.pixelHeight)) cells; "
                                     + "a managed raster has square north-up cells: give --cell-size")
            }
            let data = try grid.esriASCIIData()
            guard data.count <= ManagedRaster.maximumBytes else {
                throw CommandFailure("the grid takes \(data.count) bytes; a managed raster has at most \(ManagedRaster.maximumBytes) (give a larger --cell-size)")
            }
            guard let code = target.epsgCode else { throw ValidationError("--crs must be an EPSG code") }
            let raster = try ManagedRaster.describe(grid, data: data, id: id, title: title, kind: kind, crs: code, by: .admin)
            guard let store = featureStore as? any ManagedRasters else { throw CommandFailure("the store at \(storeOption.path) keeps no rasters") }
            try await store.putRaster(raster, data: data, replace: replace, by: .admin)
            // The first data of a city: its DEM places it.
            if crs == nil, let city = try await CityRecord.recordIfAbsent(in: featureStore, name: nil, metricCRS: target, by: .admin) {
                print("Recorded the city's metric CRS: \(city.metricCRS) (the zone of where the raster lies)")
            }
            print("imported raster '\(id)': \(grid.width) x \(grid.height) cells of \(abs(grid.geoTransform.pixelWidth)), \(raster.crs), \(data.count) bytes\(note)")
        }

        /// The CRS to store `source` in: `--crs`; else the city's metric CRS; for a store without a
        /// city yet, the metric zone of the raster's centre (`CoordinateReferenceSystem.metricZone`).
        private func storedCRS(of source: RasterDataset, given: CoordinateReferenceSystem?,
                               in store: any FeatureStore) async throws -> CoordinateReferenceSystem {
            if let crs { return CoordinateReferenceSystem(epsg: crs) }
            if let city = try await CityRecord.metricCRS(of: store) { return city }
            guard let from = given ?? source.crs, let transform = source.geoTransform else {
                throw ValidationError("the store holds no city yet and \(URL(fileURLWithPath: file).lastPathComponent) names no CRS "
                                      + "PROJ knows: give --crs (the city's metric CRS) and --source-crs")
            }
            var centre = [transform.position(column: Double(source.width) / 2, row: Double(source.height) / 2)]
            try CoordinateTransformer.shared(from: from, to: .cgcs2000).transform(&centre)
            return CoordinateReferenceSystem.metricZone(for: Envelope(minX: centre[0].x, minY: centre[0].y, maxX: centre[0].x, maxY: centre[0].y))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the store's managed rasters as JSON.")
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            try printJSONDocument(try await rasterStore(storeOption).managedRasters())
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a managed raster (audited).")
        @Argument(help: "The raster's id.")
        var id: String
        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            guard try await rasterStore(storeOption).deleteRaster(id, by: .admin) else {
                throw CommandFailure("the store has no raster '\(id)'")
            }
            print("deleted raster '\(id)'")
        }
    }
}

extension ManagedRaster.Kind: ExpressibleByArgument {}

/// The store of `option` as the keeper of managed rasters.
private func rasterStore(_ option: StoreOption) async throws -> any ManagedRasters {
    guard let store = try await StoreLocation(option.path).openExisting() as? any ManagedRasters else {
        throw CommandFailure("the store at \(option.path) keeps no rasters")
    }
    return store
}

extension RasterDataset.Resampling: ExpressibleByArgument {}
