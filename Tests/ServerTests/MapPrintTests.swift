import Foundation
import GeoCore
import HummingbirdTesting
import MapRendering
import Testing
import TwinStore

/// Printable maps (issue 55 §5): the page read back by pixels — a PDF through poppler's
/// pdftoppm, a PNG as served — for its title, legend and scale bar, the style's fill inside a
/// known lake, nothing of the map outside its frame, the scale bar's length against the box's
/// ground width, a flood run's depth classes, and exactly the restricted layer added for the
/// department that may read it.
@Suite("Printable maps", .serialized)
struct MapPrintTests {
    /// The box printed (CRS84): the shelters' grid (114.31–114.315°E, 30.60–30.603°N), the lake
    /// and the well (114.32°E 30.61°N).
    static let box = (west: 114.305, south: 30.595, east: 114.325, north: 30.615)
    static var bbox: String { "\(box.west),\(box.south),\(box.east),\(box.north)" }
    /// 东湖 (a square lake) inside the box; 西湖 crosses the frame's left, top and bottom edges.
    static let lake = (west: 114.306, south: 30.606, east: 114.309, north: 30.609)
    static let lakeColour = "#a9d3f2"

    static let lakesJSON = """
        {"id": "lakes", "title": {"zh": "湖泊", "en": "Lakes"}, "category": "资源调查", "owner": "水务和湖泊局", "format": "vector",
         "updateFrequency": "yearly", "sharing": {"type": "open", "method": "api", "requirements": "注明数据来源"},
         "geometryType": "Polygon", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}
        """

    static func square(_ w: Double, _ s: Double, _ e: Double, _ n: Double) -> Geometry {
        .polygon(Polygon(exterior: [Position(x: w, y: s), Position(x: e, y: s), Position(x: e, y: n), Position(x: w, y: n), Position(x: w, y: s)]))
    }

