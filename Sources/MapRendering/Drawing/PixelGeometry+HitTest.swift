import Foundation

extension PixelGeometry {
    /// How far pixel (x, y) is from the geometry drawn, in pixels: 0 inside an area (holes are
    /// outside), else the distance to the nearest point, line or ring. What WMS GetFeatureInfo
    /// asks: which features lie under a pixel of the map.
    public func distance(toX x: Double, y: Double) -> Double {
        var best = Double.infinity
        for p in points { best = min(best, hypot(p.x - x, p.y - y)) }
        for line in lines { best = min(best, Self.distance(x, y, to: line)) }
        for rings in polygons {
            if Self.inside(x, y, rings) { return 0 }
            for ring in rings { best = min(best, Self.distance(x, y, to: ring)) }
        }
        return best
    }

    /// Even-odd rule over every ring: inside the exterior and outside its holes.
    static func inside(_ x: Double, _ y: Double, _ rings: [[Pixel]]) -> Bool {
        var crossings = 0
        for ring in rings {
            guard ring.count >= 3 else { continue }
            var j = ring.count - 1
            for i in ring.indices {
                let a = ring[i], b = ring[j]
                if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { crossings += 1 }
                j = i
            }
        }
        return crossings % 2 == 1
    }

    static func distance(_ x: Double, _ y: Double, to line: [Pixel]) -> Double {
        guard let first = line.first else { return .infinity }
        var best = hypot(first.x - x, first.y - y)
        for (a, b) in zip(line, line.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y, length2 = dx * dx + dy * dy
            let t = length2 == 0 ? 0 : max(0, min(1, ((x - a.x) * dx + (y - a.y) * dy) / length2))
            best = min(best, hypot(a.x + t * dx - x, a.y + t * dy - y))
        }
        return best
    }
}
