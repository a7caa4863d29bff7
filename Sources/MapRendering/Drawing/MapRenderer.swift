import Foundation
import GeoCore

/// Draws features on a canvas from the layers' MapLibre style (the web map's style document,
/// WebMap/MapStyle.swift: the one source of truth for how a layer looks). Style layers are drawn
/// in the style's order — fills, lines and circles first, then text — with their paint properties
/// evaluated per feature at the view's zoom (`StyleExpression`), their filters and zoom ranges.
/// Labels are laid out by pango in WenQuanYi Micro Hei and placed without overlap
/// (`LabelPlacement`): point labels at the point (with the style's offset and anchor), area labels
/// at the area's centroid, line labels along the line at its middle.
///
/// ```swift
/// let view = try MapView(bbox: box, crs: .webMercator, width: 512, height: 512)
/// let png = try MapRenderer(style: try RenderStyle(document: styleJSON))
///     .image(["lakes": lakes], view: view, format: .png, background: .white)
/// ```
public struct MapRenderer: Sendable {
    public let style: RenderStyle

    public init(style: RenderStyle) {
        self.style = style
    }

    /// Draws `features` (by collection id, stored in EPSG:4490) onto `canvas` for `view`; returns
    /// the labels placed. Collections without a style layer are not drawn.
    /// - Throws: `MapRenderingError` `.style` for a style value the renderer cannot read;
    ///   `GeometryError` when a geometry cannot be transformed into the view's CRS.
    @discardableResult
    public func draw(_ features: [String: [Feature]], view: MapView, on canvas: MapCanvas) throws -> [PlacedLabel] {
        var projected: [String: [(feature: Feature, pixels: PixelGeometry)]] = [:]
        func pixels(_ collection: String) throws -> [(feature: Feature, pixels: PixelGeometry)] {
            if let known = projected[collection] { return known }
            let list = try (features[collection] ?? []).compactMap { f in try f.geometry.map { (f, try view.pixels($0)) } }
            projected[collection] = list
            return list
        }
        var labels = LabelPlacement(width: view.width, height: view.height)
        var placed: [PlacedLabel] = []
        for layer in style.layers where layer.drawn(atZoom: view.zoom) {
            if layer.kind == .background {
                continue  // the map's background is the request's (WMS BGCOLOR/TRANSPARENT)
            }
            guard let collection = layer.collection, features[collection] != nil else { continue }
            for (feature, geometry) in try pixels(collection) {
                let context = ExpressionContext(properties: feature.properties, geometryType: geometry.geometryType, zoom: view.zoom)
                guard try StyleExpression.passes(layer.filter, context) else { continue }
                switch layer.kind {
                case .fill: try fill(layer, geometry, context, canvas)
                case .line: try line(layer, geometry, context, canvas)
                case .circle: try circle(layer, geometry, context, canvas)
                case .symbol:
                    if let label = try text(layer, geometry, context, canvas, &labels) { placed.append(label) }
                case .background: break
                }
            }
        }
        return placed
    }

    /// The map as an encoded image: drawn on `background` (nil: transparent; JPEG, which has no
    /// transparency, is then drawn on white).
    public func image(_ features: [String: [Feature]], view: MapView, format: MapImageFormat, background: MapColour?) throws -> [UInt8] {
        let canvas = try MapCanvas(width: view.width, height: view.height, kind: format == .pdf ? .pdf : .raster)
        if let background { canvas.clear(background) } else if format == .jpeg { canvas.clear(.white) }
        try draw(features, view: view, on: canvas)
        return try format.encode(canvas)
    }

    // MARK: - Layer kinds

    func fill(_ layer: StyleLayer, _ g: PixelGeometry, _ c: ExpressionContext, _ canvas: MapCanvas) throws {
        guard !g.polygons.isEmpty else { return }
        let opacity = try layer.number("fill-opacity", c, 1)
        let colour = (try layer.colour("fill-color", c) ?? .black).withOpacity(opacity)
        let outline = try layer.colour("fill-outline-color", c)?.withOpacity(opacity)
        for polygon in g.polygons {
            canvas.path(polygon, closed: true)
            canvas.fill(colour)
            if let outline { canvas.stroke(outline, width: 1) }
        }
    }

