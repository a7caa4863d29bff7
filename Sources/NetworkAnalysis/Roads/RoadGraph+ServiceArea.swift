import Foundation
import GeoCore

/// The area reachable within one time break.
public struct ServiceArea: Sendable, Hashable {
    /// The break in seconds.
    public var seconds: Double
    /// Polygon or MultiPolygon (metres, the network's CRS) containing every reached road part and
    /// no unreached node; empty when nothing is reachable.
    public var area: Geometry
    /// The reached road parts (whole and partial pieces) as lines.
    public var roads: MultiLineString
    /// Number of graph nodes reached within the break.
    public var reachedNodes: Int
    /// Total length of reached road parts (metres).
    public var reachedMetres: Double
}

extension RoadGraph {
    /// Service areas (isochrones) from `origin` for each break (seconds), smallest first.
    ///
    /// Construction: one one-to-all search; every arc whose tail is reached within the break
    /// contributes the part of its piece the remaining time covers (partial pieces included), and
    /// the origin's piece contributes the stretch reachable directly. The parts (merged per piece)
    /// are buffered by `bufferMetres` with GEOS in one call, which contains every reached road.
    /// The buffer may swallow a nearby unreached node (the tip of a partial piece close to its far
    /// end, a parallel one-way street, a bridge): each such node at distance `d < bufferMetres`
    /// from the reached parts gets a disc of radius `d / 2` cut out, which removes the node and
    /// keeps every reached road inside. (An unreached node lying exactly on a reached road — two
    /// overlapping pieces — cannot be separated and stays inside.)
    /// - Parameters:
    ///   - breaks: time limits in seconds (e.g. 300, 600, 900); must be finite and ≥ 0.
    ///   - bufferMetres: half-width of the area around reached roads.
    ///   - quadrantSegments: GEOS buffer arc resolution (4 is plenty for a service area).
    ///   - polygons: `false` skips the GEOS construction (then `area` is empty): for callers that
    ///     only need the reached roads and node counts.
    /// - Throws: `GeometryError` for a bad break or from GEOS.
    public func serviceAreas(from origin: EdgePosition, breaks: [Double], avoiding closures: RoadClosures = .none,
                             bufferMetres: Double = 25, quadrantSegments: Int = 4,
                             polygons: Bool = true) throws -> [ServiceArea] {
        for (i, b) in breaks.enumerated() where !(b.isFinite && b >= 0) {
            throw GeometryError(.invalidArgument, "a break must be a finite number of seconds ≥ 0, got \(b)", position: "breaks[\(i)]")
        }
        guard bufferMetres.isFinite, bufferMetres > 0 else {
            throw GeometryError(.invalidArgument, "bufferMetres must be > 0, got \(bufferMetres)", position: "bufferMetres")
        }
        let tree = tree(from: origin, closures: closures)
        return try breaks.sorted().map { limit in
            try serviceArea(origin: origin, limit: limit, tree: tree, closures: closures,
                            bufferMetres: bufferMetres, quadrantSegments: quadrantSegments, polygons: polygons)
        }
    }

    /// Reached intervals (metres along the piece, sorted, disjoint) of piece `p`, given the
    /// forward reach from its start and backward reach from its end (-1 = none).
    func intervals(_ p: Int, forward f: Double, backward b: Double, origin: [(Double, Double)]) -> [(Double, Double)] {
        let len = network.pieces[p].length
        var list = origin
        if f >= 0 { list.append((0, f)) }
        if b >= 0 { list.append((len - b, len)) }
        if list.count < 2 { return list }
        list.sort { $0.0 < $1.0 }
        var merged: [(Double, Double)] = []
        for iv in list {
            if let last = merged.last, iv.0 <= last.1 { merged[merged.count - 1].1 = max(last.1, iv.1) } else { merged.append(iv) }
        }
        return merged
    }

