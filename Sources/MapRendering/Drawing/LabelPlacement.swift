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

    /// Whether a box holding (x, y) may lie on the canvas: false when the point is off it.
    func mayHold(x: Double, y: Double) -> Bool {
        x >= 0 && y >= 0 && x <= width && y <= height
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

/// Where labels sit on lines: along the line, turned to its direction there (and to read left
/// to right), at its middle or every so many pixels.
enum LineAnchor {
    typealias Pixel = PixelGeometry.Pixel

    /// The length of `line` in pixels.
    static func length(_ line: [Pixel]) -> Double {
        zip(line, line.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
    }

    /// The point `distance` pixels along `line` and the angle of its segment there.
    static func position(along line: [Pixel], at distance: Double) -> (x: Double, y: Double, angle: Double)? {
        var remaining = distance
        for (a, b) in zip(line, line.dropFirst()) {
            let l = hypot(b.x - a.x, b.y - a.y)
            if remaining <= l, l > 0 {
                let t = remaining / l
                var angle = atan2(b.y - a.y, b.x - a.x)
                // Upright: left to right, and top to bottom on a vertical line whichever way it runs.
                if angle > .pi / 2 + 1e-9 { angle -= .pi } else if angle < -.pi / 2 + 1e-9 { angle += .pi }
                return (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, angle)
            }
            remaining -= l
        }
        return nil
    }

    /// The midpoint of `line` by length, its angle, and the line's length; nil for a line of no length.
    static func midpoint(_ line: [Pixel]) -> (x: Double, y: Double, angle: Double, length: Double)? {
        let total = length(line)
        guard total > 0, let p = position(along: line, at: total / 2) else { return nil }
        return (p.x, p.y, p.angle, total)
    }

    /// Where labels `textWidth` pixels long go on `line`: none when the text is longer than the
    /// line; its middle when the line is shorter than two `spacing`s; else evenly, about
    /// `spacing` pixels apart.
    static func anchors(along line: [Pixel], spacing: Double, textWidth: Double) -> [(x: Double, y: Double, angle: Double)] {
        let total = length(line)
        guard total > 0, textWidth <= total else { return [] }
        let count = max(1, Int(total / max(spacing, textWidth + 1)))
        return (0..<count).compactMap { position(along: line, at: total * (Double($0) + 0.5) / Double(count)) }
    }

    /// Lines joined where one ends at another's start or end (within 0.5 px), as MapLibre
    /// joins the lines of one label before placing it.
    static func joined(_ lines: [[Pixel]]) -> [[Pixel]] {
        func near(_ a: Pixel, _ b: Pixel) -> Bool { abs(a.x - b.x) < 0.5 && abs(a.y - b.y) < 0.5 }
        var pending = lines.filter { $0.count >= 2 }
        var out: [[Pixel]] = []
        while var current = pending.popLast() {
            var grew = true
            while grew {
                grew = false
                for (i, other) in pending.enumerated() {
                    guard let start = current.first, let end = current.last, let oStart = other.first, let oEnd = other.last else { continue }
                    if near(end, oStart) { current += other.dropFirst() }
                    else if near(end, oEnd) { current += other.reversed().dropFirst() }
                    else if near(start, oEnd) { current = other + current.dropFirst() }
                    else if near(start, oStart) { current = other.reversed() + current.dropFirst() }
                    else { continue }
                    pending.remove(at: i)
                    grew = true
                    break
                }
            }
            out.append(current)
        }
        return out
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
