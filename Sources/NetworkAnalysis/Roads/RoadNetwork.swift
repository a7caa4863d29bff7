import Foundation
import GeoCore

/// The road network's topology and geometry: road lines split into pieces at shared vertices.
///
/// Nodes are every line end point and every vertex that two or more lines (or one line twice)
/// share, matched exactly after rounding to the millimetre. Lines that cross without a shared
/// vertex are NOT connected: that is how bridges and tunnels pass over each other, so the
/// roads layer must carry a vertex at every real junction (the sample district and
/// topology-checked imports do). Built once per roads-layer version; immutable and `Sendable`.
public struct RoadNetwork: Sendable {
    /// The input lines (kept for ids, speed, one-way, class).
    public let lines: [RoadLine]
    /// Node positions (metres).
    public let nodes: [Position]
    /// Pieces between nodes.
    public let pieces: [RoadPiece]
    /// Spatial index of pieces for snapping and closures.
    let index: STRtree<Int32>

    /// Splits `lines` into a network.
    /// - Throws: `GeometryError` (`.invalidGeometry` / `.invalidArgument`) naming the line index
    ///   when a line has fewer than two vertices, a non-finite coordinate, or a speed that is not
    ///   a positive finite number.
    public init(lines: [RoadLine]) throws {
        struct Key: Hashable { var x: Int64; var y: Int64 }
        func key(_ p: Position) -> Key { Key(x: Int64((p.x * 1000).rounded()), y: Int64((p.y * 1000).rounded())) }
        var uses: [Key: Int32] = [:]
        for (i, line) in lines.enumerated() {
            guard line.coordinates.count >= 2 else {
                throw GeometryError(.invalidGeometry, "a road line needs at least two vertices", position: "lines[\(i)]")
            }
            guard line.speedKmh.isFinite, line.speedKmh > 0 else {
                throw RoadNetworkError("speed_kmh must be a positive number, got \(line.speedKmh)",
                                    field: "lines[\(i)].speedKmh")
            }
            for (j, p) in line.coordinates.enumerated() {
                guard p.x.isFinite, p.y.isFinite else {
                    throw GeometryError(.invalidGeometry, "non-finite coordinate", position: "lines[\(i)].coordinates[\(j)]")
                }
                uses[key(p), default: 0] += 1
            }
            // Both ends are always nodes: count them twice.
            uses[key(line.coordinates[0]), default: 0] += 1
            uses[key(line.coordinates[line.coordinates.count - 1]), default: 0] += 1
        }
        var nodeOf: [Key: Int32] = [:]
        var nodes: [Position] = []
        var pieces: [RoadPiece] = []
        func node(_ p: Position) -> Int32 {
            let k = key(p)
            if let n = nodeOf[k] { return n }
            let n = Int32(nodes.count)
            nodes.append(Position(x: p.x, y: p.y))
            nodeOf[k] = n
            return n
        }
        for (i, line) in lines.enumerated() {
            var start = 0
            let c = line.coordinates
            for j in 1..<c.count where j == c.count - 1 || (uses[key(c[j])] ?? 0) > 1 {
                let part = Array(c[start...j]).map { Position(x: $0.x, y: $0.y) }
                var length = 0.0
                for s in 1..<part.count { length += hypot(part[s].x - part[s - 1].x, part[s].y - part[s - 1].y) }
                let a = node(c[start]), b = node(c[j])
                start = j
                if a == b && length == 0 { continue }   // repeated vertex
                pieces.append(RoadPiece(from: a, to: b, line: Int32(i), coordinates: part, length: length))
            }
        }
        self.lines = lines
        self.nodes = nodes
        self.pieces = pieces
        self.index = STRtree(pieces.indices.map { (Envelope(of: pieces[$0].coordinates)!, Int32($0)) })
    }

    /// The position on the network nearest to `point` (planar distance, metres), or `nil` for an
    /// empty network. Ties keep the piece listed first.
    public func snap(_ point: Position) -> EdgePosition? {
        guard let best = index.nearest(to: point, k: 1, distance: { distance(from: point, to: Int($0)) }).first else {
            return nil
        }
        return position(on: Int(best.element), nearest: point)
    }

