import Foundation
import GeoCore
import MapRendering
import Testing

/// The renderer draws what the style says, where the features are: checked by pixels of the
/// encoded image against colours and places the tests work out from the style and the features
/// themselves (a pixel inside a known polygon has the polygon's fill colour; nothing of a feature
/// beyond the map's box reaches the image; a labelled point has text pixels beside it).
@Suite("Server-side map rendering")
struct MapRendererTests {
    /// A style as the web map writes it (WebMap/MapStyle.swift): a `match` fill, an outline,
    /// zoom-interpolated line widths with a filter, circles and labels with halos.
    static let style: JSONValue = [
        "version": 8,
        "layers": [
            ["id": "background", "type": "background", "paint": ["background-color": "#f4f2ec"]],
            ["id": "land_use-fill", "type": "fill", "source": "citytwin", "source-layer": "land_use",
             "paint": ["fill-color": ["match", ["get", "class"], "居住用地", "#fde9a6", "工业用地", "#d9c0a3", "#e8e4dc"], "fill-opacity": 1]],
            ["id": "roads-line", "type": "line", "source": "citytwin", "source-layer": "roads",
             "filter": ["==", ["get", "class"], "主干路"],
             "paint": ["line-color": "#c49a2c", "line-width": ["interpolate", ["exponential", 1.6], ["zoom"], 12, 2, 16, 8, 18, 16]],
             "layout": ["line-cap": "round"]],
            ["id": "hospitals-circle", "type": "circle", "source": "citytwin", "source-layer": "hospitals",
             "paint": ["circle-color": "#c41d7f", "circle-radius": 7, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5]],
            ["id": "hospitals-label", "type": "symbol", "source": "citytwin", "source-layer": "hospitals",
             "layout": ["text-field": ["coalesce", ["get", "name"], ""], "text-size": 14, "text-offset": [0, 1.1], "text-anchor": "top"],
             "paint": ["text-color": "#000000", "text-halo-color": "#ffffff", "text-halo-width": 1.6]],
            ["id": "roads-label", "type": "symbol", "source": "citytwin", "source-layer": "roads",
             "layout": ["text-field": ["get", "name"], "text-size": 12, "symbol-placement": "line"],
             "paint": ["text-color": "#333333"]],
        ],
    ]

    /// The district around 114.80°E 30.84°N, 0.01° square.
    static let box = Envelope(minX: 114.795, minY: 30.835, maxX: 114.805, maxY: 30.845)

    static func square(_ west: Double, _ south: Double, _ east: Double, _ north: Double, _ props: [String: JSONValue]) -> Feature {
        let ring = [Position(x: west, y: south), Position(x: east, y: south), Position(x: east, y: north),
                    Position(x: west, y: north), Position(x: west, y: south)]
        return Feature(id: nil, geometry: .polygon(Polygon(exterior: ring)), properties: props)
    }

    static func point(_ x: Double, _ y: Double, _ name: String) -> Feature {
        Feature(id: nil, geometry: .point(Point(x: x, y: y)), properties: ["name": .string(name)])
    }

    /// The pixel of a lon/lat position on a plate carrée view of `box` (what EPSG:4490 draws).
    static func pixel(_ lon: Double, _ lat: Double, size: Int) -> (Int, Int) {
        (Int((lon - box.minX) / box.width * Double(size)), Int((box.maxY - lat) / box.height * Double(size)))
    }

    static func rgb(_ image: PNGImage, _ p: (Int, Int)) -> String { image.colour(x: p.0, y: p.1).hex }

    @Test("a polygon is filled with its class's colour from the style's match; nothing is drawn where no feature is")
    func fillsPolygonsByClass() throws {
        let features: [String: [Feature]] = ["land_use": [
            Self.square(114.796, 30.836, 114.799, 30.839, ["class": "居住用地"]),
            Self.square(114.801, 30.836, 114.804, 30.839, ["class": "工业用地"]),
            Self.square(114.796, 30.841, 114.799, 30.844, ["class": "未知"]),
        ]]
        let view = try MapView(bbox: Self.box, crs: .cgcs2000, width: 200, height: 200)
        let png = try MapRenderer(style: try RenderStyle(document: Self.style))
            .image(features, view: view, format: .png, background: .white)
        let image = try PNGImage(png)
        #expect(image.width == 200 && image.height == 200)
        #expect(Self.rgb(image, Self.pixel(114.7975, 30.8375, size: 200)) == "#fde9a6")
        #expect(Self.rgb(image, Self.pixel(114.8025, 30.8375, size: 200)) == "#d9c0a3")
        #expect(Self.rgb(image, Self.pixel(114.7975, 30.8425, size: 200)) == "#e8e4dc", "the match's fallback")
        #expect(Self.rgb(image, Self.pixel(114.8025, 30.8425, size: 200)) == "#ffffff", "no feature there")
    }

