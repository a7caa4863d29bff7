import Foundation
import GeoCore

/// A map's scale at the centre of its view, measured on the ground: the geodesic length (PROJ's
/// `geod_inverse` on the CGCS2000 ellipsoid) of a short horizontal segment through the view's
/// centre, whatever the CRS, so a Web Mercator map at 30°N gets its true scale (not the
/// equator's) and a Gauss-Krüger map its grid scale factor. The bar is a round length (1, 2 or
/// 5 × 10ⁿ metres) no longer than `maximumLength` points.
public struct ScaleBar: Hashable, Sendable {
    /// Metres on the ground per unit of the view (a point on a printed page, a pixel on screen),
    /// horizontally at the centre.
    public let metresPerUnit: Double
    /// The bar's ground length in metres (1, 2 or 5 × 10ⁿ).
    public let metres: Double
    /// The bar's length in view units.
    public let length: Double

    /// The scale of `view` at its centre; the bar at most `maximumLength` view units long.
    /// - Throws: `GeometryError` when the centre cannot be taken back to longitude/latitude;
    ///   `MapRenderingError` `.request` when the view has no measurable width on the ground.
    public init(view: MapView, maximumLength: Double) throws {
        let centre = Position(x: (view.bbox.minX + view.bbox.maxX) / 2, y: (view.bbox.minY + view.bbox.maxY) / 2)
        // ±5 % of the view's width about the centre: short enough to be the scale at the centre.
        let half = view.bbox.width * 0.05
        let west = try view.fromStorage.inverse.transform(Position(x: centre.x - half, y: centre.y))
        let east = try view.fromStorage.inverse.transform(Position(x: centre.x + half, y: centre.y))
        let metres = try west.geodesicDistance(to: east)
        let units = 2 * half * view.scaleX
        guard metres > 0, metres.isFinite, units > 0 else {
            throw MapRenderingError(.request, "the map's box \(view.bbox) has no width on the ground at its centre")
        }
        self.init(metresPerUnit: metres / units, maximumLength: maximumLength)
    }

    /// The bar for `metresPerUnit` metres per view unit, at most `maximumLength` units long.
    public init(metresPerUnit: Double, maximumLength: Double) {
        self.metresPerUnit = metresPerUnit
        let longest = metresPerUnit * maximumLength
        let decade = pow(10, floor(log10(longest)))
        let step = [5.0, 2, 1].first { $0 * decade <= longest } ?? 1
        metres = step * decade
        length = metres / metresPerUnit
    }

    /// The representative fraction's denominator of a page printed in points (1 : n), to three
    /// significant figures: a point is 0.3528 mm on paper.
    public var denominator: Double {
        let n = metresPerUnit / (0.0254 / 72)
        let magnitude = pow(10, floor(log10(n)) - 2)
        return (n / magnitude).rounded() * magnitude
    }

    /// A ground length as a scale bar writes it: metres below a kilometre, else kilometres.
    public static func text(metres: Double) -> String {
        metres >= 1000 ? "\(Self.number(metres / 1000)) km" : "\(Self.number(metres)) m"
    }

    private static func number(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%g", v)
    }

    /// Draws the bar with its top-left corner at (x, y): four alternating black and white
    /// segments `height` tall, 0 and the length written under its ends, the half under its middle.
    public func draw(on canvas: MapCanvas, x: Double, y: Double, height: Double = 5, textSize: Double = 7) {
        let segment = length / 4
        for i in 0..<4 {
            canvas.rectangle(PixelBox(x: x + Double(i) * segment, y: y, width: segment, height: height))
            canvas.fill(i % 2 == 0 ? .black : .white)
            canvas.stroke(.black, width: 0.6)
        }
        for (offset, value) in [(0.0, 0.0), (length / 2, metres / 2), (length, metres)] {
            let label = TextLayout(value == 0 ? "0" : Self.text(metres: value), size: textSize, maxWidth: nil, on: canvas)
            label.draw(centreX: x + offset, centreY: y + height + 2 + label.height / 2, colour: .black, halo: nil, haloWidth: 0)
        }
    }
}
