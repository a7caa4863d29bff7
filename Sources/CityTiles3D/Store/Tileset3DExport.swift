import Foundation
import TwinStore

/// What `export` wrote.
public struct Tileset3DExportSummary: Sendable, Hashable {
    public var tiles: Int
    public var bytes: Int
}

extension Tileset3DService {
    /// Writes `layer`'s tileset as `caller` sees it into the new directory `directory`:
    /// `tileset.json` and `content/column_row.glb`, relative URIs only, so the directory can be
    /// copied as it is to object storage or a CDN (serve `.glb` as `model/gltf-binary`).
    /// - Throws: `Tiles3DError` `.invalidArgument` when `directory` exists (nothing is written then),
    ///   and the errors of `tileset(layer:caller:)`.
    public func export(layer: String, caller: Caller, to directory: URL) async throws -> Tileset3DExportSummary {
        try Self.refuseExisting(directory)
        let document = try await tileset(layer: layer, caller: caller)
        var tiles: [(String, [UInt8])] = []
        for name in try await contentNames(layer: layer, caller: caller) {
            tiles.append((name, try await content(layer: layer, name: name, caller: caller)))
        }
        return try Self.write(document, tiles, to: directory)
    }

    /// Writes the terrain tileset of DEM `raster` as `caller` reads it (`terrainTileset`) into
    /// the new directory `directory`, as `export(layer:…)` does (`content/level_column_row.glb`).
    public func exportTerrain(raster: String, caller: Caller, to directory: URL) async throws -> Tileset3DExportSummary {
        try Self.refuseExisting(directory)
        let terrain = try await terrainTileset(raster: raster, caller: caller)
        return try Self.write(try terrain.document(), try terrain.contentNames.map { ($0, try terrain.content($0)) }, to: directory)
    }

    private static func refuseExisting(_ directory: URL) throws {
        guard !FileManager.default.fileExists(atPath: directory.path) else {
            throw Tiles3DError(.invalidArgument, "\(directory.path) already exists: give a new directory")
        }
    }

    /// `tileset.json` and `content/<name>` for each tile, in the new `directory`.
    private static func write(_ document: [UInt8], _ tiles: [(String, [UInt8])], to directory: URL) throws -> Tileset3DExportSummary {
        let content = directory.appendingPathComponent("content", isDirectory: true)
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
        var bytes = document.count
        try Data(document).write(to: directory.appendingPathComponent("tileset.json"))
        for (name, glb) in tiles {
            try Data(glb).write(to: content.appendingPathComponent(name))
            bytes += glb.count
        }
        return Tileset3DExportSummary(tiles: tiles.count, bytes: bytes)
    }
}
