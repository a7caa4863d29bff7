import Foundation
import GeoCore
import MapRendering
import Testing

/// The legend and the hit test read the same style and pixels as the map.
@Suite("Legends and features under a pixel")
struct MapLegendTests {
    static let style: JSONValue = [
        "version": 8,
        "layers": [
            ["id": "drainage_pipes-line", "type": "line", "source-layer": "drainage_pipes",
             "paint": ["line-color": ["match", ["get", "system"], "YS", "#2e7d32", "WS", "#8d5524", "HS", "#b8860b", "#8d5524"], "line-width": 3],
             "metadata": ["citytwin:labels": ["YS": "雨水", "WS": "污水", "HS": "合流"]]],
            ["id": "roads-casing", "type": "line", "source-layer": "roads", "paint": ["line-color": "#a8a29a", "line-width": 8],
             "metadata": ["citytwin:legend": false]],
            ["id": "roads-line", "type": "line", "source-layer": "roads", "paint": ["line-color": "#ffd66b", "line-width": 6],
             "metadata": ["citytwin:legendTitle": "主干路"]],
        ],
    ]

    @Test("a matched colour gets an entry per value, titled from citytwin:labels; casings get none; each swatch has its colour")
    func legendEntries() throws {
        let style = try RenderStyle(document: Self.style)
        let pipes = MapLegend(collection: "drainage_pipes", title: "排水管道", style: style)
        #expect(pipes.entries.map(\.label) == ["雨水", "污水", "合流"])
        let roads = MapLegend(collection: "roads", title: "道路", style: style)
        #expect(roads.entries.map(\.label) == ["主干路"])
        let image = try PNGImage(pipes.image(format: .png, background: .white))
        let (width, height) = try pipes.size()
        #expect(image.width == width && image.height == height && height >= 22 * 4)
        var seen: Set<String> = []
        for y in 0..<image.height { for x in 0..<image.width { seen.insert(image.colour(x: x, y: y).hex) } }
        #expect(seen.isSuperset(of: ["#2e7d32", "#8d5524", "#b8860b"]), "every class's colour is drawn")
    }

    @Test("a pixel inside an area is 0 from it, in its hole or beyond it as far as its nearest edge; lines and points by distance")
    func hitTest() throws {
        var g = PixelGeometry()
        g.polygons = [[[(0, 0), (100, 0), (100, 100), (0, 100), (0, 0)], [(40, 40), (60, 40), (60, 60), (40, 60), (40, 40)]]]
        #expect(g.distance(toX: 10, y: 10) == 0)
        #expect(g.distance(toX: 50, y: 50) == 10, "the hole's middle is 10 px from its edge")
        #expect(g.distance(toX: 103, y: 50) == 3)
        var line = PixelGeometry()
        line.lines = [[(0, 0), (100, 0)]]
        line.points = [(200, 200)]
        #expect(line.distance(toX: 50, y: 4) == 4)
        #expect(line.distance(toX: 203, y: 204) == 5)
    }
}
