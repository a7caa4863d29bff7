import Foundation
import GeoCore

/// A map printed on a page (issue 55 §5): a title, the map frame drawn by `MapRenderer` from the
/// layers' own style, a legend column (north arrow to true north, then each drawn layer's
/// `MapLegend`, its classes in Chinese), and a notes band with a scale bar measured on the
/// ground (`ScaleBar`), the representative fraction, the date and time, the CRS, the data's
/// sources (titles, owners, terms of use) and whom the map was made for. The page is laid out
/// in points (`PrintLayout`); a PDF is that page, vector, fonts embedded; a PNG the same page
/// at `dpi`.
///
/// The requested box is widened (never cut) to the frame's proportions about its centre, as
/// print services do, so everything asked for is on the page.
public struct PrintedMap: Sendable {
    /// A layer as the legend and the sources name it.
    public struct Layer: Sendable {
        public let id: String
        public let title: String
        public init(id: String, title: String) {
            self.id = id
            self.title = title
        }
    }

    public let title: String
    public let layout: PrintLayout
    /// The map frame's view: the box (fitted to the frame) in the map's CRS, one unit a point.
    public let view: MapView
    public let style: RenderStyle
    public let layers: [Layer]
    /// One line per layer: "title（owner；terms）".
    public let sources: [String]
    /// Whom the map was made for: the caller's department, or 公开 for the public.
    public let madeFor: String
    public let printedAt: Date
    /// The CRS as the notes name it (`EPSG:3857`).
    public let crsName: String

    /// The longest title, in characters.
    public static let maximumTitleLength = 60

    /// - Parameters:
    ///   - bbox: the area to show, in `crs` (internal order: x east).
    /// - Throws: `MapRenderingError` `.request` for an empty box; `GeometryError` when PROJ cannot
    ///   relate `crs` to the storage CRS.
    public init(title: String, paper: PrintPaper, bbox: Envelope, crs: CoordinateReferenceSystem, crsName: String, style: RenderStyle,
                layers: [Layer], sources: [String], madeFor: String, printedAt: Date) throws {
        guard bbox.width > 0, bbox.height > 0 else {
            throw MapRenderingError(.request, "the map's box \(bbox) is empty: its minimum must be below its maximum on both axes")
        }
        self.title = title
        layout = PrintLayout(paper: paper)
        let frame = layout.frame
        // Widen the box to the frame's proportions about its centre.
        let aspect = frame.width / frame.height
        var box = bbox
        if box.width / box.height < aspect {
            let w = box.height * aspect, cx = (box.minX + box.maxX) / 2
            box = Envelope(minX: cx - w / 2, minY: box.minY, maxX: cx + w / 2, maxY: box.maxY)
        } else {
            let h = box.width / aspect, cy = (box.minY + box.maxY) / 2
            box = Envelope(minX: box.minX, minY: cy - h / 2, maxX: box.maxX, maxY: cy + h / 2)
        }
        view = try MapView(bbox: box, crs: crs, width: Int(frame.width), height: Int(frame.height))
        self.crsName = crsName
        self.style = style
        self.layers = layers
        self.sources = sources
        self.madeFor = madeFor
        self.printedAt = printedAt
    }

    /// The page as PDF (vector; `dpi` unused) or PNG at `dpi` pixels per inch.
    /// - Throws: `MapRenderingError` `.request` for JPEG (pages are PDF or PNG), `.style` for a
    ///   style value the renderer cannot read, `.drawing` when cairo fails.
    public func render(_ features: [String: [Feature]], format: MapImageFormat, dpi: Double = 150) throws -> [UInt8] {
        let (width, height) = layout.paper.points
        let canvas: MapCanvas
        let scale: Double
        switch format {
        case .pdf:
            canvas = try MapCanvas(width: width, height: height, kind: .pdf)
            scale = 1
        case .png:
            let pixels = layout.paper.pixels(dpi: dpi)
            canvas = try MapCanvas(width: pixels.width, height: pixels.height)
            scale = Double(pixels.width) / Double(width)
        case .jpeg:
            throw MapRenderingError(.request, "a printed map is a PDF or a PNG, not a JPEG")
        }
        canvas.clear(.white)
        try canvas.transformed(scale: scale) {
            try drawPage(features, on: canvas)
        }
        return try format.encode(canvas)
    }

