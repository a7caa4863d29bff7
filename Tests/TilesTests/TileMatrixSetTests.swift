import Foundation
import GeoCore
import Testing
@testable import Tiles

@Suite("Tile matrix sets: WebMercatorQuad, WorldCRS84Quad and the Tianditu-compatible CGCS2000 grid")
struct TileMatrixSetTests {
    static let beijing = Position(x: 116.391, y: 39.907)

    @Test("Beijing at WorldCRS84Quad level 10 is col 1686, row 284; at CGCS2000 level 11 the same tile")
    func beijing() throws {
        let crs84 = try TileMatrixSet.worldCRS84Quad.tile(containing: Self.beijing, level: 10)
        #expect(crs84 == TileID(matrix: 10, row: 284, col: 1686))
        let tianditu = try TileMatrixSet.cgcs2000Quad.tile(containing: Self.beijing, level: 11)
        #expect(tianditu == TileID(matrix: 11, row: 284, col: 1686))
        // The tile's bounds contain the position, and the two grids agree on them.
        let b = try TileMatrixSet.cgcs2000Quad.lonLatBounds(of: tianditu)
        #expect(b.contains(Self.beijing))
        #expect(b == (try TileMatrixSet.worldCRS84Quad.lonLatBounds(of: crs84)))
        #expect(abs(b.width - 180.0 / 1024) < 1e-12)
    }

    @Test("first levels: 1×1 Web Mercator, 2×1 CRS84 at 0, 2×1 CGCS2000 at 1 with 0.703125°/px")
    func firstLevels() throws {
        let wm = try TileMatrixSet.webMercatorQuad.matrix(0)
        #expect(wm.matrixWidth == 1 && wm.matrixHeight == 1)
        #expect(abs(wm.cellSize - 156_543.033928041) < 1e-6)
        #expect(abs(wm.scaleDenominator - 559_082_264.028717) < 1e-3)
        let c = try TileMatrixSet.worldCRS84Quad.matrix(0)
        #expect(c.matrixWidth == 2 && c.matrixHeight == 1 && c.cellSize == 0.703125)
        #expect(abs(c.scaleDenominator - 279_541_132.014358) < 1e-3)
        let t = try TileMatrixSet.cgcs2000Quad.matrix(1)
        #expect(t.matrixWidth == 2 && t.matrixHeight == 1 && t.cellSize == 0.703125)
        #expect(TileMatrixSet.cgcs2000Quad.minLevel == 1 && TileMatrixSet.cgcs2000Quad.maxLevel == 18)
        let l18 = try TileMatrixSet.cgcs2000Quad.matrix(18)
        #expect(l18.matrixWidth == 262_144 && l18.matrixHeight == 131_072)
        // Published with the OGC 0.28 mm pixel; Tianditu's 96-DPI value is documented beside it.
        #expect(abs(t.scaleDenominator - 279_541_132.014358) < 1e-3)
        #expect(abs(TileMatrixSet.tiandituScaleDenominator(t) - 2.958293554545656e8) < 1e-2)
    }

    @Test("Web Mercator tile of Hankou matches the slippy-map formula at every zoom")
    func webMercatorSlippy() throws {
        let hankou = Position(x: 114.3055, y: 30.5928)
        for z in [0, 1, 5, 10, 14, 18, 24] {
            let n = Double(1 << z)
            let x = Int(((hankou.x + 180) / 360 * n).rounded(.down))
            let lat = hankou.y * .pi / 180
            let y = Int(((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n).rounded(.down))
            #expect(try TileMatrixSet.webMercatorQuad.tile(containing: hankou, level: z) == TileID(matrix: z, row: y, col: x))
        }
    }

    @Test("outside the matrix is an error naming the level, row or column")
    func outside() throws {
        let tms = TileMatrixSet.cgcs2000Quad
        #expect(throws: TileError.self) { try tms.matrix(0) }
        #expect(throws: TileError.self) { try tms.validate(TileID(matrix: 19, row: 0, col: 0)) }
        #expect(throws: TileError.self) { try tms.validate(TileID(matrix: 1, row: 1, col: 0)) }
        #expect(throws: TileError.self) { try tms.validate(TileID(matrix: 1, row: 0, col: 2)) }
        #expect(throws: TileError.self) { try tms.validate(TileID(matrix: 3, row: -1, col: 0)) }
        do {
            try TileMatrixSet.webMercatorQuad.validate(TileID(matrix: 2, row: 0, col: 4))
            Issue.record("column 4 at level 2 should be outside")
        } catch let e as TileError {
            #expect(e.code == .outsideMatrix && e.message.contains("column 4"))
        }
        #expect(throws: TileError.self) { try TileMatrixSet.webMercatorQuad.tile(containing: Position(x: 0, y: 89), level: 3) }
        #expect(throws: TileError.self) { try TileMatrixSet.worldCRS84Quad.tile(containing: Position(x: .nan, y: 0), level: 3) }
        #expect(throws: TileError.self) { try TileMatrixSet.named("GoogleCRS84Quad") }
    }

    @Test("tiles covering an envelope: Wuhan's core at Web Mercator 12 and the world at CRS84 0")
    func covering() throws {
        let wuhan = Envelope(minX: 114.20, minY: 30.50, maxX: 114.40, maxY: 30.65)
        let range = try #require(try TileMatrixSet.webMercatorQuad.tiles(covering: wuhan, level: 12))
        let sw = try TileMatrixSet.webMercatorQuad.tile(containing: Position(x: 114.20, y: 30.50), level: 12)
        let ne = try TileMatrixSet.webMercatorQuad.tile(containing: Position(x: 114.40, y: 30.65), level: 12)
        #expect(range.cols == sw.col...ne.col && range.rows == ne.row...sw.row)
        #expect(Array(range).count == range.count)
        for id in range {
            #expect(try TileMatrixSet.webMercatorQuad.lonLatBounds(of: id).intersects(wuhan))
        }
        let world = try #require(try TileMatrixSet.worldCRS84Quad.tiles(covering: Envelope(minX: -180, minY: -90, maxX: 180, maxY: 90), level: 0))
        #expect(world.count == 2)
        #expect(try TileMatrixSet.webMercatorQuad.tiles(covering: Envelope(minX: 0, minY: 86, maxX: 1, maxY: 89), level: 3) == nil)
    }

    @Test("TMS 2.0 documents: CGCS2000 origin in lat,lon order, no registry URI; WebMercator registered")
    func documents() throws {
        let doc = TileMatrixSet.cgcs2000Quad.document
        #expect(doc["crs"]?.stringValue == "http://www.opengis.net/def/crs/EPSG/0/4490")
        #expect(doc["uri"] == nil)
        let first = try #require(doc["tileMatrices"]?.arrayValue?.first)
        #expect(first["id"]?.stringValue == "1")
        #expect(first["pointOfOrigin"] == [90.0, -180.0])
        #expect(first["matrixWidth"]?.integerValue == 2 && first["matrixHeight"]?.integerValue == 1)
        #expect(first["cellSize"]?.doubleValue == 0.703125)
        #expect(doc["tileMatrices"]?.arrayValue?.count == 18)
        let wm = TileMatrixSet.webMercatorQuad.document
        #expect(wm["uri"]?.stringValue == "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad")
        #expect(wm["tileMatrices"]?.arrayValue?.first?["pointOfOrigin"] == [-20_037_508.342789244, 20_037_508.342789244])
        #expect(TileMatrixSet.worldCRS84Quad.document["tileMatrices"]?.arrayValue?.first?["pointOfOrigin"] == [-180.0, 90.0])
    }
}