    /// The `k` pieces nearest to `point`, each with the position on it nearest to `point`.
    public func snapCandidates(_ point: Position, k: Int) -> [EdgePosition] {
        index.nearest(to: point, k: k, distance: { distance(from: point, to: Int($0)) })
            .map { position(on: Int($0.element), nearest: point) }
    }

    /// Pieces whose envelope intersects `envelope`.
    public func pieces(intersecting envelope: Envelope) -> [Int] {
        index.query(envelope).map(Int.init)
    }

    /// The position on piece `piece` nearest to `point`.
    public func position(on piece: Int, nearest point: Position) -> EdgePosition {
        let c = pieces[piece].coordinates
        var best = Double.infinity, bestOffset = 0.0, bestPoint = c[0], walked = 0.0
        for s in 1..<c.count {
            let a = c[s - 1], b = c[s]
            let dx = b.x - a.x, dy = b.y - a.y
            let len2 = dx * dx + dy * dy
            var t = len2 > 0 ? ((point.x - a.x) * dx + (point.y - a.y) * dy) / len2 : 0
            t = min(max(t, 0), 1)
            let q = Position(x: a.x + t * dx, y: a.y + t * dy)
            let d = hypot(point.x - q.x, point.y - q.y)
            let segment = len2.squareRoot()
            if d < best { best = d; bestOffset = walked + t * segment; bestPoint = q }
            walked += segment
        }
        return EdgePosition(piece: piece, offset: min(bestOffset, pieces[piece].length), point: bestPoint, distance: best)
    }

    /// Planar distance from `point` to piece `piece` (metres).
    func distance(from point: Position, to piece: Int) -> Double {
        let c = pieces[piece].coordinates
        var best = Double.infinity
        for s in 1..<c.count {
            let a = c[s - 1], b = c[s]
            let dx = b.x - a.x, dy = b.y - a.y
            let len2 = dx * dx + dy * dy
            var t = len2 > 0 ? ((point.x - a.x) * dx + (point.y - a.y) * dy) / len2 : 0
            t = min(max(t, 0), 1)
            best = min(best, hypot(point.x - a.x - t * dx, point.y - a.y - t * dy))
        }
        return best
    }

    /// The vertices of piece `piece` between offsets `start` and `end` (metres from its first
    /// vertex, `start <= end`), in that order.
    public func coordinates(ofPiece piece: Int, from start: Double, to end: Double) -> [Position] {
        let c = pieces[piece].coordinates
        var out: [Position] = []
        var walked = 0.0
        for s in 1..<c.count {
            let a = c[s - 1], b = c[s]
            let segment = hypot(b.x - a.x, b.y - a.y)
            let s0 = walked, s1 = walked + segment
            walked = s1
            if s1 < start || s0 > end { continue }
            func at(_ m: Double) -> Position {
                let t = segment > 0 ? min(max((m - s0) / segment, 0), 1) : 0
                return Position(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
            }
            if out.isEmpty { out.append(at(max(start, s0))) }
            let tail = at(min(end, s1))
            if out.last != tail { out.append(tail) }
        }
        if out.isEmpty { out = [c[0]] }
        if out.count == 1 { out.append(out[0]) }
        return out
    }
}

/// A position on the road network: a piece and the distance along it (metres from the piece's
/// first vertex). Routes start and end here, at partial cost, not at the nearest node.
public struct EdgePosition: Sendable, Hashable {
    /// Index into `RoadNetwork.pieces`.
    public var piece: Int
    /// Metres from the piece's first vertex, `0 ... length`.
    public var offset: Double
    /// The point on the road (metres).
    public var point: Position
    /// Distance from the query point to the road (metres); 0 when built directly.
    public var distance: Double

    /// A position on a piece.
    public init(piece: Int, offset: Double, point: Position, distance: Double = 0) {
        self.piece = piece
        self.offset = offset
        self.point = point
        self.distance = distance
    }
}
