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
    /// Number of network nodes (junctions and road ends) reached within the break; a junction
    /// split by turn restrictions counts once.
    public var reachedNodes: Int
    /// Total length of reached road parts (metres).
    public var reachedMetres: Double
}

extension RoadGraph {
    /// Service areas (isochrones) from `origin` for each break (seconds), smallest first.
    ///
    /// Construction: one one-to-all search; every arc whose tail is reached within the break
    /// contributes the part of its piece the remaining time covers (partial pieces included), and
    /// the origin's piece contributes the stretch reachable directly. The area is built on a
    /// raster around those parts (see `serviceAreaPolygon`): it contains every reached road part
    /// (at least about `bufferMetres` inside its edge) and no unreached node, with holes cut
    /// around unreached nodes close to reached roads (the tip of a partial piece near its far
    /// end, a parallel one-way street, a bridge). An unreached node lying exactly on a reached
    /// road (two overlapping pieces) cannot be separated and stays inside. The polygon is valid
    /// (OGC) and its edges follow the grid.
    /// - Parameters:
    ///   - breaks: time limits in seconds (e.g. 300, 600, 900); must be finite and ≥ 0.
    ///   - bufferMetres: half-width of the area around reached roads (metres).
    ///   - cellMetres: raster cell side (metres); `nil` means `bufferMetres`. With
    ///     `k = max(1, round(bufferMetres / cellMetres))` the area's edge lies at least `k − 0.45`
    ///     cells and at most about `k + 2` cells from the reached roads (default: 14 to ~75 m for a
    ///     25 m buffer). A smaller cell gives a closer, finer edge at the cost of more cells and
    ///     vertices (`bufferMetres / 2` doubles the vertices and roughly triples the time).
    ///   - polygons: `false` skips the polygon (then `area` is empty): for callers that only need
    ///     the reached roads and node counts.
    /// - Throws: `GeometryError` for a bad break, buffer or cell size.
    public func serviceAreas(from origin: EdgePosition, breaks: [Double], avoiding closures: RoadClosures = .none,
                             bufferMetres: Double = 25, cellMetres: Double? = nil,
                             polygons: Bool = true) throws -> [ServiceArea] {
        try serviceAreas(from: RoadAccess(origin), breaks: breaks, avoiding: closures, bufferMetres: bufferMetres,
                         cellMetres: cellMetres, polygons: polygons)
    }

    /// The same from a point met at several tied road positions (see `RoadAccess`): the areas
    /// reached from the best of them. An origin on a junction reaches the junction at 0 s and
    /// leaves along every road the junction allows.
    public func serviceAreas(from origin: RoadAccess, breaks: [Double], avoiding closures: RoadClosures = .none,
                             bufferMetres: Double = 25, cellMetres: Double? = nil,
                             polygons: Bool = true) throws -> [ServiceArea] {
        for (i, b) in breaks.enumerated() where !(b.isFinite && b >= 0) {
            throw RoadNetworkError("a break must be a finite number of seconds ≥ 0, got \(b)", field: "breaks[\(i)]")
        }
        guard bufferMetres.isFinite, bufferMetres > 0 else {
            throw RoadNetworkError("bufferMetres must be > 0, got \(bufferMetres)", field: "bufferMetres")
        }
        let cell = cellMetres ?? bufferMetres
        guard cell.isFinite, cell > 0 else {
            throw RoadNetworkError("cellMetres must be > 0, got \(cell)", field: "cellMetres")
        }
        let tree = tree(from: origin.positions, closures: closures)
        let searchSeconds = searchSeconds(of: tree)
        let nodeSeconds = nodeSeconds(fromSearch: searchSeconds)
        var scratch = ReachScratch(pieceCount: network.pieces.count)
        return breaks.sorted().map { limit in
            serviceArea(limit: limit, tree: tree, searchSeconds: searchSeconds, nodeSeconds: nodeSeconds,
                        closures: closures,
                        bufferMetres: bufferMetres, cellMetres: cell, polygons: polygons, scratch: &scratch)
        }
    }

