import ArgumentParser
import CityModel
import Foundation
import GeoCore
import Tiles
import TwinStore

/// `citytwin export …`: files for static hosting.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write the one map to files: tile archives for static hosting, printed pages.",
        subcommands: [ExportTilesCommand.self, ExportMapCommand.self])
}

/// `citytwin export tiles OUT --format pmtiles|mbtiles`: the public layers as a vector-tile
/// archive on WebMercatorQuad, cut exactly as the tile API serves them to an anonymous caller.
struct ExportTilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Export vector tiles (MVT, gzip) of the public layers to a PMTiles or MBTiles archive.",
        discussion: """
            Tiles are cut on WebMercatorQuad (z/x/y) as an anonymous caller sees them: layers that are not open are \
            left out and masked attributes never reach the file. Empty tiles are not stored.
            """)

    @Argument(help: "The archive to write (must not exist).")
    var output: String

    @Option(help: "pmtiles or mbtiles (default: from the extension).")
    var format: TileArchiveFormat?

    @Option(help: "Comma-separated layer ids (default: every layer with geometry an anonymous caller may read).")
    var layers: String?

    @Option(help: "Lowest zoom level.")
    var minZoom: Int = 10

    @Option(help: "Highest zoom level.")
    var maxZoom: Int = 16

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    func run() async throws {
        let chosen: TileArchiveFormat
        if let format {
            chosen = format
        } else {
            guard let f = TileArchiveFormat(path: output) else {
                throw ValidationError("give --format pmtiles|mbtiles or an output ending in .pmtiles or .mbtiles")
            }
            chosen = f
        }
        guard minZoom <= maxZoom else { throw ValidationError("--min-zoom \(minZoom) is above --max-zoom \(maxZoom)") }
        guard !FileManager.default.fileExists(atPath: output) else { throw ValidationError("\(output) already exists") }

        let featureStore = try await StoreLocation(store).openExisting()
        let visible = try await featureStore.layers(for: .anonymous).filter { $0.definition.hasGeometry }
        var chosenLayers = visible
        if let layers {
            let wanted = layers.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            chosenLayers = try wanted.map { id in
                guard let info = visible.first(where: { $0.definition.id == id }) else {
                    throw ValidationError("--layers: \(id) is not a layer with geometry that the public may read")
                }
                return info
            }
        }
        let export = try TileArchiveExport(source: TileSource(store: featureStore), layers: chosenLayers,
                                           zooms: minZoom...maxZoom, caller: .anonymous)
        let writer = try chosen.writer(path: output)
        let bar = ProgressBar("exporting tiles to \((output as NSString).lastPathComponent)")
        let summary = try await export.write(to: writer, name: (output as NSString).lastPathComponent) { bar.update($0) }
        bar.finish(WorkProgress(stage: "", completed: Double(summary.visited), total: Double(summary.visited), unit: "tiles"), note: "\(summary.written) tiles, \(summary.bytes / 1024) KiB")
        print("\(output): \(summary.written) tiles (of \(summary.visited) visited), \(summary.bytes) bytes, zoom \(minZoom)-\(maxZoom), "
              + "layers \(chosenLayers.map(\.definition.id).joined(separator: ","))")
    }
}