    @Test("a feature beyond the map's box draws nothing; one across its edge is cut at the edge")
    func drawsNothingOutsideTheBox() throws {
        let renderer = MapRenderer(style: try RenderStyle(document: Self.style))
        let outside = ["land_use": [Self.square(114.81, 30.836, 114.82, 30.839, ["class": "居住用地"])]]
        let view = try MapView(bbox: Self.box, crs: .cgcs2000, width: 100, height: 100)
        let empty = try PNGImage(renderer.image(outside, view: view, format: .png, background: nil))
        #expect(stride(from: 3, to: empty.pixels.count, by: 4).allSatisfy { empty.pixels[$0] == 0 }, "every pixel transparent")
        // Half in: the western half of the map is filled, the eastern half not.
        let across = ["land_use": [Self.square(114.79, 30.83, 114.80, 30.85, ["class": "居住用地"])]]
        let half = try PNGImage(renderer.image(across, view: view, format: .png, background: nil))
        for y in stride(from: 0, to: 100, by: 9) {
            #expect(half.colour(x: 2, y: y).hex == "#fde9a6")
            #expect(half.colour(x: 47, y: y).hex == "#fde9a6")
            #expect(half.colour(x: 52, y: y).alpha == 0)
            #expect(half.colour(x: 97, y: y).alpha == 0)
        }
    }

    @Test("a labelled point has its circle at the point and dark text pixels just below it; a second label on the same spot is left out")
    func labelsPointsWithoutOverlap() throws {
        let features = ["hospitals": [Self.point(114.800, 30.840, "第一人民医院"), Self.point(114.8001, 30.8401, "中医医院")]]
        let view = try MapView(bbox: Self.box, crs: .cgcs2000, width: 300, height: 300)
        let renderer = MapRenderer(style: try RenderStyle(document: Self.style))
        let canvas = try MapCanvas(width: 300, height: 300)
        canvas.clear(.white)
        let labels = try renderer.draw(features, view: view, on: canvas)
        #expect(labels.map(\.text) == ["第一人民医院"], "the second label overlaps the first")
        let image = try PNGImage(try canvas.png())
        #expect(Self.rgb(image, Self.pixel(114.800, 30.840, size: 300)) == "#c41d7f")
        // Text below the point (offset 1.1 em, anchored at its top): dark pixels in a box 10–40 px below.
        let (px, py) = Self.pixel(114.800, 30.840, size: 300)
        var dark = 0
        for y in (py + 10)...(py + 40) {
            for x in (px - 50)...(px + 50) where image.colour(x: x, y: y).red < 0.3 { dark += 1 }
        }
        #expect(dark > 40, "text pixels below the point: \(dark)")
    }

    @Test("a line layer's filter and zoom-interpolated width: a 主干路 is drawn, a 支路 is not; the road's name runs along it")
    func drawsFilteredLinesWithLabels() throws {
        // One street cut at a crossing, as the road layer stores it: labelled once, as one street.
        let road = Feature(id: nil, geometry: .lineString(LineString([Position(x: 114.796, y: 30.840), Position(x: 114.800, y: 30.840)])),
                           properties: ["class": "主干路", "name": "建设大道"])
        let roadOn = Feature(id: nil, geometry: .lineString(LineString([Position(x: 114.800, y: 30.840), Position(x: 114.804, y: 30.840)])),
                             properties: ["class": "主干路", "name": "建设大道"])
        let lane = Feature(id: nil, geometry: .lineString(LineString([Position(x: 114.800, y: 30.836), Position(x: 114.800, y: 30.844)])),
                           properties: ["class": "支路"])
        let view = try MapView(bbox: Self.box, crs: .cgcs2000, width: 400, height: 400)
        let canvas = try MapCanvas(width: 400, height: 400)
        canvas.clear(.white)
        let labels = try MapRenderer(style: try RenderStyle(document: Self.style)).draw(["roads": [road, roadOn, lane]], view: view, on: canvas)
        let image = try PNGImage(try canvas.png())
        // The view's zoom: 0.01° over 400 px is MapLibre's z 14.78 (512-px tiles); the width
        // there from the style's stops (exponential base 1.6 between 2 px at 12 and 8 px at 16).
        let z = view.zoom
        #expect(abs(z - log2(360 * 400 / (512 * 0.01))) < 1e-9, "zoom \(z)")
        let expected = 2 + 6 * (pow(1.6, z - 12) - 1) / (pow(1.6, 4) - 1)
        let (_, y) = Self.pixel(114.798, 30.840, size: 400)
        var covered = 0
        for row in (y - 20)...(y + 20) where image.colour(x: 60, y: row).hex == "#c49a2c" { covered += 1 }
        #expect(abs(Double(covered) - expected) <= 2, "line \(covered) px wide, style says \(expected)")
        #expect(image.colour(x: 200, y: 60).hex == "#ffffff", "the 支路 is filtered out")
        #expect(labels.map(\.text) == ["建设大道"])
        let box = try #require(labels.first?.box)
        #expect(box.width > box.height, "a horizontal road's label lies along it")
        #expect(abs((box.x + box.maxX) / 2 - 200) < 1, "at the middle of the joined street, not of a piece")
    }