    /// The same with the former GEOS buffer's arc resolution, which the raster construction no
    /// longer uses.
    @available(*, deprecated, message: "quadrantSegments is ignored since the area is built on a raster; use serviceAreas(from:breaks:avoiding:bufferMetres:cellMetres:polygons:)")
    public func serviceAreas(from origin: EdgePosition, breaks: [Double], avoiding closures: RoadClosures = .none,
                             bufferMetres: Double = 25, quadrantSegments: Int, polygons: Bool = true) throws -> [ServiceArea] {
        try serviceAreas(from: origin, breaks: breaks, avoiding: closures, bufferMetres: bufferMetres, polygons: polygons)
    }

    /// Seconds from the search's origin to every network node (infinity when unreachable): the
    /// minimum over the node and its junction copies.
    func nodeSeconds(fromSearch seconds: [Double]) -> [Double] {
        let n = network.nodes.count
        guard !junctionCopies.isEmpty else { return seconds }
        var out = Array(seconds.prefix(n))
        for (k, v) in junctionCopies.enumerated() { out[Int(v)] = min(out[Int(v)], seconds[n + k]) }
        return out
    }

    /// Seconds from the search's origin to every search node, by node (infinity when unreachable).
    func searchSeconds(of tree: TravelTree) -> [Double] {
        guard let h = tree.hierarchy else { return tree.plainCost }
        let n = graphNodeCount
        return [Double](unsafeUninitializedCapacity: n) { out, count in
            hierarchy.rank.withUnsafeBufferPointer { rank in
                h.cost.withUnsafeBufferPointer { cost in
                    for v in 0..<n { out[v] = cost[Int(rank[v])] }
                }
            }
            count = n
        }
    }