    func line(_ layer: StyleLayer, _ g: PixelGeometry, _ c: ExpressionContext, _ canvas: MapCanvas) throws {
        let paths = g.lines.map { ([$0], false) } + g.polygons.map { ($0, true) }
        guard !paths.isEmpty else { return }
        let width = try layer.number("line-width", c, 1)
        guard width > 0 else { return }
        let colour = (try layer.colour("line-color", c) ?? .black).withOpacity(try layer.number("line-opacity", c, 1))
        // MapLibre's dash lengths are in line widths.
        let dash = (try layer.numbers("line-dasharray", c) ?? []).map { $0 * width }
        let cap = try layer.string("line-cap", c).flatMap(MapCanvas.LineCap.init(rawValue:)) ?? .butt
        let join = try layer.string("line-join", c).flatMap(MapCanvas.LineJoin.init(rawValue:)) ?? .miter
        for (rings, closed) in paths {
            canvas.path(rings, closed: closed)
            canvas.stroke(colour, width: width, dash: dash, cap: cap, join: join)
        }
    }

    func circle(_ layer: StyleLayer, _ g: PixelGeometry, _ c: ExpressionContext, _ canvas: MapCanvas) throws {
        guard !g.points.isEmpty else { return }
        let radius = try layer.number("circle-radius", c, 5)
        let opacity = try layer.number("circle-opacity", c, 1)
        let colour = (try layer.colour("circle-color", c) ?? .black).withOpacity(opacity)
        let strokeWidth = try layer.number("circle-stroke-width", c, 0)
        let stroke = (try layer.colour("circle-stroke-color", c) ?? .black).withOpacity(try layer.number("circle-stroke-opacity", c, 1))
        for p in g.points {
            canvas.circle(x: p.x, y: p.y, radius: radius)
            canvas.fill(colour)
            // MapLibre draws the stroke outside the radius.
            if strokeWidth > 0 {
                canvas.circle(x: p.x, y: p.y, radius: radius + strokeWidth / 2)
                canvas.stroke(stroke, width: strokeWidth)
            }
        }
    }

    private func text(_ layer: StyleLayer, _ g: PixelGeometry, _ c: ExpressionContext, _ canvas: MapCanvas,
                      _ labels: inout LabelPlacement) throws -> PlacedLabel? {
        guard let field = try layer.value("text-field", c) else { return nil }
        let text = StyleExpression.text(field).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        let size = try layer.number("text-size", c, 16)
        let colour = try layer.colour("text-color", c) ?? .black
        let halo = try layer.colour("text-halo-color", c)
        let haloWidth = try layer.number("text-halo-width", c, 0)
        let allowOverlap = try layer.value("text-allow-overlap", c)?.boolValue ?? false
        let ignorePlacement = try layer.value("text-ignore-placement", c)?.boolValue ?? false
        let alongLine = try layer.string("symbol-placement", c) == "line"

        let centre: (x: Double, y: Double, angle: Double)
        let layout: TextLayout
        if alongLine {
            // Along the longest line, at its middle; a label longer than the line is left out.
            guard let anchor = g.lines.compactMap(LineAnchor.midpoint).max(by: { $0.length < $1.length }) else { return nil }
            layout = TextLayout(text, size: size, maxWidth: nil, on: canvas)
            guard layout.width <= anchor.length else { return nil }
            centre = (anchor.x, anchor.y, anchor.angle)
        } else {
            let anchor: (x: Double, y: Double)?
            if let p = g.points.first { anchor = p }
            else if let polygon = g.polygons.first { anchor = LineAnchor.areaAnchor(polygon) }
            else { anchor = g.lines.compactMap(LineAnchor.midpoint).first.map { ($0.x, $0.y) } }
            guard let anchor else { return nil }
            let maxWidth = try layer.number("text-max-width", c, 10) * size
            layout = TextLayout(text, size: size, maxWidth: maxWidth, on: canvas)
            let offset = try layer.numbers("text-offset", c) ?? [0, 0]
            var x = anchor.x + (offset.first ?? 0) * size, y = anchor.y + (offset.count > 1 ? offset[1] : 0) * size
            // The text's side at the anchor (MapLibre `text-anchor`); centred by default.
            let side = try layer.string("text-anchor", c) ?? "center"
            if side.contains("top") { y += layout.height / 2 } else if side.contains("bottom") { y -= layout.height / 2 }
            if side.contains("left") { x += layout.width / 2 } else if side.contains("right") { x -= layout.width / 2 }
            centre = (x, y, 0)
        }
        let box = PixelBox.around(cx: centre.x, cy: centre.y, width: layout.width, height: layout.height, angle: centre.angle)
        guard labels.take(box, allowOverlap: allowOverlap, ignorePlacement: ignorePlacement) else { return nil }
        layout.draw(centreX: centre.x, centreY: centre.y, angle: centre.angle, colour: colour, halo: halo, haloWidth: haloWidth)
        return PlacedLabel(text: text, box: box, layer: layer.id)
    }
}