    /// The fixture's API with the lakes layer added.
    static func run(_ body: @Sendable (WritableAPI) async throws -> Void) async throws {
        try await WritableAPI.run { api in
            try await api.store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(lakesJSON.utf8)))
            try await api.store.insert(layer: "lakes", features: [
                Feature(id: .string("east"), geometry: square(lake.west, lake.south, lake.east, lake.north), properties: ["name": "东湖"]),
                Feature(id: .string("west"), geometry: square(114.28, 30.58, 114.30, 30.63), properties: ["name": "西湖"]),
            ], by: .admin, at: nil)
            try await body(api)
        }
    }

    static let layout = PrintLayout(paper: PrintPaper(.a4, .landscape))

    /// Checks what every page must show: ink in the title, legend and notes; the lake's fill;
    /// the map inside its frame; a scale bar of a round ground length.
    static func expectPage(_ page: MapPrintPage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let layout = Self.layout
        #expect(page.ink(in: layout.title) > 50, "the title is printed", sourceLocation: sourceLocation)
        #expect(page.ink(in: layout.legend) > 200, "the legend is printed", sourceLocation: sourceLocation)
        #expect(page.ink(in: layout.notes) > 200, "the notes and scale bar are printed", sourceLocation: sourceLocation)
        let map = PrintedMercator(bbox: box, frame: layout.frame)
        // Inside 东湖, clear of its outline and of its label at the centroid.
        let inside = map.point(lake.west + 0.0004, lake.north - 0.0004)
        #expect(try page.colour(inside.x, inside.y).near(lakeColour), "the lake is filled with the style's colour: \(page.colour(inside.x, inside.y))",
                sourceLocation: sourceLocation)
        // 西湖 is cut at the frame: no lake colour anywhere outside the frame but in the legend's swatch.
        let frame = layout.frame
        let outside = page.pixels(in: PixelBox(x: 0, y: 0, width: layout.legend.x - 1, height: frame.y - 1))
            + page.pixels(in: PixelBox(x: 0, y: frame.maxY + 1, width: layout.legend.x - 1, height: 1000))
            + page.pixels(in: PixelBox(x: 0, y: 0, width: frame.x - 1, height: 1000))
        let spilled = try outside.filter { try $0.colour.near(lakeColour, tolerance: 20) }
        #expect(spilled.isEmpty, "no lake outside the frame: \(spilled.prefix(3).map { ($0.x, $0.y) })", sourceLocation: sourceLocation)
        #expect(try page.colour(frame.x + 3, frame.y + frame.height / 2).near(lakeColour), "西湖 reaches the frame's left edge",
                sourceLocation: sourceLocation)
        // The scale bar (left of the notes' text): a round ground length, its length true to the box.
        let barZone = PixelBox(x: layout.notes.x, y: layout.notes.y + 8, width: 180, height: 20)
        let length = page.longestDarkRun(in: barZone)
        let metres = length * map.metresPerPoint
        let decade = pow(10, floor(log10(metres)))
        let nearest = [1.0, 2, 5, 10].map { $0 * decade }.min { abs($0 - metres) < abs($1 - metres) }!
        #expect(abs(metres - nearest) / nearest < 0.02, "the bar (\(length) pt = \(metres) m) is a round length, \(nearest) m",
                sourceLocation: sourceLocation)
        #expect(length > 55 && length <= 151, "the bar is 55…150 pt long: \(length)", sourceLocation: sourceLocation)
    }

    @Test("a PDF page through pdftoppm: title, legend and scale bar inked; the lake filled; nothing outside the frame; the bar true to the box")
    func pdfPage() async throws {
        try await Self.run { api in
            let r = try await api.client.get("/map/print?bbox=\(Self.bbox)&layers=lakes,shelters&title=%E6%B1%89%E5%8F%A3%E9%81%BF%E9%9A%BE%E5%9C%BA%E6%89%80&format=pdf")
            #expect(r.status == .ok && r.contentType == "application/pdf", "\(r.text.prefix(300))")
            let bytes = Array(buffer: r.body)
            #expect(bytes.starts(with: Array("%PDF-".utf8)))
            let page = try MapPrintPage(pdf: bytes)
            #expect(page.image.width == 842 * 2 && page.image.height == 595 * 2, "A4 landscape: 842 × 595 pt")
            try Self.expectPage(page)
            // A shelter's circle at its place.
            let s00 = PrintedMercator(bbox: Self.box, frame: Self.layout.frame).point(114.31, 30.60)
            #expect(try page.colour(s00.x, s00.y).near("#389e0d", tolerance: 12), "shelter s00's circle: \(page.colour(s00.x, s00.y))")
        }
    }

    @Test("a PNG page at 100 dpi is the same page: its size in pixels, and the same checks")
    func pngPage() async throws {
        try await Self.run { api in
            let r = try await api.client.get("/map/print?bbox=\(Self.bbox)&layers=lakes,shelters&format=png&dpi=100")
            #expect(r.status == .ok && r.contentType == "image/png")
            let page = try MapPrintPage(png: Array(buffer: r.body), pixelsPerPoint: 100.0 / 72)
            #expect(page.image.width == 1169 && page.image.height == 827, "A4 landscape at 100 dpi: 297 × 210 mm")
            try Self.expectPage(page)
        }
    }

    @Test("the department that may read the wells gets exactly the wells added: the map differs only around the well, and the legend and notes")
    func restrictedLayer() async throws {
        try await Self.run { api in
            let refused = try await api.client.get("/map/print?bbox=\(Self.bbox)&layers=lakes,shelters,wells&format=png&dpi=72")
            // Not shared: to the public the wells look missing, as everywhere.
            try expectProblem(refused, status: 404, type: "collection-not-found", naming: "wells")
            let anonymous = try await api.client.get("/map/print?bbox=\(Self.bbox)&layers=lakes,shelters&format=png&dpi=72")
            let water = try await api.client.get("/map/print?bbox=\(Self.bbox)&layers=lakes,shelters,wells&format=png&dpi=72",
                                                 headers: WritableAPI.bearer(api.token("水务局")))
            #expect(anonymous.status == .ok && water.status == .ok)
            let a = try MapPrintPage(png: Array(buffer: anonymous.body), pixelsPerPoint: 1)
            let w = try MapPrintPage(png: Array(buffer: water.body), pixelsPerPoint: 1)
            let frame = Self.layout.frame
            let well = PrintedMercator(bbox: Self.box, frame: frame).point(114.32, 30.61)
            var differing = 0, far: [(Int, Int)] = []
            for (p, q) in zip(a.pixels(in: frame), w.pixels(in: frame)) where p.colour != q.colour {
                differing += 1
                if hypot(Double(p.x) - well.x, Double(p.y) - well.y) > 20 { far.append((p.x, p.y)) }
            }
            #expect(differing > 10, "the well is drawn for its department")
            #expect(far.isEmpty, "the maps differ only around the well (\(well)): \(far.prefix(5))")
            #expect(zip(a.pixels(in: Self.layout.legend), w.pixels(in: Self.layout.legend)).contains { $0.colour != $1.colour }, "the wells' legend")
            #expect(a.pixels(in: Self.layout.title).map(\.colour) == w.pixels(in: Self.layout.title).map(\.colour), "the same title")
        }
    }

    @Test("bad input is a problem naming the parameter and what it allows")
    func badInput() async throws {
        try await Self.run { api in
            let base = "/map/print?bbox=\(Self.bbox)&layers=lakes"
            try expectProblem(try await api.client.get("/map/print?layers=lakes"), status: 400, type: "invalid-parameter", naming: "bbox")
            try expectProblem(try await api.client.get(base + "&format=jpeg"), status: 400, type: "invalid-parameter", naming: "pdf or png")
            try expectProblem(try await api.client.get(base + "&format=png&dpi=1200"), status: 400, type: "invalid-parameter", naming: "72…300")
            try expectProblem(try await api.client.get(base + "&dpi=150"), status: 400, type: "invalid-parameter", naming: "dpi")
            try expectProblem(try await api.client.get(base + "&paper=A5"), status: 400, type: "invalid-parameter", naming: "A4, A3")
            try expectProblem(try await api.client.get(base + "&orientation=sideways"), status: 400, type: "invalid-parameter", naming: "portrait, landscape")
            try expectProblem(try await api.client.get(base + "&title=" + String(repeating: "x", count: 61)), status: 400, type: "invalid-parameter",
                              naming: "1…60")
            try expectProblem(try await api.client.get("/map/print?bbox=\(Self.bbox)"), status: 400, type: "invalid-parameter", naming: "layers")
            try expectProblem(try await api.client.get(base + ",lakes"), status: 400, type: "invalid-parameter", naming: "twice")
            try expectProblem(try await api.client.get(base + "&run=no%20run"), status: 400, type: "invalid-parameter", naming: "run")
            try expectProblem(try await api.client.get(base + "&crs=EPSG:999999"), status: 400, type: "invalid-crs", naming: "crs")
            try expectProblem(try await api.client.get("/map/print?bbox=114.3,30.6,114.3,30.7&layers=lakes"), status: 400, type: "invalid-parameter",
                              naming: "bbox")
            // A box in Beijing: nothing of the city's data there, so no empty page under its legend (issue 77 §7).
            try expectProblem(try await api.client.get("/map/print?bbox=116.30,39.85,116.45,39.95&layers=lakes"), status: 400,
                              type: "invalid-parameter", naming: "outside the city's extent")
            let missing = try await api.client.get(base + ",nowhere")
            #expect(missing.status == .notFound)
        }
    }
}
