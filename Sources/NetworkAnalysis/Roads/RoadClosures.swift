import GeoCore

/// The state of the roads a query runs against, applied at query time: road pieces that may not
/// be used (flooded beyond a vehicle's wading depth, blocked, under works) and pieces that are
/// passable but slower (shallower water), each with the factor its travel time is multiplied by.
public struct RoadClosures: Sendable, Hashable {
    /// Indices into `RoadNetwork.pieces` that may not be used.
    public var pieces: Set<Int>
    /// Pieces passable but slower: index into `RoadNetwork.pieces` → the factor (> 1) its travel
    /// time is multiplied by (the piece's speed divided by the speed through the water on it).
    /// A closed piece's factor is never read.
    public var slowed: [Int: Double]

    /// Closes the given pieces and slows others.
    public init(pieces: Set<Int> = [], slowed: [Int: Double] = [:]) {
        self.pieces = pieces
        self.slowed = slowed
    }

    /// No closures.
    public static let none = RoadClosures()

    /// Whether nothing is closed or slowed: the dry network, on which the hierarchy answers.
    public var isEmpty: Bool { pieces.isEmpty && slowed.isEmpty }

    /// Whether piece `piece` is closed.
    @inlinable public func contains(_ piece: Int) -> Bool { !pieces.isEmpty && pieces.contains(piece) }

    /// The factor piece `piece`'s travel time is multiplied by (1 unless it is slowed).
    @inlinable public func factor(_ piece: Int) -> Double { slowed.isEmpty ? 1 : slowed[piece] ?? 1 }

    /// These closures with `other`'s added: a piece closed in either is closed; a piece slowed in
    /// both takes the larger factor.
    public func union(_ other: RoadClosures) -> RoadClosures {
        RoadClosures(pieces: pieces.union(other.pieces), slowed: slowed.merging(other.slowed) { max($0, $1) })
    }

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
