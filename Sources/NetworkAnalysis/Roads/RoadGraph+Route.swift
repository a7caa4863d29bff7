import GeoCore

/// A route on the road network.
public struct Route: Sendable, Hashable {
    /// Travel time in seconds.
    public var seconds: Double
    /// Length along the roads in metres.
    public var metres: Double
    /// Geometry from the origin's road position to the target's (metres, the network's CRS).
    public var coordinates: [Position]
    /// Pieces traversed, in order (partial first and last pieces included).
    public var pieces: [Int]

    /// Travel time in minutes.
    public var minutes: Double { seconds / 60 }
}

extension RoadGraph {
    /// The fastest route between two road positions, or `nil` when `to` cannot be reached.
    public func route(from origin: EdgePosition, to target: EdgePosition, avoiding closures: RoadClosures = .none) -> Route? {
        let tree = tree(from: origin, closures: closures)
        return route(from: origin, to: target, tree: tree, closures: closures)
    }

    /// The fastest route between two points, each snapped to the nearest open road position.
    /// - Throws: `RoadNetworkError` when the network is empty or a point is not finite.
    public func route(from a: Position, to b: Position, avoiding closures: RoadClosures = .none) throws -> Route? {
        guard a.x.isFinite, a.y.isFinite else { throw RoadNetworkError("origin is not finite", field: "from") }
        guard b.x.isFinite, b.y.isFinite else { throw RoadNetworkError("destination is not finite", field: "to") }
        guard let o = snap(a, avoiding: closures), let t = snap(b, avoiding: closures) else {
            throw RoadNetworkError("the road network has no open road to snap to", field: "from")
        }
        return route(from: o, to: t, avoiding: closures)
    }

    /// Travel time only (seconds), or `nil` when unreachable.
    public func travelTime(from origin: EdgePosition, to target: EdgePosition, avoiding closures: RoadClosures = .none) -> Double? {
        let tree = tree(from: origin, closures: closures)
        return arrival(at: target, from: origin, tree: tree, closures: closures)?.seconds
    }

    /// Assembles the route to `target` from a one-to-all tree.
    func route(from origin: EdgePosition, to target: EdgePosition, tree: TravelTree, closures: RoadClosures) -> Route? {
        guard let (seconds, how) = arrival(at: target, from: origin, tree: tree, closures: closures) else { return nil }
        var coords: [Position] = []
        var pieces: [Int] = []
        var metres = 0.0
        func add(_ part: [Position], piece: Int, length: Double) {
            pieces.append(piece)
            metres += length
            for p in part where coords.last != p { coords.append(p) }
        }
        let q = target.piece, qLen = network.pieces[q].length
        switch how {
        case .direct(let forward):
            let lo = min(origin.offset, target.offset), hi = max(origin.offset, target.offset)
            let part = network.coordinates(ofPiece: q, from: lo, to: hi)
            add(forward ? part : part.reversed(), piece: q, length: hi - lo)
            if coords.count == 1 { coords.append(coords[0]) }
            return Route(seconds: seconds, metres: metres, coordinates: coords, pieces: pieces)
        case .via(let entryArc):
            let viaForward = arcForward[Int(entryArc)]
            let entry = arcTail[Int(entryArc)]
            let (arcs, root) = tree.arcs(to: entry, in: self)
            // The seed the path left from: the cheapest one at the root node.
            let seed = tree.seeds.filter { $0.node == root }.min { $0.cost < $1.cost }
            let p = origin.piece, pLen = network.pieces[p].length
            if let seed {
                if seed.forward {
                    add(network.coordinates(ofPiece: p, from: origin.offset, to: pLen), piece: p, length: pLen - origin.offset)
                } else {
                    add(network.coordinates(ofPiece: p, from: 0, to: origin.offset).reversed(), piece: p, length: origin.offset)
                }
            }
            for a in arcs {
                let i = Int(arcPiece[Int(a)])
                let c = network.pieces[i].coordinates
                add(arcForward[Int(a)] ? c : c.reversed(), piece: i, length: network.pieces[i].length)
            }
            if viaForward {
                add(network.coordinates(ofPiece: q, from: 0, to: target.offset), piece: q, length: target.offset)
            } else {
                add(network.coordinates(ofPiece: q, from: target.offset, to: qLen).reversed(), piece: q, length: qLen - target.offset)
            }
            if coords.count == 1 { coords.append(coords[0]) }
            return Route(seconds: seconds, metres: metres, coordinates: coords, pieces: pieces)
        }
    }
}

