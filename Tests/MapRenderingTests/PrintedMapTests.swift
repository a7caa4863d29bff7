import Foundation
import GeoCore
import MapRendering
import Testing

/// The parts of a printed page checked against independent formulas: true north against the
/// Gauss-Krüger meridian convergence, the scale bar against the ellipsoid's parallel radius and
/// the grid's scale factor, the page's layout and a portrait page by pixels.
@Suite("Printed maps: north arrow, scale bar, layout")
struct PrintedMapTests {
    /// Hankou, 30.5928°N 114.3055°E, in EPSG:4547 (CM 114°E): N 3,385,869.45 m, E 529,299.86 m.
    static let hankou = (lon: 114.3055, lat: 30.5928, easting: 529_299.86, northing: 3_385_869.45)

    static func view(_ crs: CoordinateReferenceSystem, centre: (x: Double, y: Double), halfWidth: Double) throws -> MapView {
        try MapView(bbox: Envelope(minX: centre.x - halfWidth, minY: centre.y - halfWidth, maxX: centre.x + halfWidth, maxY: centre.y + halfWidth),
                    crs: crs, width: 400, height: 400)
    }

    @Test("north leans left of grid up by the meridian convergence (λ − λ₀)·sin φ east of the zone's meridian; up in Web Mercator and lon/lat")
    func trueNorth() throws {
        let gk = try Self.view(.districtMetric, centre: (Self.hankou.easting, Self.hankou.northing), halfWidth: 1000)
        let convergence = (Self.hankou.lon - 114) * sin(Self.hankou.lat * .pi / 180)
        let arrow = try NorthArrow(view: gk)
        #expect(abs(arrow.degrees + convergence) < 1e-3, "\(arrow.degrees)° against −\(convergence)°")
        let west = try Self.view(.districtMetric, centre: (470_000, Self.hankou.northing), halfWidth: 1000)
        #expect(try NorthArrow(view: west).degrees > 0.1, "west of the meridian north leans right")
        let mercator = try Self.view(.webMercator, centre: (12_724_900, 3_579_900), halfWidth: 1000)
        #expect(abs(try NorthArrow(view: mercator).degrees) < 1e-6)
        let lonLat = try Self.view(.cgcs2000, centre: (Self.hankou.lon, Self.hankou.lat), halfWidth: 0.01)
        #expect(abs(try NorthArrow(view: lonLat).degrees) < 1e-6)
    }

    @Test("metres per unit at the centre: Web Mercator by the parallel's radius N·cos φ, Gauss-Krüger by the grid's scale factor")
    func groundScale() throws {
        // Web Mercator: x = a·λ, so a unit is N·cos φ / a metres on the ground along the parallel.
        let a = 6_378_137.0, e2 = 0.00669438002290
        let y = 3_579_900.0
        let φ = 2 * atan(exp(y / a)) - .pi / 2
        let mercator = try Self.view(.webMercator, centre: (12_724_900, y), halfWidth: 1000)
        let expected = 2000.0 / 400 * (a / sqrt(1 - e2 * sin(φ) * sin(φ)) * cos(φ)) / a
        let bar = try ScaleBar(view: mercator, maximumLength: 150)
        #expect(abs(bar.metresPerUnit / expected - 1) < 1e-4, "\(bar.metresPerUnit) against \(expected)")
        // Gauss-Krüger (k₀ = 1): a grid metre is 1 / (1 + E'²/2R²) ground metres, E' from the meridian.
        let gk = try Self.view(.districtMetric, centre: (Self.hankou.easting, Self.hankou.northing), halfWidth: 1000)
        let offset = Self.hankou.easting - 500_000, r = 6_371_000.0
        let gkExpected = 2000.0 / 400 / (1 + offset * offset / (2 * r * r))
        #expect(abs(try ScaleBar(view: gk, maximumLength: 150).metresPerUnit / gkExpected - 1) < 1e-5)
    }

    @Test("the bar is the longest round length (1, 2, 5 × 10ⁿ m) that fits; its text in m or km; the fraction to three figures")
    func roundLengths() {
        let km = ScaleBar(metresPerUnit: 7.3, maximumLength: 150)
        #expect(km.metres == 1000 && abs(km.length - 1000 / 7.3) < 1e-9)
        #expect(ScaleBar.text(metres: km.metres) == "1 km" && ScaleBar.text(metres: 2500) == "2.5 km" && ScaleBar.text(metres: 200) == "200 m")
        #expect(ScaleBar(metresPerUnit: 3, maximumLength: 150).metres == 200)
        #expect(ScaleBar(metresPerUnit: 0.04, maximumLength: 150).metres == 5)
        // 7.3 m per point (0.3528 mm): 1 : 20,694 → 20,700.
        #expect(km.denominator == 20_700)
    }

    @Test("a printed legend explains what the map draws at its zoom: a class shown from zoom 13 has no entry at zoom 12")
    func legendAtZoom() throws {
        let style = try RenderStyle(document: ["version": 8, "layers": [
            ["id": "roads-main", "type": "line", "source-layer": "roads", "paint": ["line-color": "#ffd66b"], "metadata": ["citytwin:legendTitle": "主干路"]],
            ["id": "roads-minor", "type": "line", "source-layer": "roads", "minzoom": 13, "paint": ["line-color": "#ffffff"],
             "metadata": ["citytwin:legendTitle": "支路"]],
        ]])
        let legend = MapLegend(collection: "roads", title: "道路", style: style)
        #expect(legend.entries.map(\.label) == ["主干路", "支路"])
        #expect(legend.drawn(atZoom: 12).entries.map(\.label) == ["主干路"])
        #expect(legend.drawn(atZoom: 13).entries.map(\.label) == ["主干路", "支路"])
    }

