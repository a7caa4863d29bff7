import GeoCore

/// Where a point (an incident, a shelter, a fire station) meets the road network: every road
/// position as near to the point as the nearest one, within `tieMetres`.
///
/// A shelter set back 100 m from four streets is reached through whichever of them is fastest,
/// and an engine leaving a station between two streets takes whichever is faster: routing treats
/// the positions as alternative ends (the best arrival wins), so which road counts as "nearest"
/// is never decided by the rounding noise of a reprojection (nanometres) but by travel time.
/// A point on a junction meets every road of the junction; the searches then start from (or
/// end at) the junction node itself, so every road leaving it can be taken.
public struct RoadAccess: Sendable, Hashable {
    /// Distances to the road that differ by at most this many metres are ties (5 cm: far below
    /// the survey accuracy of a resource point, far above floating-point noise).
    public static let tieMetres = 0.05

    /// The tied road positions, in piece order; never empty.
    public let positions: [EdgePosition]

    /// One road position (a point built on the road, or a caller's own choice).
    public init(_ position: EdgePosition) { positions = [position] }

    /// Tied road positions; `nil` when `positions` is empty.
    public init?(positions: [EdgePosition]) {
        guard !positions.isEmpty else { return nil }
        self.positions = positions
    }

    /// Metres from the point to the road (the straight access stretch, not routed).
    public var distance: Double { positions.lazy.map(\.distance).min() ?? 0 }

    /// The nearest position (ties: the piece listed first), for callers that need one.
    public var nearest: EdgePosition { positions.min { $0.distance < $1.distance } ?? positions[0] }
}

extension RoadNetwork {
    /// Every road position within `tieMetres` of the nearest one to `point` (metres), among the
    /// pieces `isOpen` admits; `nil` when no piece is admitted or the network is empty.
    public func access(to point: Position, tieMetres: Double = RoadAccess.tieMetres,
                       isOpen: (Int) -> Bool = { _ in true }) -> RoadAccess? {
        guard !pieces.isEmpty, point.x.isFinite, point.y.isFinite else { return nil }
        var nearest: Double?
        for k in [1, 8, 64, pieces.count] {
            let hits = index.nearest(to: point, k: k, distance: { distance(from: point, to: Int($0)) })
            if let hit = hits.first(where: { isOpen(Int($0.element)) }) { nearest = hit.distance; break }
            if k >= pieces.count { break }
        }
        guard let nearest else { return nil }
        let reach = nearest + max(0, tieMetres)
        let box = Envelope(minX: point.x - reach, minY: point.y - reach, maxX: point.x + reach, maxY: point.y + reach)
        let tied = pieces(intersecting: box).sorted()
            .filter { isOpen($0) && distance(from: point, to: $0) <= reach }
            .map { position(on: $0, nearest: point) }
        return RoadAccess(positions: tied)
    }
}

extension RoadGraph {
    /// The open road positions nearest to `point` (metres), ties included (see `RoadAccess`), or
    /// `nil` when every piece is closed or the network is empty.
    public func access(to point: Position, avoiding closures: RoadClosures = .none) -> RoadAccess? {
        network.access(to: point, isOpen: { !closures.contains($0) })
    }
}
