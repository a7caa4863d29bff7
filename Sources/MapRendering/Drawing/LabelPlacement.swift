import Foundation

/// A box on the map in pixels (x, y: top-left corner).
public struct PixelBox: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    public func intersects(_ o: PixelBox) -> Bool {
        x < o.maxX && o.x < maxX && y < o.maxY && o.y < maxY
    }

    /// The box around `width` × `height` centred on (cx, cy) and turned `angle` radians.
    static func around(cx: Double, cy: Double, width: Double, height: Double, angle: Double) -> PixelBox {
        let c = abs(cos(angle)), s = abs(sin(angle))
        let w = width * c + height * s, h = width * s + height * c
        return PixelBox(x: cx - w / 2, y: cy - h / 2, width: w, height: h)
    }
}

/// A label the renderer drew: its text and the box it occupies (for the legend of a report and
/// for tests that look for its pixels).
public struct PlacedLabel: Hashable, Sendable {
    public let text: String
    public let box: PixelBox
    public let layer: String
}

/// Label collision as MapLibre does it, first come first placed: a label is drawn only when its
/// box (grown by `padding` pixels) overlaps no box placed before and lies wholly on the canvas,
/// so labels never overlap each other and are never cut at the map's edge.
struct LabelPlacement {
    let width: Double
    let height: Double
    var padding = 2.0
    private(set) var placed: [PixelBox] = []

    init(width: Int, height: Int) {
        self.width = Double(width)
        self.height = Double(height)
    }

    /// Whether `box` is free (inside the canvas, clear of placed labels unless `allowOverlap`);
    /// a free box is taken unless `ignorePlacement`.
    mutating func take(_ box: PixelBox, allowOverlap: Bool = false, ignorePlacement: Bool = false) -> Bool {
        guard box.x >= 0, box.y >= 0, box.maxX <= width, box.maxY <= height else { return false }
        let grown = PixelBox(x: box.x - padding, y: box.y - padding, width: box.width + 2 * padding, height: box.height + 2 * padding)
        if !allowOverlap, placed.contains(where: { $0.intersects(grown) }) { return false }
        if !ignorePlacement { placed.append(box) }
        return true
    }
}

/// Where a label sits on a line: the middle of its length, along the segment there.
enum LineAnchor {
    /// The midpoint of `line` (pixels) by length, the angle of its segment (turned to read
    /// left to right) and the line's length; nil for a line of no length.
    static func midpoint(_ line: [PixelGeometry.Pixel]) -> (x: Double, y: Double, angle: Double, length: Double)? {
        guard line.count >= 2 else { return nil }
        var lengths: [Double] = []
        for (a, b) in zip(line, line.dropFirst()) { lengths.append(hypot(b.x - a.x, b.y - a.y)) }
        let total = lengths.reduce(0, +)
        guard total > 0 else { return nil }
        var remaining = total / 2
        for (i, l) in lengths.enumerated() {
            if remaining <= l, l > 0 {
                let a = line[i], b = line[i + 1], t = remaining / l
                var angle = atan2(b.y - a.y, b.x - a.x)
                if angle > .pi / 2 { angle -= .pi } else if angle < -.pi / 2 { angle += .pi }
                return (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, angle, total)
            }
            remaining -= l
        }
        return nil
    }

    /// A point to label an area at: the area-weighted centroid of its exterior ring (the
    /// ring's first position for a degenerate ring).
    static func areaAnchor(_ rings: [[PixelGeometry.Pixel]]) -> (x: Double, y: Double)? {
        guard let ring = rings.first, let first = ring.first else { return nil }
        var a = 0.0, cx = 0.0, cy = 0.0
        for (p, q) in zip(ring, ring.dropFirst() + [first]) {
            let cross = p.x * q.y - q.x * p.y
            a += cross
            cx += (p.x + q.x) * cross
            cy += (p.y + q.y) * cross
        }
        guard abs(a) > 1e-9 else { return first }
        return (cx / (3 * a), cy / (3 * a))
    }
}
