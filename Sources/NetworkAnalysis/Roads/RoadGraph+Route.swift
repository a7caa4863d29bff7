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
        route(from: RoadAccess(origin), to: RoadAccess(target), avoiding: closures)
    }

    /// The fastest route from any of `origin`'s tied road positions to any of `target`'s (the
    /// best arrival wins, see `RoadAccess`), or `nil` when `target` cannot be reached.
    public func route(from origin: RoadAccess, to target: RoadAccess, avoiding closures: RoadClosures = .none) -> Route? {
        let tree = tree(from: origin.positions, closures: closures, sweeping: selection(reaching: target, closures: closures))
        return route(to: target.positions, tree: tree, closures: closures)
    }

    /// The sweep selection of one target (RPHAST; not kept: a route's target is its own), nil
    /// with closures (the plain search has no sweep).
    func selection(reaching target: RoadAccess, closures: RoadClosures) -> [Int32]? {
        closures.isEmpty ? hierarchy.sweepSelection(reaching: target.positions.flatMap(arrivalNodes(at:))) : nil
    }

    /// The fastest route between two points, each met at its nearest open road positions (ties
    /// included, see `RoadAccess`).
    /// - Throws: `RoadNetworkError` when the network is empty or a point is not finite.
    public func route(from a: Position, to b: Position, avoiding closures: RoadClosures = .none) throws -> Route? {
        guard a.x.isFinite, a.y.isFinite else { throw RoadNetworkError("origin is not finite", field: "from") }
        guard b.x.isFinite, b.y.isFinite else { throw RoadNetworkError("destination is not finite", field: "to") }
        guard let o = access(to: a, avoiding: closures), let t = access(to: b, avoiding: closures) else {
            throw RoadNetworkError("the road network has no open road to snap to", field: "from")
        }
        return route(from: o, to: t, avoiding: closures)
    }

    /// Travel time only (seconds), or `nil` when unreachable.
    public func travelTime(from origin: EdgePosition, to target: EdgePosition, avoiding closures: RoadClosures = .none) -> Double? {
        travelTime(from: RoadAccess(origin), to: RoadAccess(target), avoiding: closures)
    }

    /// Travel time only (seconds) between the best of the tied positions, or `nil` when unreachable.
    public func travelTime(from origin: RoadAccess, to target: RoadAccess, avoiding closures: RoadClosures = .none) -> Double? {
        let tree = tree(from: origin.positions, closures: closures, sweeping: selection(reaching: target, closures: closures))
        return arrival(at: target.positions, from: origin.positions, tree: tree, closures: closures)?.seconds
    }

    /// Assembles the route to `target` from a one-to-all tree grown from `origin` alone.
    func route(from origin: EdgePosition, to target: EdgePosition, tree: TravelTree, closures: RoadClosures) -> Route? {
        route(to: [target], tree: tree, closures: closures)
    }

    /// Assembles the route to the best of `targets` from a one-to-all tree.
    func route(to targets: [EdgePosition], tree: TravelTree, closures: RoadClosures) -> Route? {
        let origins = tree.origins
        guard let (seconds, how, j) = arrival(at: targets, from: origins, tree: tree, closures: closures) else { return nil }
        let target = targets[j]
        var coords: [Position] = []
        var pieces: [Int] = []
        var metres = 0.0
        func add(_ part: [Position], piece: Int, length: Double) {
            pieces.append(piece)
            metres += length
            for p in part where coords.last != p { coords.append(p) }
        }
        func finish() -> Route {
            if coords.isEmpty { coords = [target.point] }
            if coords.count == 1 { coords.append(coords[0]) }
            return Route(seconds: seconds, metres: metres, coordinates: coords, pieces: pieces)
        }
        let q = target.piece, qLen = network.pieces[q].length
        /// The arcs from the search's start to search node `node`, after the origin's partial piece.
        func travel(to node: Int32) {
            let (arcs, root) = tree.arcs(to: node, in: self)
            // The seed the path left from: the cheapest one at the root node (standing on it first).
            let seed = tree.seeds.filter { $0.node == root }.min { ($0.cost, $0.atNode ? 0 : 1) < ($1.cost, $1.atNode ? 0 : 1) }
            if let seed, !seed.atNode {
                let origin = origins[seed.origin]
                let p = origin.piece, pLen = network.pieces[p].length
                if seed.forward {
                    add(network.coordinates(ofPiece: p, from: origin.offset, to: pLen), piece: p, length: pLen - origin.offset)
                } else {
                    add(network.coordinates(ofPiece: p, from: 0, to: origin.offset).reversed(), piece: p, length: origin.offset)
                }
            } else if seed == nil || arcs.isEmpty {
                coords.append(network.nodes[Int(networkNode(root))])
            }
            for a in arcs {
                let i = Int(arcPiece[Int(a)])
                let c = network.pieces[i].coordinates
                add(arcForward[Int(a)] ? c : c.reversed(), piece: i, length: network.pieces[i].length)
            }
        }
        switch how {
        case .direct(let i, let forward):
            let origin = origins[i]
            let lo = min(origin.offset, target.offset), hi = max(origin.offset, target.offset)
            let part = network.coordinates(ofPiece: q, from: lo, to: hi)
            add(forward ? part : part.reversed(), piece: q, length: hi - lo)
            return finish()
        case .node(let v):
            travel(to: v)
            return finish()
        case .via(let entryArc):
            travel(to: arcTail[Int(entryArc)])
            if arcForward[Int(entryArc)] {
                add(network.coordinates(ofPiece: q, from: 0, to: target.offset), piece: q, length: target.offset)
            } else {
                add(network.coordinates(ofPiece: q, from: target.offset, to: qLen).reversed(), piece: q, length: qLen - target.offset)
            }
            return finish()
        }
    }
}
