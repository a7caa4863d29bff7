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
        let fm = FileManager.default
        guard !fm.fileExists(atPath: directory.path) else {
            throw Tiles3DError(.invalidArgument, "\(directory.path) already exists: give a new directory")
        }
        let document = try await tileset(layer: layer, caller: caller)
        let names = try await contentNames(layer: layer, caller: caller)
        let content = directory.appendingPathComponent("content", isDirectory: true)
        try fm.createDirectory(at: content, withIntermediateDirectories: true)
        var bytes = document.count
        try Data(document).write(to: directory.appendingPathComponent("tileset.json"))
        for name in names {
            let glb = try await self.content(layer: layer, name: name, caller: caller)
            try Data(glb).write(to: content.appendingPathComponent(name))
            bytes += glb.count
        }
        return Tileset3DExportSummary(tiles: names.count, bytes: bytes)
    }
}
