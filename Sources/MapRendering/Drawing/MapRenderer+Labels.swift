import Foundation
import GeoCore

extension MapRenderer {
    /// The text a symbol layer draws, as its paint and layout say.
    struct TextStyle {
        let size: Double
        let colour: MapColour
        let halo: MapColour?
        let haloWidth: Double
        let allowOverlap: Bool
        let ignorePlacement: Bool

        init(_ layer: StyleLayer, _ c: ExpressionContext) throws {
            size = try layer.number("text-size", c, 16)
            colour = try layer.colour("text-color", c) ?? .black
            halo = try layer.colour("text-halo-color", c)
            haloWidth = try layer.number("text-halo-width", c, 0)
            allowOverlap = try layer.value("text-allow-overlap", c)?.boolValue ?? false
            ignorePlacement = try layer.value("text-ignore-placement", c)?.boolValue ?? false
        }
    }

    /// Places and draws the labels of one symbol layer. Along lines (`symbol-placement: line`),
    /// the lines of one text that meet end to end are joined first, as MapLibre joins them, so a
    /// street cut at every crossing is labelled as one street: once at its middle, or every
    /// `symbol-spacing` pixels when it is long. Elsewhere each feature gets one label.
    func labels(_ layer: StyleLayer, _ features: [(feature: Feature, pixels: PixelGeometry)], zoom: Double, _ canvas: MapCanvas,
                _ placement: inout LabelPlacement) throws -> [PlacedLabel] {
        var placed: [PlacedLabel] = []
        var alongLines: [String: (lines: [[PixelGeometry.Pixel]], context: ExpressionContext)] = [:]
        var order: [String] = []
        for (feature, geometry) in features {
            let context = ExpressionContext(properties: feature.properties, geometryType: geometry.geometryType, zoom: zoom)
            guard try StyleExpression.passes(layer.filter, context), let field = try layer.value("text-field", context) else { continue }
            let text = StyleExpression.text(field).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { continue }
            if try layer.string("symbol-placement", context) == "line" {
                if alongLines[text] == nil { order.append(text) }
                alongLines[text, default: ([], context)].lines += geometry.lines
            } else if let label = try pointLabel(layer, text, geometry, context, canvas, &placement) {
                placed.append(label)
            }
        }
        for text in order {
            guard let (lines, context) = alongLines[text] else { continue }
            let style = try TextStyle(layer, context)
            let spacing = try layer.number("symbol-spacing", context, 250)
            let layout = TextLayout(text, size: style.size, maxWidth: nil, on: canvas)
            for line in LineAnchor.joined(lines) {
                for anchor in LineAnchor.anchors(along: line, spacing: spacing, textWidth: layout.width) {
                    if let label = place(layer, text, layout, style, (anchor.x, anchor.y, anchor.angle), &placement) { placed.append(label) }
                }
            }
        }
        return placed
    }

    /// A point's, an area's or (with point placement) a line's label: at the point, the area's
    /// centroid or the line's middle, moved by `text-offset` (ems) to its `text-anchor` side.
    private func pointLabel(_ layer: StyleLayer, _ text: String, _ g: PixelGeometry, _ c: ExpressionContext, _ canvas: MapCanvas,
                            _ placement: inout LabelPlacement) throws -> PlacedLabel? {
        let anchor: (x: Double, y: Double)?
        if let p = g.points.first { anchor = p }
        else if let polygon = g.polygons.first { anchor = LineAnchor.areaAnchor(polygon) }
        else { anchor = g.lines.compactMap(LineAnchor.midpoint).first.map { ($0.x, $0.y) } }
        guard let anchor else { return nil }
        let style = try TextStyle(layer, c)
        let offset = try layer.numbers("text-offset", c) ?? [0, 0]
        var x = anchor.x + (offset.first ?? 0) * style.size, y = anchor.y + (offset.count > 1 ? offset[1] : 0) * style.size
        // Whatever its text-anchor, a label's box holds its anchor, and a box is placed only wholly
        // on the canvas: a label anchored off the canvas (a feature in the margin read around a
        // tile) is never placed, so pango does not lay it out.
        guard placement.mayHold(x: x, y: y) else { return nil }
        let maxWidth = try layer.number("text-max-width", c, 10) * style.size
        let layout = TextLayout(text, size: style.size, maxWidth: maxWidth, on: canvas)
        // The text's side at the anchor (MapLibre `text-anchor`); centred by default.
        let side = try layer.string("text-anchor", c) ?? "center"
        if side.contains("top") { y += layout.height / 2 } else if side.contains("bottom") { y -= layout.height / 2 }
        if side.contains("left") { x += layout.width / 2 } else if side.contains("right") { x -= layout.width / 2 }
        return place(layer, text, layout, style, (x, y, 0), &placement)
    }

    /// Draws a laid-out label centred at `centre` if its box is free.
    private func place(_ layer: StyleLayer, _ text: String, _ layout: TextLayout, _ style: TextStyle,
                       _ centre: (x: Double, y: Double, angle: Double), _ placement: inout LabelPlacement) -> PlacedLabel? {
        let box = PixelBox.around(cx: centre.x, cy: centre.y, width: layout.width, height: layout.height, angle: centre.angle)
        guard placement.take(box, allowOverlap: style.allowOverlap, ignorePlacement: style.ignorePlacement) else { return nil }
        layout.draw(centreX: centre.x, centreY: centre.y, angle: centre.angle, colour: style.colour, halo: style.halo, haloWidth: style.haloWidth)
        return PlacedLabel(text: text, box: box, layer: layer.id)
    }
}