    func serviceArea(origin: EdgePosition, limit: Double, tree: TravelTree, closures: RoadClosures,
                     bufferMetres: Double, quadrantSegments: Int, polygons: Bool) throws -> ServiceArea {
        let pieceCount = network.pieces.count
        // Reach from each piece's start along it (forward arc) and from its end against it.
        var forwardReach = [Double](repeating: -1, count: pieceCount)
        var backwardReach = [Double](repeating: -1, count: pieceCount)
        var reachedNodes = 0
        var nodeSeconds = [Double](repeating: .infinity, count: network.nodes.count)
        for v in 0..<network.nodes.count {
            let t = tree.seconds(to: Int32(v), in: self)
            nodeSeconds[v] = t
            if t <= limit { reachedNodes += 1 }
        }
        for a in 0..<arcCost.count {
            let t = nodeSeconds[Int(arcTail[a])]
            guard t <= limit else { continue }
            let p = Int(arcPiece[a])
            if closures.contains(p) { continue }
            let len = network.pieces[p].length
            let reach = arcCost[a] > 0 ? min(1, (limit - t) / arcCost[a]) * len : len
            if arcForward[a] { forwardReach[p] = reach } else { backwardReach[p] = reach }
        }
        var originIntervals: [(Double, Double)] = []
        let op = origin.piece, opLen = network.pieces[op].length
        for s in tree.seeds {
            let a = Int(s.forward ? forwardArc[op] : backwardArc[op])
            let reach = arcCost[a] > 0 ? min(1, limit / arcCost[a]) * opLen : opLen
            originIntervals.append(s.forward ? (origin.offset, min(opLen, origin.offset + reach))
                                             : (max(0, origin.offset - reach), origin.offset))
        }
        if originIntervals.isEmpty, !closures.contains(op) { originIntervals = [(origin.offset, origin.offset)] }

        // Reached parts as lines, chained along each road line where whole pieces follow each other
        // (fewer, longer lines: far fewer buffer end caps for GEOS to node).
        var lines: [LineString] = []
        var reachedMetres = 0.0
        var chain: [Position] = []
        var chainEnd: (line: Int32, node: Int32)? = nil
        func flush() {
            if !chain.isEmpty { lines.append(LineString(chain)) }
            chain = []
            chainEnd = nil
        }
        for p in 0..<pieceCount {
            let f = forwardReach[p], b = backwardReach[p]
            if f < 0 && b < 0 && p != op { continue }
            let piece = network.pieces[p]
            let list = intervals(p, forward: f, backward: b, origin: p == op ? originIntervals : [])
            for (k, (lo, hi)) in list.enumerated() {
                reachedMetres += hi - lo
                let coords = (lo == 0 && hi == piece.length) ? piece.coordinates
                    : network.coordinates(ofPiece: p, from: lo, to: hi)
                if k == 0, lo == 0, let end = chainEnd, end.line == piece.line, end.node == piece.from {
                    chain.append(contentsOf: coords.dropFirst())
                } else {
                    flush()
                    chain = coords
                }
                if hi == piece.length { chainEnd = (piece.line, piece.to) } else { flush() }
            }
            if list.isEmpty { flush() }
        }
        flush()
        let roads = MultiLineString(lines)
        guard !lines.isEmpty, polygons else {
            return ServiceArea(seconds: limit, area: .polygon(Polygon(exterior: [])), roads: roads,
                               reachedNodes: reachedNodes, reachedMetres: reachedMetres)
        }
        var area = try Geometry.multiLineString(roads).buffer(
            distance: bufferMetres, parameters: BufferParameters(quadrantSegments: quadrantSegments))

        // Cut unreached nodes out of the buffer.
        var holes: [Geometry] = []
        for v in 0..<network.nodes.count where nodeSeconds[v] > limit {
            let u = network.nodes[v]
            let box = Envelope(minX: u.x - bufferMetres, minY: u.y - bufferMetres,
                               maxX: u.x + bufferMetres, maxY: u.y + bufferMetres)
            var nearest = Double.infinity
            for p in network.pieces(intersecting: box) {
                let f = forwardReach[p], b = backwardReach[p]
                if f < 0 && b < 0 && p != op { continue }
                for (lo, hi) in intervals(p, forward: f, backward: b, origin: p == op ? originIntervals : []) {
                    nearest = min(nearest, Self.distance(from: u, to: network.coordinates(ofPiece: p, from: lo, to: hi)))
                }
            }
            if nearest < bufferMetres, nearest > 0 {
                holes.append(try Geometry.point(Point(u)).buffer(distance: nearest / 2,
                                                                parameters: BufferParameters(quadrantSegments: quadrantSegments)))
            }
        }
        if !holes.isEmpty {
            area = try area.difference(try Geometry.geometryCollection(GeometryCollection(holes)).unaryUnion())
        }
        return ServiceArea(seconds: limit, area: area, roads: roads, reachedNodes: reachedNodes, reachedMetres: reachedMetres)
    }

    static func distance(from u: Position, to line: [Position]) -> Double {
        var best = Double.infinity
        for s in 1..<max(line.count, 2) where s < line.count {
            let a = line[s - 1], b = line[s]
            let dx = b.x - a.x, dy = b.y - a.y
            let len2 = dx * dx + dy * dy
            var t = len2 > 0 ? ((u.x - a.x) * dx + (u.y - a.y) * dy) / len2 : 0
            t = min(max(t, 0), 1)
            best = min(best, hypot(u.x - a.x - t * dx, u.y - a.y - t * dy))
        }
        if line.count == 1 { best = hypot(u.x - line[0].x, u.y - line[0].y) }
        return best
    }
}
