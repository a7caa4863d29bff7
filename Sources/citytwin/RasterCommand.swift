import ArgumentParser
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
            abstract: "Import a grid (ESRI ASCII) into the store as a managed raster.",
            discussion: "An existing id is replaced only with --replace; every import is an entry of the audit log.")

        @Argument(help: "The grid file (ESRI ASCII .asc).")
        var file: String

        @Option(help: "The raster's id (lower-case letters, digits, '-', '_'): what runs name it by.")
        var id: String = ManagedRaster.defaultDEM

        @Option(help: "What the raster is: \(ManagedRaster.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
        var kind: ManagedRaster.Kind = .dem

        @Option(help: "The grid's CRS as an EPSG code (the flood engine reads DEMs in 4547).")
        var crs: Int = 4547

        @Option(help: "A title for the raster list.")
        var title: String?

        @Flag(help: "Replace a raster of the same id.")
        var replace = false

        @OptionGroup var storeOption: StoreOption

        func run() async throws {
            guard ManagedRaster.isValidID(id) else {
                throw ValidationError("--id must be 1–64 lower-case letters, digits, '-' and '_', starting with a letter or digit")
            }
            guard let data = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
            guard data.count <= ManagedRaster.maximumBytes else {
                throw CommandFailure("\(file) has \(data.count) bytes; a managed raster has at most \(ManagedRaster.maximumBytes)")
            }
            let grid: Grid
            do { grid = try Grid(esriASCIIData: data) } catch let e as GeometryError {
                throw CommandFailure(presenting: e, in: "\(file) is not an ESRI ASCII grid")
            }
            let raster = try ManagedRaster.describe(grid, data: data, id: id, title: title, kind: kind, crs: crs, by: .admin)
            let store = try await rasterStore(storeOption)
            try await store.putRaster(raster, data: data, replace: replace, by: .admin)
            print("imported raster '\(id)': \(grid.width) x \(grid.height) cells, \(raster.crs), \(data.count) bytes")
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
