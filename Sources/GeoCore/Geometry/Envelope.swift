/// An axis-aligned bounding box in the units of the geometry's CRS.
public struct Envelope: Hashable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    @inlinable
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The envelope of the given positions, or `nil` when there are none.
    public init?<S: Sequence>(of positions: S) where S.Element == Position {
        var it = positions.makeIterator()
        guard let first = it.next() else { return nil }
        var e = Envelope(minX: first.x, minY: first.y, maxX: first.x, maxY: first.y)
        while let p = it.next() { e.expand(toInclude: p) }
        self = e
    }

    @inlinable public var width: Double { maxX - minX }
    @inlinable public var height: Double { maxY - minY }
    @inlinable public var center: Position { Position(x: (minX + maxX) / 2, y: (minY + maxY) / 2) }
    @inlinable public var area: Double { width * height }

    @inlinable
    public mutating func expand(toInclude p: Position) {
        if p.x < minX { minX = p.x }
        if p.x > maxX { maxX = p.x }
        if p.y < minY { minY = p.y }
        if p.y > maxY { maxY = p.y }
    }

    @inlinable
    public mutating func expand(toInclude other: Envelope) {
        minX = Swift.min(minX, other.minX)
        minY = Swift.min(minY, other.minY)
        maxX = Swift.max(maxX, other.maxX)
        maxY = Swift.max(maxY, other.maxY)
    }

    /// A copy grown by `margin` on every side.
    @inlinable
    public func expanded(by margin: Double) -> Envelope {
        Envelope(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    @inlinable
    public func intersects(_ other: Envelope) -> Bool {
        minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
    }

    @inlinable
    public func contains(_ p: Position) -> Bool {
        p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY
    }

    @inlinable
    public func contains(_ other: Envelope) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    /// Squared planar distance between the two boxes (0 when they touch or overlap).
    @inlinable
    public func distanceSquared(to other: Envelope) -> Double {
        let dx = Swift.max(0, Swift.max(other.minX - maxX, minX - other.maxX))
        let dy = Swift.max(0, Swift.max(other.minY - maxY, minY - other.maxY))
        return dx * dx + dy * dy
    }

    /// The rectangle as a closed, counter-clockwise polygon.
    public var polygon: Polygon {
        Polygon(exterior: [
            Position(minX, minY), Position(maxX, minY), Position(maxX, maxY),
            Position(minX, maxY), Position(minX, minY),
        ])
    }
}
