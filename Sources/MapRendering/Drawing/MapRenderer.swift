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
        // Shapes in the style's order; then labels, placed from the top layer down as MapLibre
        // places them (a higher layer's labels win a collision).
        let drawn = style.layers.filter { $0.drawn(atZoom: view.zoom) && $0.kind != .background }
        for layer in drawn where layer.kind != .symbol {
            guard let collection = layer.collection, features[collection] != nil else { continue }
            for (feature, geometry) in try pixels(collection) {
                let context = ExpressionContext(properties: feature.properties, geometryType: geometry.geometryType, zoom: view.zoom)
                guard try StyleExpression.passes(layer.filter, context) else { continue }
                switch layer.kind {
                case .fill: try fill(layer, geometry, context, canvas)
                case .line: try line(layer, geometry, context, canvas)
                case .circle: try circle(layer, geometry, context, canvas)
                case .symbol, .background: break
                }
            }
        }
        var labels = LabelPlacement(width: view.width, height: view.height)
        var placed: [PlacedLabel] = []
        for layer in drawn.reversed() where layer.kind == .symbol {
            guard let collection = layer.collection, features[collection] != nil else { continue }
            placed += try self.labels(layer, try pixels(collection), zoom: view.zoom, canvas, &labels)
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
}
