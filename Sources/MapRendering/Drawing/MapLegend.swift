import Foundation
import GeoCore

/// The legend of one collection drawn from its style layers, as WMS GetLegendGraphic answers
/// it (the SLD-WMS extension GeoServer and MapServer serve): a title, then a swatch per entry —
/// a square for fills, a stroke for lines, a dot for circles — drawn by the map's own
/// `MapRenderer` at zoom 16, so legend and map cannot disagree.
///
/// Entries follow the style as the web map's legend reads it (WebMap/MapStyle.swift): a layer
/// whose colour is a `match` on a property gets an entry per value (its text from
/// `citytwin:labels` when given), any other layer one entry titled by `citytwin:legendTitle`
/// or the collection's title; layers with `citytwin:legend: false` (casings, labels) none.
public struct MapLegend: Sendable {
    public struct Entry: Sendable {
        public let layer: StyleLayer
        public let properties: [String: JSONValue]
        public let label: String
    }

    public let title: String
    public private(set) var entries: [Entry]
    /// The zoom a swatch is drawn at (the style's widths are written for zoom 16).
    public var zoom = 16.0

    /// The legend of `collection` titled `title` from `style`.
    public init(collection: String, title: String, style: RenderStyle) {
        self.title = title
        var entries: [Entry] = []
        for layer in style.layers(for: collection) where [.fill, .line, .circle].contains(layer.kind) {
            if layer.metadata["citytwin:legend"]?.boolValue == false { continue }
            let own = layer.metadata["citytwin:legendTitle"]?.stringValue ?? title
            let paint = layer.kind == .fill ? "fill-color" : layer.kind == .line ? "line-color" : "circle-color"
            if case .array(let e)? = layer.paint[paint], e.first == "match", e.count >= 5,
               case .array(let input) = e[1], input.first == "get" || input.first == "to-string",
               let property = Self.property(input) {
                let labels = layer.metadata["citytwin:labels"]?.objectValue ?? [:]
                var i = 2
                while i + 1 < e.count {
                    for value in e[i].arrayValue ?? [e[i]] {
                        let text = StyleExpression.text(value)
                        entries.append(Entry(layer: layer, properties: [property: Self.typed(value)], label: labels[text]?.stringValue ?? text))
                    }
                    i += 2
                }
                continue
            }
            entries.append(Entry(layer: layer, properties: [:], label: own))
        }
        self.entries = entries
    }

    /// The legend of what a map at `zoom` draws: the entries of style layers shown at that zoom
    /// (a road class that appears from zoom 13 is not explained on a zoom 12 map).
    public func drawn(atZoom zoom: Double) -> MapLegend {
        var legend = self
        legend.entries = entries.filter { $0.layer.drawn(atZoom: zoom) }
        return legend
    }

    /// The property a `get` (or a `to-string` of one) reads.
    private static func property(_ input: [JSONValue]) -> String? {
        if input.first == "get" { return input.count > 1 ? input[1].stringValue : nil }
        if input.count > 1, case .array(let inner) = input[1] { return property(inner) }
        return nil
    }

    /// A `match` label as the property value it stands for ("false" for a `to-string` of a boolean).
    private static func typed(_ v: JSONValue) -> JSONValue {
        switch v.stringValue {
        case "true": .bool(true)
        case "false": .bool(false)
        default: v
        }
    }

    static let row = 22.0, swatch = (width: 24.0, height: 16.0), margin = 6.0, titleSize = 13.0, textSize = 12.0

    /// The legend's size in pixels at `scale` (1: GetLegendGraphic's): as wide as its longest
    /// text, a row per entry under the title.
    public func size(scale: Double = 1) throws -> (width: Int, height: Int) {
        let scratch = try MapCanvas(width: 1, height: 1)
        let titleWidth = TextLayout(title, size: Self.titleSize * scale, maxWidth: nil, on: scratch).width
        let labelWidth = entries.map { TextLayout($0.label, size: Self.textSize * scale, maxWidth: nil, on: scratch).width }.max() ?? 0
        let width = Int(ceil(max(titleWidth, (Self.swatch.width + 8) * scale + labelWidth) + 2 * Self.margin * scale))
        return (max(width, Int(40 * scale)), Int(ceil(height(scale: scale))))
    }

    /// The legend's height at `scale`: margins, the title row and a row per entry.
    public func height(scale: Double = 1) -> Double {
        (Self.margin * 2 + Self.row + Double(entries.count) * Self.row) * scale
    }

    /// The legend as an image in `format` on `background` (nil: transparent).
    public func image(format: MapImageFormat, background: MapColour?) throws -> [UInt8] {
        let (width, height) = try size()
        let canvas = try MapCanvas(width: width, height: height, kind: format == .pdf ? .pdf : .raster)
        if let background { canvas.clear(background) } else if format == .jpeg { canvas.clear(.white) }
        try draw(on: canvas, x: 0, y: 0)
        return try format.encode(canvas)
    }

    /// Draws the legend with its top-left corner at (`x`, `y`), every size times `scale` (a
    /// printed page's legend column draws it smaller than GetLegendGraphic), each swatch on
    /// `swatchBackground` when given (a printed legend's swatches on the map's paper colour, so a
    /// white street reads on white paper as it does on the map).
    public func draw(on canvas: MapCanvas, x: Double, y: Double, scale: Double = 1, swatchBackground: MapColour? = nil) throws {
        let margin = Self.margin * scale, row = Self.row * scale
        let heading = TextLayout(title, size: Self.titleSize * scale, maxWidth: nil, on: canvas)
        heading.draw(centreX: x + margin + heading.width / 2, centreY: y + margin + row / 2, colour: .black, halo: nil, haloWidth: 0)
        let renderer = MapRenderer(style: RenderStyle(layers: []))
        for (n, entry) in entries.enumerated() {
            let top = y + margin + row * Double(n + 1) + (row - Self.swatch.height * scale) / 2
            let box = PixelBox(x: x + margin, y: top, width: Self.swatch.width * scale, height: Self.swatch.height * scale)
            try canvas.clipped(to: box) {
                if let swatchBackground {
                    canvas.rectangle(box)
                    canvas.fill(swatchBackground)
                }
                try swatch(entry, in: box, renderer: renderer, canvas: canvas)
            }
            let text = TextLayout(entry.label, size: Self.textSize * scale, maxWidth: nil, on: canvas)
            text.draw(centreX: box.maxX + 8 * scale + text.width / 2, centreY: top + box.height / 2, colour: MapColour(red: 0.15, green: 0.15, blue: 0.15),
                      halo: nil, haloWidth: 0)
        }
    }

    private func swatch(_ entry: Entry, in box: PixelBox, renderer: MapRenderer, canvas: MapCanvas) throws {
        var g = PixelGeometry()
        switch entry.layer.kind {
        case .fill:
            g.polygons = [[[(box.x + 1, box.y + 1), (box.maxX - 1, box.y + 1), (box.maxX - 1, box.maxY - 1), (box.x + 1, box.maxY - 1)]]]
        case .line:
            g.lines = [[(box.x + 2, box.y + box.height / 2), (box.maxX - 2, box.y + box.height / 2)]]
        default:
            g.points = [(box.x + box.width / 2, box.y + box.height / 2)]
        }
        let context = ExpressionContext(properties: entry.properties, geometryType: g.geometryType, zoom: zoom)
        switch entry.layer.kind {
        case .fill: try renderer.fill(entry.layer, g, context, canvas)
        case .line: try renderer.line(entry.layer, g, context, canvas)
        default: try renderer.circle(entry.layer, g, context, canvas)
        }
    }
}
