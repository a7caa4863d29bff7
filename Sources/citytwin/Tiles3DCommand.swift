import ArgumentParser
import CityTiles3D
import Foundation
import TwinStore

/// `citytwin tiles3d …`: the layers' 3D Tiles 1.1 tilesets (CityTiles3D).
struct Tiles3DCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles3d", abstract: "The city in 3D: OGC 3D Tiles 1.1 tilesets of the layers' solids.",
        subcommands: [Tiles3DExportCommand.self])
}

/// `citytwin tiles3d export --layer buildings --out DIR`: the tileset as a directory a CDN can
/// serve as it is (`tileset.json`, `content/column_row.glb`), cut as the named caller reads it;
/// `--terrain dem` the DEM's terrain mesh tiles instead (`content/level_column_row.glb`).
struct Tiles3DExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a layer's 3D tileset (tileset.json and glTF content) to a new directory.",
        discussion: """
            The tileset is made as the public sees it, or as --department's viewers see it: a layer that caller may \
            not read is refused and masked attributes never reach the files. Buildings stand on the store's DEM \
            (raster 'dem'), at the lowest terrain height under their footprint. Layers with a 3D representation: \
            \(SolidRule.layers.joined(separator: ", ")). --terrain RASTER exports a managed DEM as terrain mesh tiles \
            (CIM1), which departments read: give --department.
            """)

    @Option(help: "The layer to export (\(SolidRule.layers.joined(separator: ", "))).")
    var layer: String?

    @Option(help: "Export this managed DEM (e.g. dem) as terrain mesh tiles instead of a layer.")
    var terrain: String?

    @Option(help: "The directory to write (must not exist).")
    var out: String

    @Option(help: "Export as this department's viewers read the layer (e.g. 住房和城市更新局); default: the public.")
    var department: String?

    @OptionGroup var storeOption: StoreOption

    func validate() throws {
        guard (layer == nil) != (terrain == nil) else { throw ValidationError("give one of --layer or --terrain") }
        if terrain != nil, department == nil {
            throw ValidationError("the DEM is shared with departments, not the public: give --department to export its terrain")
        }
    }

    func run() async throws {
        let caller: Caller = department.map { .department(name: $0, role: .viewer) } ?? .anonymous
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        if let terrain {
            let store = try await StoreLocation(storeOption.path).openExisting()
            let summary = try await Tileset3DService(store: store).exportTerrain(raster: terrain, caller: caller, to: directory)
            print("wrote \(summary.tiles) terrain tiles (\(summary.bytes) bytes) of raster \(terrain) to \(out)")
            return
        }
        guard let layer, SolidRule.rule(for: layer) != nil else {
            throw ValidationError("layer '\(layer ?? "")' has no 3D representation (3D tilesets: \(SolidRule.layers.joined(separator: ", ")))")
        }
        let store = try await StoreLocation(storeOption.path).openExisting()
        let service = Tileset3DService(store: store)
        let summary = try await service.export(layer: layer, caller: caller, to: directory)
        print("wrote \(summary.tiles) tiles (\(summary.bytes) bytes) of \(layer) to \(out)")
    }
}
