import GeoCore
import Testing
@testable import Tiles

@Suite("Clipping at tile edges keeps polygons valid and wound the MVT way")
struct TileEdgeTests {
    /// The four WorldCRS84Quad level-14 tiles meeting at a corner near Hankou.
    static let level = 14
    static let span = 180.0 / Double(1 << level)
    static let corner = Position(x: -180 + 30_000 * span, y: 90 - 5_000 * span)   // ~ (149.6°E, 35.1°N) grid corner

    static func lonLat(_ dx: Double, _ dy: Double) -> Position {
        Position(x: corner.x + dx * span, y: corner.y + dy * span)
    }

    @Test("the empty geometry cuts to nothing")
    func emptyGeometry() throws {
        let frame = try TileFrame(.worldCRS84Quad, TileID(matrix: 3, row: 1, col: 2))
        var cutter = TileCutter(frame: frame, generalization: .none)
        #expect(try cutter.cut(.geometryCollection(GeometryCollection([]))) == nil)
        #expect(try cutter.cut(.polygon([])) == nil)
        #expect(try cutter.cut(.point(Point(nil))) == nil)
    }

    @Test("a polygon with a hole crossing two tile edges stays valid in all four tiles")
    func holeAcrossTwoEdges() throws {
        // Counter-clockwise in lon/lat (RFC 7946), centred on the corner; the hole crosses both edges too.
        let exterior = [Self.lonLat(-0.6, -0.5), Self.lonLat(0.7, -0.5), Self.lonLat(0.7, 0.6), Self.lonLat(-0.6, 0.6), Self.lonLat(-0.6, -0.5)]
        let hole = [Self.lonLat(-0.2, -0.25), Self.lonLat(-0.2, 0.3), Self.lonLat(0.3, 0.3), Self.lonLat(0.3, -0.25), Self.lonLat(-0.2, -0.25)]
        let polygon = Geometry.polygon(exterior, holes: [hole])
        let centre = try TileMatrixSet.worldCRS84Quad.tile(containing: Self.corner, level: Self.level)
        var total = 0.0
        for (dr, dc) in [(-1, -1), (-1, 0), (0, -1), (0, 0)] {
            let tile = TileID(matrix: Self.level, row: centre.row + dr, col: centre.col + dc)
            let frame = try TileFrame(.worldCRS84Quad, tile, extent: 4096, buffer: 64)
            var cutter = TileCutter(frame: frame, generalization: .none)
            let cut = try #require(try cutter.cut(polygon), "tile \(tile) lost the polygon")
            try expectMVTPolygon(cut)
            // Through the encoder and our decoder: still one polygon, valid, same area.
            var layer = VectorTileLayer(name: "blocks")
            layer.append(TileFeature(id: 1, geometry: cut))
            let decoded = try VectorTile.decode(VectorTile.encode([layer]))[0].features[0].geometry
            try expectMVTPolygon(decoded)
            let decodedArea = try decoded.area, cutArea = try cut.area
            #expect(abs(decodedArea - cutArea) < 1e-9)
            #expect(tilePolygons(decoded).count == 1)
            // Area inside the tile proper (without buffer), to compare with the whole.
            total += try decoded.clipped(to: Envelope(minX: 0, minY: 0, maxX: 4096, maxY: 4096)).area
        }
        // Sum of the four tiles' inner parts = whole polygon minus hole, in tile units² (± snapping).
        let whole = (1.3 * 1.1 - 0.5 * 0.55) * 4096 * 4096
        #expect(abs(total - whole) / whole < 1e-3)
    }

    @Test("snapping that collapses a sliver drops it; a polygon under one screen pixel is dropped by generalization")
    func degenerate() throws {
        let frame = try TileFrame(.worldCRS84Quad, TileID(matrix: Self.level, row: 5_000, col: 30_000))
        let unit = Self.span / 4096
        let sliver = Geometry.polygon([Self.lonLat(0.1, -0.1), Self.lonLat(0.5, -0.1), Position(x: Self.lonLat(0.5, -0.1).x, y: Self.lonLat(0.5, -0.1).y - unit * 0.2),
                                       Self.lonLat(0.1, -0.1)])
        var cutter = TileCutter(frame: frame, generalization: .none)
        #expect(try cutter.cut(sliver) == nil)
        let small = Geometry.polygon([Self.lonLat(0.5, -0.5), Self.lonLat(0.5 + 8 * unit / Self.span, -0.5), Self.lonLat(0.5 + 8 * unit / Self.span, -0.5 + 8 * unit / Self.span),
                                      Self.lonLat(0.5, -0.5 + 8 * unit / Self.span), Self.lonLat(0.5, -0.5)])
        #expect(try cutter.cut(small) != nil)   // 8 × 8 units kept without generalization
        var general = TileCutter(frame: frame, generalization: .standard(level: Self.level))
        #expect(try general.cut(small) == nil)  // 64 units² < one screen pixel (256 units²)
    }

    @Test("a self-touching result of snapping is repaired by make-valid")
    func repairAfterSnapping() throws {
        let frame = try TileFrame(.worldCRS84Quad, TileID(matrix: Self.level, row: 5_000, col: 30_000))
        let u = Self.span / 4096
        // A bow-tie-to-be: two triangles whose tips are 0.3 units apart before snapping, the same point after.
        func p(_ x: Double, _ y: Double) -> Position { Position(x: Self.corner.x + x * u, y: Self.corner.y - y * u) }
        let g = Geometry.polygon([p(100, 100), p(300, 100), p(200.2, 200.1), p(300, 300), p(100, 300), p(199.9, 199.8), p(100, 100)])
        var cutter = TileCutter(frame: frame, generalization: .none)
        let cut = try #require(try cutter.cut(g))
        try expectMVTPolygon(cut)
        let area = try cut.area
        #expect(abs(area - 20_000) < 200)
    }
}
