import Foundation
import GeoCore

/// Which parts of the road network lie within a distance along the streets of a set of sources —
/// hydrants, whose hoses are laid along the streets whatever their one-way rules, or water sources.
/// Distances are metres along road pieces in both directions (one-way and road classes ignored).
public struct StreetCoverage: Sendable {
    /// An uncovered stretch of one piece: metres from the piece's first vertex.
    public struct Gap: Sendable, Hashable {
        public var piece: Int
        public var start: Double
        public var end: Double
        public var length: Double { end - start }
    }

    /// The distance along the streets that counts as covered.
    public let radius: Double
    /// Total length of the network (metres).
    public let totalMetres: Double
    /// Length within `radius` of a source.
    public let coveredMetres: Double
    /// Maximal uncovered stretches, by piece then offset.
    public let gaps: [Gap]
    /// Street distance from the nearest source to each node (infinity when unreached).
    public let nodeDistances: [Double]
    /// The sources, as placed on the network.
    public let sources: [EdgePosition]
}

extension RoadNetwork {
    /// Street distances from the nearest of `sources` to every node: one multi-source Dijkstra
    /// over the undirected pieces, stopped beyond `limit` metres.
    public func streetDistances(from sources: [EdgePosition], limit: Double = .infinity) -> [Double] {
        var adjacency = [[(node: Int32, metres: Double)]](repeating: [], count: nodes.count)
        for p in pieces {
            adjacency[Int(p.from)].append((p.to, p.length))
            adjacency[Int(p.to)].append((p.from, p.length))
        }
        var distance = [Double](repeating: .infinity, count: nodes.count)
        var heap = MinHeap()
        func relax(_ node: Int32, _ d: Double) {
            if d < distance[Int(node)] && d <= limit {
                distance[Int(node)] = d
                heap.push(d, node)
            }
        }
        for s in sources {
            let piece = pieces[s.piece]
            relax(piece.from, s.offset)
            relax(piece.to, piece.length - s.offset)
        }
        while let (d, node) = heap.pop() {
            guard d <= distance[Int(node)] else { continue }
            for (next, metres) in adjacency[Int(node)] { relax(next, d + metres) }
        }
        return distance
    }

    /// The street distance from the nearest of `sources` to `position`, given the node
    /// distances of `streetDistances(from: sources)`.
    public func streetDistance(to position: EdgePosition, nodeDistances: [Double], sources: [EdgePosition]) -> Double {
        let piece = pieces[position.piece]
        var best = min(nodeDistances[Int(piece.from)] + position.offset, nodeDistances[Int(piece.to)] + piece.length - position.offset)
        for s in sources where s.piece == position.piece { best = min(best, abs(s.offset - position.offset)) }
        return best
    }

    /// What lies within `radius` metres along the streets of `sources`: covered length and the
    /// uncovered stretches of every piece.
    public func streetCoverage(from sources: [EdgePosition], radius: Double) -> StreetCoverage {
        let distances = streetDistances(from: sources, limit: radius)
        var onPiece = [Int: [Double]]()
        for s in sources { onPiece[s.piece, default: []].append(s.offset) }
        var gaps: [StreetCoverage.Gap] = []
        var total = 0.0, uncovered = 0.0
        for (index, piece) in pieces.enumerated() {
            let length = piece.length
            total += length
            // Covered intervals: from each end node as far as its distance leaves, and around each source on the piece.
            var covered: [(Double, Double)] = []
            let fromEnd = radius - distances[Int(piece.from)], toEnd = radius - distances[Int(piece.to)]
            if fromEnd >= 0 { covered.append((0, min(length, fromEnd))) }
            if toEnd >= 0 { covered.append((max(0, length - toEnd), length)) }
            for s in onPiece[index] ?? [] { covered.append((max(0, s - radius), min(length, s + radius))) }
            covered.sort { $0.0 < $1.0 }
            var cursor = 0.0
            for (a, b) in covered {
                if a > cursor { gaps.append(.init(piece: index, start: cursor, end: a)) }
                cursor = max(cursor, b)
            }
            if cursor < length { gaps.append(.init(piece: index, start: cursor, end: length)) }
        }
        // Stretches shorter than a millimetre are rounding, not gaps.
        gaps.removeAll { $0.length < 0.001 }
        uncovered = gaps.reduce(0) { $0 + $1.length }
        return StreetCoverage(radius: radius, totalMetres: total, coveredMetres: total - uncovered, gaps: gaps,
                              nodeDistances: distances, sources: sources)
    }
}
