import Foundation
import GeoCore
import TwinStore

/// The terrain of a managed DEM as a 3D Tiles 1.1 tileset of glTF meshes (CIM1, 地表模型): the
/// `TerrainPyramid`'s tiles, each refined by its four children (`refine: REPLACE`), with a
/// geometric error that is the tile's measured maximum height error against the DEM (never less
/// than its children's, as 3D Tiles asks), and skirts as deep as twice the root's error plus a
/// metre, so tiles of any two levels side by side leave no crack.
///
/// The frame is the buildings' (the DEM's centre on the ellipsoid), so a client drawing both
/// tilesets sees the buildings stand on this surface.
public struct TerrainTileset: Sendable {
    /// The raster id and the stored grid's SHA-256: a DEM replaced under the same id is a new tileset.
    public let raster: String
    public let version: String
    public let frame: LocalFrame
    public let root: TileNode
    /// The `.glb` of each tile with content, by `level_column_row`.
    public let contents: [TerrainPyramid.TileID: [UInt8]]
    public let levels: Int

    /// The CIM level terrain reaches: the surface model.
    public static let cimLevel = CIMLevel.cim1
    /// The material's colour, linear RGBA.
    static let color = [0.45, 0.52, 0.36, 1.0]

    /// The tileset of the store's DEM `raster`.
    /// - Throws: `Tiles3DError` `.noTerrain` (no such DEM, not in `crs`, unreadable), `GeometryError` from PROJ.
    public static func build(raster: String, store: any FeatureStore, crs: CoordinateReferenceSystem,
                             leafCells: Int = 64) async throws -> TerrainTileset {
        let terrain = try await Terrain.read(raster, from: store, crs: crs)
        let pyramid = try TerrainPyramid(grid: terrain.grid, leafCells: leafCells)
        let centre = try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(terrain.grid.envelope.center)
        let frame = try LocalFrame(origin: Position(x: centre.x, y: centre.y, z: 0))
        // Errors bottom-up: each tile's own, raised to its children's.
        var errors: [TerrainPyramid.TileID: Double] = [:]
        for level in 0..<pyramid.levels {
            for tile in pyramid.tiles(level: level) {
                let children = pyramid.children(of: tile).compactMap { errors[$0] }
                errors[tile] = max(pyramid.maximumError(of: tile), children.max() ?? 0)
            }
        }
        let top = TerrainPyramid.TileID(level: pyramid.levels - 1, column: 0, row: 0)
        let mesher = TerrainMesher(pyramid: pyramid, frame: frame, crs: crs, skirtDepth: 2 * (errors[top] ?? 0) + 1)
        var contents: [TerrainPyramid.TileID: [UInt8]] = [:]
        func node(_ tile: TerrainPyramid.TileID) throws -> TileNode? {
            let children = try pyramid.children(of: tile).compactMap(node)
            let mesh = try mesher.mesh(tile)
            var box: (min: SIMD3<Double>, max: SIMD3<Double>)?
            if let b = mesh.bounds {
                let table = PropertyTable(className: "terrain", count: 2,
                                          columns: [("part", .strings(["surface", "skirt"]))])
                contents[tile] = try GLBWriter.encode(mesh, table: table, color: color)
                box = (SIMD3<Double>(b.min), SIMD3<Double>(b.max))
            }
            for c in children {
                box = box.map { (pointwiseMin($0.min, c.box.min), pointwiseMax($0.max, c.box.max)) } ?? c.box
            }
            guard let box else { return nil }
            return TileNode(box: box, geometricError: tile.level == 0 ? 0 : errors[tile] ?? 0,
                            content: contents[tile] == nil ? nil : "content/\(tile).glb", children: children)
        }
        guard let root = try node(top) else {
            throw Tiles3DError(.noTerrain, "raster '\(raster)' has no data to mesh: every cell is no-data")
        }
        return TerrainTileset(raster: raster, version: terrain.version ?? "", frame: frame, root: root, contents: contents,
                              levels: pyramid.levels)
    }

    /// `tileset.json`, content URIs prefixed by `contentPrefix`.
    public func document(contentPrefix: String = "") throws -> [UInt8] {
        try TilesetDocument.encode(root: root, frame: frame, contentPrefix: contentPrefix, refine: "REPLACE",
                                   properties: ["raster": raster, "cimLevel": Self.cimLevel.rawValue, "levels": levels,
                                                "sha256": version, "tiles": contents.count])
    }

    /// One tile's `.glb` (`name` as the tileset names it: `level_column_row.glb`).
    /// - Throws: `Tiles3DError` `.unknownTile` when the tileset has no such tile.
    public func content(_ name: String) throws -> [UInt8] {
        guard name.hasSuffix(".glb"), let id = TerrainPyramid.TileID(name.dropLast(4)), let glb = contents[id] else {
            throw Tiles3DError(.unknownTile, "the terrain tileset of raster '\(raster)' has no tile '\(name)'")
        }
        return glb
    }

    /// The names of the tiles with content, sorted by level, row and column.
    public var contentNames: [String] { contents.keys.sorted().map { "\($0).glb" } }
}
