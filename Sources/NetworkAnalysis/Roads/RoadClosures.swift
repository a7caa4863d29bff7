import GeoCore

/// Road pieces that may not be used (flooded, blocked, under works), applied at query time.
public struct RoadClosures: Sendable, Hashable {
    /// Indices into `RoadNetwork.pieces`.
    public var pieces: Set<Int>

    /// Closes the given pieces.
    public init(pieces: Set<Int> = []) { self.pieces = pieces }

    /// No closures.
    public static let none = RoadClosures()

    /// Whether nothing is closed.
    public var isEmpty: Bool { pieces.isEmpty }

    /// Whether piece `piece` is closed.
    @inlinable public func contains(_ piece: Int) -> Bool { !pieces.isEmpty && pieces.contains(piece) }

    /// Closes every piece of `network` that intersects `area` (a hazard polygon in the network's
    /// CRS, e.g. the cells of a flood result deeper than 0.15 m).
    /// - Throws: `GeometryError` from GEOS.
    public init(network: RoadNetwork, intersecting area: Geometry) throws {
        var closed = Set<Int>()
        guard let bounds = area.envelope else { self.init(); return }
        let prepared = try PreparedGeometry(area)
        for p in network.pieces(intersecting: bounds)
        where try prepared.intersects(.lineString(LineString(network.pieces[p].coordinates))) {
            closed.insert(p)
        }
        self.init(pieces: closed)
    }
}