    /// The page in points on `canvas`.
    func drawPage(_ features: [String: [Feature]], on canvas: MapCanvas) throws {
        drawTitle(on: canvas)
        let frame = layout.frame
        try canvas.clipped(to: frame) {
            try canvas.transformed(x: frame.x, y: frame.y) {
                if let paper = try background() {
                    canvas.rectangle(PixelBox(x: 0, y: 0, width: frame.width, height: frame.height))
                    canvas.fill(paper)
                }
                try MapRenderer(style: style).draw(features, view: view, on: canvas)
            }
        }
        canvas.rectangle(frame)
        canvas.stroke(.black, width: 0.8)
        try drawLegend(on: canvas)
        try drawNotes(on: canvas)
    }

    /// The style's background colour (the web map's paper), nil without a background layer.
    func background() throws -> MapColour? {
        guard let layer = style.layers.first(where: { $0.kind == .background }) else { return nil }
        return try layer.colour("background-color", ExpressionContext(properties: [:], geometryType: "Point", zoom: view.zoom))
    }

    private func drawTitle(on canvas: MapCanvas) {
        let box = layout.title
        // The largest of three sizes at which the title fits its band (it wraps at the band's width).
        var text = TextLayout(title, size: 18, maxWidth: box.width, on: canvas)
        for size in [14.0, 11] where text.height > box.height {
            text = TextLayout(title, size: size, maxWidth: box.width, on: canvas)
        }
        canvas.clipped(to: box) {
            text.draw(centreX: box.x + box.width / 2, centreY: box.y + box.height / 2, colour: .black, halo: nil, haloWidth: 0)
        }
    }

    /// The legends of the layers drawn (their entries drawn at the map's zoom), in the layers'
    /// order, at 0.62 of GetLegendGraphic's size.
    public static let legendScale = 0.62

    private func drawLegend(on canvas: MapCanvas) throws {
        let column = layout.legend
        try NorthArrow(view: view).draw(on: canvas, centreX: column.x + 24, centreY: column.y + 26, size: 48)
        let heading = TextLayout("图  例", size: 11, maxWidth: nil, on: canvas)
        var y = column.y + 58
        heading.draw(left: column.x + 4, top: y, colour: .black)
        y += heading.height + 2
        let paper = try background()
        let legends = layers.map { MapLegend(collection: $0.id, title: $0.title, style: style).drawn(atZoom: view.zoom) }.filter { !$0.entries.isEmpty }
        try canvas.clipped(to: column) {
            for (n, legend) in legends.enumerated() {
                let height = legend.height(scale: Self.legendScale)
                guard y + height <= column.maxY - 12 || n == legends.count - 1 && y + height <= column.maxY else {
                    let more = TextLayout("……另有 \(legends.count - n) 个图层的图例未能排下", size: 7, maxWidth: column.width, leftAligned: true, on: canvas)
                    more.draw(left: column.x + 4, top: y, colour: .black)
                    break
                }
                try legend.draw(on: canvas, x: column.x, y: y, scale: Self.legendScale, swatchBackground: paper)
                y += height
            }
        }
    }

    /// The notes' date: Beijing time, to the minute.
    var printedAtText: String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "zh_CN")
        f.timeZone = TimeZone(identifier: "Asia/Shanghai")
        f.dateFormat = "yyyy年M月d日 HH:mm"
        return f.string(from: printedAt) + "（北京时间）"
    }

    private func drawNotes(on canvas: MapCanvas) throws {
        let box = layout.notes
        let bar = try ScaleBar(view: view, maximumLength: 150)
        let fraction = TextLayout("比例尺 1 : \(Self.grouped(bar.denominator))", size: 8, maxWidth: nil, on: canvas)
        fraction.draw(left: box.x, top: box.y + 2, colour: .black)
        bar.draw(on: canvas, x: box.x + 4, y: box.y + 6 + fraction.height, height: 5, textSize: 7)
        let left = box.x + 190
        let lines = ["制图时间：\(printedAtText)　　坐标系：\(crsName)　　制图单位：\(madeFor)",
                     "数据来源：" + (sources.isEmpty ? "无" : sources.joined(separator: "；"))]
        let notes = TextLayout(lines.joined(separator: "\n"), size: 7.5, maxWidth: box.maxX - left, leftAligned: true, on: canvas)
        canvas.clipped(to: PixelBox(x: left, y: box.y, width: box.maxX - left, height: box.height)) {
            notes.draw(left: left, top: box.y + 2, colour: .black)
        }
    }

    /// 25000 → "25,000".
    static func grouped(_ n: Double) -> String {
        let digits = String(Int(n.rounded()))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }
}
