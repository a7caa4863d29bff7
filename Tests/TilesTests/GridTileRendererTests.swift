import GeoCore
import Testing
@testable import Tiles

/// The depth map tiles leave permanent water (a run's river and lake cells) undrawn, so the base
/// map's water shows there instead of a depth class; every other cell keeps its class.
@Suite("Depth map tiles and permanent water")
struct GridTileRendererTests {
    @Test("a mask of permanent water leaves its cells transparent; the others keep their class")
    func maskLeavesPermanentWaterUndrawn() throws {
        let tms = TileMatrixSet.webMercatorQuad
        let tile = try tms.tile(containing: Position(x: 114.80, y: 30.84), level: 14)
        let b = try tms.lonLatBounds(of: tile)
        // A 1 km grid of 50 m cells, 0.4 m deep everywhere, centred in the tile (2.1 km wide).
        let centre = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric)
            .transform(Position(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2))
        let n = 20, size = 50.0
        let transform = GeoTransform.northUp(west: centre.x - Double(n) * size / 2, north: centre.y + Double(n) * size / 2,
                                             cellWidth: size, cellHeight: size)
        let depth = try Grid(width: n, height: n, geoTransform: transform, values: [Float](repeating: 0.4, count: n * n))
        // The western half is a river.
        let river = try Grid(width: n, height: n, geoTransform: transform, values: (0..<(n * n)).map { $0 % n < n / 2 ? 1 : 0 })
        let everywhere = try Grid(width: n, height: n, geoTransform: transform, values: [Float](repeating: 1, count: n * n))

        let plain = try #require(try GridTileRenderer.png(depth, crs: .districtMetric, tileMatrixSet: tms, tile: tile))
        let masked = try #require(try GridTileRenderer.png(depth, crs: .districtMetric, tileMatrixSet: tms, tile: tile, mask: river))
        #expect(try GridTileRenderer.png(depth, crs: .districtMetric, tileMatrixSet: tms, tile: tile, mask: everywhere) == nil,
                "a tile of permanent water only is empty")
        let cls = DepthColourRamp.flood.index(0.4)
        let a = try PNGEncoder.decodeIndexed(plain).pixels, m = try PNGEncoder.decodeIndexed(masked).pixels
        let wet = a.filter { $0 == cls }.count, kept = m.filter { $0 == cls }.count
        #expect(wet > 10_000, "the grid covers \(wet) pixels")
        #expect(m.allSatisfy { $0 == 0 || $0 == cls })
        #expect(abs(Double(kept) / Double(wet) - 0.5) < 0.03, "\(kept) of \(wet) pixels drawn with half the grid masked")
        // The pixels left undrawn are the river's (west): in every row, no drawn pixel lies west of
        // an undrawn one that the plain tile drew.
        for row in 0..<256 {
            let line = m[(row * 256)..<((row + 1) * 256)], plainLine = a[(row * 256)..<((row + 1) * 256)]
            guard let firstDrawn = line.firstIndex(of: cls) else { continue }
            #expect(!plainLine[firstDrawn...].indices.contains { plainLine[$0] == cls && line[$0] == 0 }, "row \(row)")
        }
        // A mask of another size is ignored (never misapplied).
        let other = try Grid(width: n / 2, height: n, geoTransform: transform, values: [Float](repeating: 1, count: n / 2 * n))
        #expect(try GridTileRenderer.png(depth, crs: .districtMetric, tileMatrixSet: tms, tile: tile, mask: other) == plain)
    }
}