    @Test("the same area in EPSG:4490 and EPSG:3857 draws the same polygon in the same place")
    func reprojects() throws {
        let features = ["land_use": [Self.square(114.797, 30.837, 114.803, 30.843, ["class": "居住用地"])]]
        let renderer = MapRenderer(style: try RenderStyle(document: Self.style))
        let geographic = try PNGImage(renderer.image(features, view: try MapView(bbox: Self.box, crs: .cgcs2000, width: 100, height: 100),
                                                     format: .png, background: .white))
        // Web Mercator metres of the same corners (spherical formulas, not PROJ).
        func merc(_ lon: Double, _ lat: Double) -> Position {
            let r = 6_378_137.0
            return Position(x: r * lon * .pi / 180, y: r * log(tan(.pi / 4 + lat * .pi / 360)))
        }
        let sw = merc(Self.box.minX, Self.box.minY), ne = merc(Self.box.maxX, Self.box.maxY)
        let mercator = try PNGImage(renderer.image(features, view: try MapView(bbox: Envelope(minX: sw.x, minY: sw.y, maxX: ne.x, maxY: ne.y),
                                                                                   crs: .webMercator, width: 100, height: 100),
                                                   format: .png, background: .white))
        var differ = 0
        for i in 0..<(100 * 100) where (geographic.pixels[i * 4] == 253) != (mercator.pixels[i * 4] == 253) { differ += 1 }
        let filled = (0..<(100 * 100)).filter { geographic.pixels[$0 * 4] == 253 }.count
        #expect(filled > 3000, "the polygon covers 36% of the map: \(filled) px")
        #expect(differ < 250, "\(differ) pixels differ between the two CRSs")
    }

    @Test("PDF and JPEG outputs: a PDF document with the label's font embedded, a JPEG GDAL reads")
    func writesPDFAndJPEG() throws {
        let features = ["hospitals": [Self.point(114.800, 30.840, "第一人民医院")]]
        let view = try MapView(bbox: Self.box, crs: .cgcs2000, width: 120, height: 120)
        let renderer = MapRenderer(style: try RenderStyle(document: Self.style))
        let pdf = try renderer.image(features, view: view, format: .pdf, background: .white)
        #expect(String(decoding: pdf.prefix(5), as: UTF8.self) == "%PDF-")
        #expect(String(decoding: pdf, as: UTF8.self).contains("WenQuanYi"), "the label font is embedded")
        let jpeg = try renderer.image(features, view: view, format: .jpeg, background: .white)
        #expect(jpeg.prefix(3) == [0xFF, 0xD8, 0xFF])
        #expect(MapImageFormat(mediaType: "image/png; mode=8bit") == .png)
        #expect(MapImageFormat(mediaType: "image/gif") == nil)
    }

    @Test("expressions the style writes evaluate as MapLibre's; an unknown operator or colour is a style error naming it")
    func evaluatesExpressions() throws {
        let ctx = ExpressionContext(properties: ["diameter_mm": 450, "occupied": false], zoom: 14)
        let width: JSONValue = ["interpolate", ["linear"], ["coalesce", ["get", "diameter_mm"], 300], 300, 1, 800, 2.5, 2000, 5]
        #expect(try StyleExpression.evaluate(width, ctx).doubleValue == 1 + 1.5 * 150 / 500)
        let step: JSONValue = ["step", ["get", "diameter_mm"], "a", 300, "b", 500, "c"]
        #expect(try StyleExpression.evaluate(step, ctx) == "b")
        let berth: JSONValue = ["match", ["to-string", ["get", "occupied"]], "false", "#389e0d", "true", "#cf1322", "#8c8c8c"]
        #expect(try StyleExpression.evaluate(berth, ctx) == "#389e0d")
        #expect(try StyleExpression.evaluate(["max", 1.5, ["*", 2, 3]], ctx).doubleValue == 6)
        #expect(throws: MapRenderingError.self) { try StyleExpression.evaluate(["distance", ["get", "x"]], ctx) }
        #expect(throws: MapRenderingError.self) { try MapColour(parsing: "#12345") }
        #expect(try MapColour(parsing: "rgba(255, 0, 0, 0.5)") == MapColour(red: 1, green: 0, blue: 0, alpha: 0.5))
        // Hex colours, read from their bytes, as the general path (padded, upper case) reads them.
        for (text, padded) in [("#3a7", " #33AA77 "), ("#3a7c", "#33AA77CC "), ("#389e0d", " #389E0D"), ("#389e0d80", "#389E0D80 ")] {
            #expect(try MapColour(parsing: text) == MapColour(parsing: padded), "\(text)")
        }
        #expect(try MapColour(parsing: "#389e0d80") == MapColour(red: 0x38 / 255, green: 0x9e / 255, blue: 0x0d / 255, alpha: 0x80 / 255))
        for bad in ["#", "#12", "#1234567", "#123456789", "#12345g"] {
            #expect(throws: MapRenderingError.self, "\(bad)") { try MapColour(parsing: bad) }
        }
    }
}