    /// Per-piece reach, reused across breaks: metres reached from each piece's start along it
    /// (forward arc) and from its end against it (-1 = none).
    struct ReachScratch {
        var forward: [Double]
        var backward: [Double]
        init(pieceCount: Int) {
            forward = [Double](repeating: -1, count: pieceCount)
            backward = forward
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

    func serviceArea(limit: Double, tree: TravelTree, searchSeconds: [Double], nodeSeconds: [Double],
                     closures: RoadClosures,
                     bufferMetres: Double, cellMetres: Double, polygons: Bool, scratch: inout ReachScratch) -> ServiceArea {
        let pieceCount = network.pieces.count
        var reachedNodes = 0
        nodeSeconds.withUnsafeBufferPointer { t in
            for v in 0..<t.count where t[v] <= limit { reachedNodes += 1 }
        }
        // Reach from each piece's start along it (forward arc) and from its end against it.
        scratch.forward.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        scratch.backward.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        let noClosures = closures.isEmpty
        network.pieces.withUnsafeBufferPointer { pieceLength in
        searchSeconds.withUnsafeBufferPointer { seconds in
            arcTail.withUnsafeBufferPointer { tail in
                arcCost.withUnsafeBufferPointer { cost in
                    arcPiece.withUnsafeBufferPointer { piece in
                        arcForward.withUnsafeBufferPointer { forward in
                            for a in 0..<cost.count {
                                let t = seconds[Int(tail[a])]
                                guard t <= limit else { continue }
                                let p = Int(piece[a])
                                if !noClosures && closures.contains(p) { continue }
                                let len = pieceLength[p].length
                                let c = noClosures ? cost[a] : cost[a] * closures.factor(p)
                                let reach = c > 0 ? min(1, (limit - t) / c) * len : len
                                // A piece direction has several arcs when junction copies duplicate it.
                                if forward[a] { scratch.forward[p] = max(scratch.forward[p], reach) }
                                else { scratch.backward[p] = max(scratch.backward[p], reach) }
                            }
                        }
                    }
                }
            }
        }
        }
        // The stretches of the origins' own pieces reached directly (by piece).
        var originIntervals: [Int: [(Double, Double)]] = [:]
        for s in tree.seeds where !s.atNode {
            let origin = tree.origins[s.origin], op = origin.piece, opLen = network.pieces[op].length
            let a = Int(s.forward ? forwardArc[op] : backwardArc[op])
            let c = arcCost[a] * closures.factor(op)
            let reach = c > 0 ? min(1, limit / c) * opLen : opLen
            originIntervals[op, default: []].append(s.forward ? (origin.offset, min(opLen, origin.offset + reach))
                                                              : (max(0, origin.offset - reach), origin.offset))
        }
        for origin in tree.origins where !closures.contains(origin.piece) && originIntervals[origin.piece] == nil {
            originIntervals[origin.piece] = [(origin.offset, origin.offset)]
        }

        // Reached parts as lines, chained along each road line where whole pieces follow each other.
        var lines: [LineString] = []
        var reachedMetres = 0.0
        var chain: [Position] = []
        var chainEnd: (line: Int32, node: Int32)? = nil
        func flush() {
            if !chain.isEmpty { lines.append(LineString(chain)) }
            chain = []
            chainEnd = nil
        }
        network.pieces.withUnsafeBufferPointer { pieces in
            scratch.forward.withUnsafeBufferPointer { forward in
                scratch.backward.withUnsafeBufferPointer { backward in
                    /// Adds reached interval `lo ... hi` (metres) of piece `p`, the `k`-th on it.
                    func add(_ p: Int, _ lo: Double, _ hi: Double, first: Bool) {
                        let len = pieces[p].length
                        reachedMetres += hi - lo
                        let whole = lo == 0 && hi == len
                        if first, lo == 0, let end = chainEnd, end.line == pieces[p].line, end.node == pieces[p].from {
                            if whole { chain.append(contentsOf: pieces[p].coordinates.dropFirst()) }
                            else { chain.append(contentsOf: network.coordinates(ofPiece: p, from: lo, to: hi).dropFirst()) }
                        } else {
                            flush()
                            chain = whole ? pieces[p].coordinates : network.coordinates(ofPiece: p, from: lo, to: hi)
                        }
                        if hi == len { chainEnd = (pieces[p].line, pieces[p].to) } else { flush() }
                    }
                    for p in 0..<pieceCount {
                        let f = forward[p], b = backward[p]
                        if let own = originIntervals[p] {
                            let list = intervals(p, forward: f, backward: b, origin: own)
                            for (k, (lo, hi)) in list.enumerated() { add(p, lo, hi, first: k == 0) }
                            if list.isEmpty { flush() }
                            continue
                        }
                        if f < 0 && b < 0 { continue }
                        let len = pieces[p].length
                        if f >= 0 && b >= 0 && f < len - b {
                            add(p, 0, f, first: true)
                            add(p, len - b, len, first: false)
                        } else if f >= 0 && b >= 0 {
                            add(p, 0, len, first: true)
                        } else if f >= 0 {
                            add(p, 0, f, first: true)
                        } else {
                            add(p, len - b, len, first: true)
                        }
                    }
                }
            }
        }
        flush()
        let roads = MultiLineString(lines)
        guard !lines.isEmpty, polygons else {
            return ServiceArea(seconds: limit, area: .polygon(Polygon(exterior: [])), roads: roads,
                               reachedNodes: reachedNodes, reachedMetres: reachedMetres)
        }
        let forwardReach = scratch.forward, backwardReach = scratch.backward
        let area = serviceAreaPolygon(roads: roads, limit: limit, nodeSeconds: nodeSeconds,
                                      bufferMetres: bufferMetres, cellMetres: cellMetres) { u, radius in
            let box = Envelope(minX: u.x - radius, minY: u.y - radius, maxX: u.x + radius, maxY: u.y + radius)
            var nearest = radius
            for p in network.pieces(intersecting: box) {
                let f = forwardReach[p], b = backwardReach[p]
                let own = originIntervals[p]
                if f < 0 && b < 0 && own == nil { continue }
                for (lo, hi) in intervals(p, forward: f, backward: b, origin: own ?? []) {
                    nearest = min(nearest, Self.distance(from: u, to: network.coordinates(ofPiece: p, from: lo, to: hi)))
                }
            }
            return nearest
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
