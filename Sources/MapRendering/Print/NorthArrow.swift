import Foundation
import GeoCore

/// The direction of true north at the centre of a map: for a projected CRS the meridian through
/// the centre is not the grid's up (in a Gauss-Krüger zone it leans by the meridian convergence,
/// (λ − λ₀)·sin φ, a third of a degree for the sample district at 114.3°E), so the arrow is
/// turned by the angle PROJ gives between grid up and the meridian's direction on the map.
public struct NorthArrow: Hashable, Sendable {
    /// The clockwise angle from the page's up to true north, in degrees (negative: north lies
    /// left of up, as east of a Gauss-Krüger zone's central meridian).
    public let degrees: Double

    /// True north at the centre of `view`.
    /// - Throws: `GeometryError` when PROJ cannot take the centre to longitude/latitude and back.
    public init(view: MapView) throws {
        let centre = Position(x: (view.bbox.minX + view.bbox.maxX) / 2, y: (view.bbox.minY + view.bbox.maxY) / 2)
        let lonLat = try view.fromStorage.inverse.transform(centre)
        // A step north of a hundredth of the view's height in latitude (at least 1e-6°), taken
        // from the centre's latitude towards the pole; at a pole itself up is north.
        let step = max(view.storageEnvelope.height / 100, 1e-6)
        guard lonLat.y + step < 90 else {
            degrees = 0
            return
        }
        let north = try view.fromStorage.transform(Position(x: lonLat.x, y: lonLat.y + step))
        // Page x right = CRS x, page up = CRS y (scaled per axis).
        let dx = (north.x - centre.x) * view.scaleX, dy = (north.y - centre.y) * view.scaleY
        degrees = atan2(dx, dy) * 180 / .pi
    }

    public init(degrees: Double) {
        self.degrees = degrees
    }

    /// Draws the arrow centred on (x, y), `size` tall: a two-tone needle turned to true north
    /// with 北 (N) above its tip.
    public func draw(on canvas: MapCanvas, centreX x: Double, centreY y: Double, size: Double) {
        let angle = degrees * .pi / 180
        func turned(_ px: Double, _ py: Double) -> (x: Double, y: Double) {
            (x + px * cos(angle) - py * sin(angle), y + px * sin(angle) + py * cos(angle))
        }
        let tip = -size * 0.32, tail = size * 0.3, half = size * 0.11
        // The left half black, the right half white with a black edge (the usual map needle).
        canvas.path([[turned(0, tip), turned(-half, tail), turned(0, tail * 0.55)]], closed: true)
        canvas.fill(.black)
        canvas.stroke(.black, width: 0.6)
        canvas.path([[turned(0, tip), turned(half, tail), turned(0, tail * 0.55)]], closed: true)
        canvas.fill(.white)
        canvas.stroke(.black, width: 0.6, join: .round)
        let label = TextLayout("北 N", size: size * 0.16, maxWidth: nil, on: canvas)
        let at = turned(0, tip - label.height * 0.7)
        label.draw(centreX: at.x, centreY: at.y, colour: .black, halo: nil, haloWidth: 0)
    }
}