    @Test("a printed legend draws its swatches on the map's paper colour: a white street's swatch reads on white paper")
    func legendOnPaper() throws {
        let style = try RenderStyle(document: ["version": 8, "layers": [
            ["id": "background", "type": "background", "paint": ["background-color": "#e0d8c8"]],
            ["id": "roads-minor", "type": "line", "source-layer": "roads", "paint": ["line-color": "#ffffff", "line-width": 4],
             "metadata": ["citytwin:legendTitle": "支路"]],
        ]])
        let page = try PrintedMap(title: "道路", paper: PrintPaper(.a4, .landscape), bbox: Envelope(minX: 12_724_000, minY: 3_579_500, maxX: 12_726_000, maxY: 3_580_500),
                                  crs: .webMercator, crsName: "EPSG:3857", style: style, layers: [.init(id: "roads", title: "道路")], sources: [],
                                  madeFor: "公开", printedAt: Date(timeIntervalSince1970: 1_780_000_000))
        let image = try PNGImage(page.render(["roads": []], format: .png, dpi: 72))
        let column = page.layout.legend
        var paper = 0
        for y in Int(column.y)..<Int(column.maxY) {
            for x in Int(column.x)..<Int(column.maxX) where image.colour(x: x, y: y).hex == "#e0d8c8" { paper += 1 }
        }
        // The swatch (15 × 10 pt at the legend's scale) less the white street across it.
        #expect(paper > 40, "the swatch's paper: \(paper) px")
    }

    @Test("pages in points: A4 595 × 842, A3 842 × 1191; title, frame, legend and notes inside the margins, apart")
    func layout() {
        #expect(PrintPaper(.a4, .portrait).points == (595, 842) && PrintPaper(.a3, .landscape).points == (1191, 842))
        #expect(PrintPaper(.a4, .portrait).pixels(dpi: 300) == (2480, 3508))
        for size in PrintPaper.Size.allCases {
            for orientation in PrintPaper.Orientation.allCases {
                let paper = PrintPaper(size, orientation)
                let l = PrintLayout(paper: paper), m = PrintPaper.margin
                let page = paper.points
                for box in [l.title, l.frame, l.legend, l.notes] {
                    #expect(box.x >= m - 1e-9 && box.y >= m - 1e-9 && box.maxX <= Double(page.width) - m + 1e-9 && box.maxY <= Double(page.height) - m + 1e-9)
                }
                #expect(l.title.maxY < l.frame.y && l.frame.maxX < l.legend.x && l.frame.maxY < l.notes.y && l.legend.maxY < l.notes.y)
                #expect(l.frame.width == l.frame.width.rounded() && l.frame.height == l.frame.height.rounded())
            }
        }
    }

    @Test("a portrait PNG page: its size at the dpi, the box widened to the frame, a polygon filled inside the frame and cut at it")
    func portraitPage() throws {
        let style = try RenderStyle(document: ["version": 8, "layers": [
            ["id": "parks-fill", "type": "fill", "source-layer": "parks", "paint": ["fill-color": "#00ff00"]],
        ]])
        let paper = PrintPaper(.a4, .portrait)
        // A box twice as wide as high; the frame is taller than wide, so the box grows north and south.
        let box = Envelope(minX: 12_724_000, minY: 3_579_500, maxX: 12_726_000, maxY: 3_580_500)
        let page = try PrintedMap(title: "公园", paper: paper, bbox: box, crs: .webMercator, crsName: "EPSG:3857", style: style,
                                  layers: [.init(id: "parks", title: "公园")], sources: ["公园（园林局；注明数据来源）"], madeFor: "公开",
                                  printedAt: Date(timeIntervalSince1970: 1_780_000_000))
        #expect(abs(page.view.bbox.width - 2000) < 1e-6 && page.view.bbox.height > 2000)
        #expect(abs(page.view.bbox.width / page.view.bbox.height - page.layout.frame.width / page.layout.frame.height) < 1e-9)
        // A park over the box's whole west half and far beyond it to the west, north and south.
        let park = Feature(id: .string("p"), geometry: .polygon(Polygon(exterior: [
            Position(x: 114.0, y: 30.0), Position(x: 114.3106, y: 30.0), Position(x: 114.3106, y: 31.0), Position(x: 114.0, y: 31.0), Position(x: 114.0, y: 30.0),
        ])), properties: [:])
        let image = try PNGImage(page.render(["parks": [park]], format: .png, dpi: 100))
        #expect(image.width == 827 && image.height == 1169)
        let s = Double(image.width) / Double(paper.points.width), f = page.layout.frame
        #expect(image.colour(x: Int((f.x + 5) * s), y: Int((f.y + f.height / 2) * s)).hex == "#00ff00", "filled inside the frame")
        var outside = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let px = Double(x) / s, py = Double(y) / s
                let inFrame = px >= f.x - 1 && px <= f.maxX + 1 && py >= f.y - 1 && py <= f.maxY + 1
                let inLegend = px >= page.layout.legend.x && py >= page.layout.legend.y && py <= page.layout.legend.maxY
                if !inFrame && !inLegend && image.colour(x: x, y: y).hex == "#00ff00" { outside += 1 }
            }
        }
        #expect(outside == 0, "nothing of the park outside the frame but the legend's swatch")
    }
}
