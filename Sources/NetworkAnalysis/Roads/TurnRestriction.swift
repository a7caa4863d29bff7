import Foundation
import GeoCore

/// A turn that drivers may not make (or the only turn they may make) at one junction, as the
/// traffic police survey it (OSM `restriction=*` via a node): from road `fromRoad`, through the
/// junction node `via`, onto road `toRoad`.
///
/// A `no_*` restriction forbids the turns from `fromRoad` onto `toRoad` at the junction; an
/// `only_*` restriction forbids every other exit for traffic arriving on `fromRoad`. When
/// `toRoad` leaves the junction in more than one direction (it runs through it), the kind picks
/// the exit by geometry (left = counter-clockwise turn of more than 45°, right = clockwise,
/// straight on = within 45°, U-turn = more than 150°); when it leaves in one direction that exit
/// is meant. A road running through the junction is restricted for traffic arriving from either
/// side that has such a turn onto `toRoad`. Only the driving profile honours restrictions;
/// pedestrians turn anywhere.
public struct TurnRestriction: Sendable, Hashable {
    /// The kinds of OSM's `restriction` tag.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case noLeftTurn = "no_left_turn"
        case noRightTurn = "no_right_turn"
        case noStraightOn = "no_straight_on"
        case noUTurn = "no_u_turn"
        case onlyLeftTurn = "only_left_turn"
        case onlyRightTurn = "only_right_turn"
        case onlyStraightOn = "only_straight_on"

        /// Whether this kind names the one allowed turn rather than a forbidden one.
        public var isOnly: Bool {
            switch self {
            case .onlyLeftTurn, .onlyRightTurn, .onlyStraightOn: return true
            default: return false
            }
        }

        var turn: Turn {
            switch self {
            case .noLeftTurn, .onlyLeftTurn: return .left
            case .noRightTurn, .onlyRightTurn: return .right
            case .noStraightOn, .onlyStraightOn: return .straight
            case .noUTurn: return .uTurn
            }
        }
    }

    /// The restriction's feature id, for reports.
    public var id: String?
    /// `RoadLine.id` of the road traffic arrives on.
    public var fromRoad: String
    /// `RoadLine.id` of the road traffic turns onto (the same road for a U-turn ban).
    public var toRoad: String
    /// The junction (metres, the network's CRS), or `nil` when the two roads meet at one node only.
    /// The node where the roads meet nearest to it, within `RoadGraph.viaToleranceMetres`, is used.
    public var via: Position?
    /// What is forbidden.
    public var kind: Kind

    /// A turn restriction.
    public init(id: String? = nil, fromRoad: String, toRoad: String, via: Position? = nil, kind: Kind) {
        self.id = id
        self.fromRoad = fromRoad
        self.toRoad = toRoad
        self.via = via
        self.kind = kind
    }
}

/// A turn restriction that could not be applied, and why: for the surveyor to fix.
public struct UnresolvedTurnRestriction: Sendable, Hashable {
    /// Position in the input: into `RoadGraph.restrictions` for restrictions the graph could not
    /// match, or the feature's position in its layer for features a reader skipped.
    public var index: Int
    /// The restriction.
    public var restriction: TurnRestriction
    /// Why it could not be matched to the roads (names the roads and the junction).
    public var reason: String

    /// A restriction not applied, and why.
    public init(index: Int, restriction: TurnRestriction, reason: String) {
        self.index = index
        self.restriction = restriction
        self.reason = reason
    }
}

/// Geometric class of a turn.
enum Turn: Equatable, CustomStringConvertible {
    case left, right, straight, uTurn

    var description: String {
        switch self {
        case .left: "left turn"
        case .right: "right turn"
        case .straight: "straight-on movement"
        case .uTurn: "U-turn"
        }
    }

    /// The turn from direction `d1` into direction `d2` (planar vectors, metres; y = north).
    init(from d1: (Double, Double), to d2: (Double, Double)) {
        let cross = d1.0 * d2.1 - d1.1 * d2.0, dot = d1.0 * d2.0 + d1.1 * d2.1
        let degrees = atan2(cross, dot) * 180 / .pi
        if abs(degrees) > 150 { self = .uTurn } else if degrees > 45 { self = .left }
        else if degrees < -45 { self = .right } else { self = .straight }
    }
}

extension RoadGraph {
    /// How far (metres) a restriction's `via` position may lie from the node where its roads meet.
    public static let viaToleranceMetres = 30.0

    /// Matches `restrictions` to base arcs: for each restricted incoming arc, the outgoing arcs at
    /// its head that it may not continue on.
    static func resolve(_ restrictions: [TurnRestriction], network: RoadNetwork, tails: [Int32], heads: [Int32],
                        pieceOf: [Int32], forward: [Bool], outgoing: CompactGraph)
        -> (forbidden: [Int32: Set<Int32>], unresolved: [UnresolvedTurnRestriction]) {
        var linesOf: [String: [Int32]] = [:]
        for (i, line) in network.lines.enumerated() { if let id = line.id { linesOf[id, default: []].append(Int32(i)) } }
        var piecesOfLine: [Int32: [Int32]] = [:]
        for (p, piece) in network.pieces.enumerated() { piecesOfLine[piece.line, default: []].append(Int32(p)) }
        var incoming = [[Int32]](repeating: [], count: network.nodes.count)
        for a in heads.indices { incoming[Int(heads[a])].append(Int32(a)) }

        /// Direction of arc `a` leaving its tail (`atTail`) or arriving at its head.
        func direction(_ a: Int32, atTail: Bool) -> (Double, Double) {
            var c = network.pieces[Int(pieceOf[Int(a)])].coordinates
            if !forward[Int(a)] { c.reverse() }
            if atTail {
                for k in 1..<c.count where c[k] != c[0] { return (c[k].x - c[0].x, c[k].y - c[0].y) }
            } else {
                let e = c[c.count - 1]
                for k in stride(from: c.count - 2, through: 0, by: -1) where c[k] != e { return (e.x - c[k].x, e.y - c[k].y) }
            }
            return (0, 0)
        }

        var forbidden: [Int32: Set<Int32>] = [:]
        var unresolved: [UnresolvedTurnRestriction] = []
        for (index, r) in restrictions.enumerated() {
            let name = "turn restriction \(r.id ?? "#\(index)") (\(r.kind.rawValue) from \(r.fromRoad) to \(r.toRoad))"
            func fail(_ why: String) { unresolved.append(UnresolvedTurnRestriction(index: index, restriction: r, reason: "\(name): \(why)")) }
            guard let fromLines = linesOf[r.fromRoad] else { fail("road \(r.fromRoad) is not in the roads layer"); continue }
            guard let toLines = linesOf[r.toRoad] else { fail("road \(r.toRoad) is not in the roads layer"); continue }
            let fromSet = Set(fromLines), toSet = Set(toLines)
            func nodes(_ lines: [Int32]) -> Set<Int32> {
                var s = Set<Int32>()
                for l in lines { for p in piecesOfLine[l] ?? [] { s.insert(network.pieces[Int(p)].from); s.insert(network.pieces[Int(p)].to) } }
                return s
            }
            let shared = nodes(fromLines).intersection(nodes(toLines)).sorted()
            guard !shared.isEmpty else { fail("the roads do not meet at a junction"); continue }
            let v: Int32
            if let via = r.via {
                guard via.x.isFinite, via.y.isFinite else { fail("the via position is not finite"); continue }
                let best = shared.min { hypot(network.nodes[Int($0)].x - via.x, network.nodes[Int($0)].y - via.y)
                                      < hypot(network.nodes[Int($1)].x - via.x, network.nodes[Int($1)].y - via.y) }!
                let d = hypot(network.nodes[Int(best)].x - via.x, network.nodes[Int(best)].y - via.y)
                guard d <= viaToleranceMetres else {
                    fail(String(format: "the nearest junction of the two roads is %.1f m from the via point (limit %.0f m)", d, viaToleranceMetres))
                    continue
                }
                v = best
            } else {
                guard shared.count == 1 else { fail("the roads meet at \(shared.count) junctions; give the via intersection"); continue }
                v = shared[0]
            }
            let node = network.nodes[Int(v)]
            let at = String(format: "(%.1f, %.1f)", node.x, node.y)
            let from = incoming[Int(v)].filter { fromSet.contains(network.pieces[Int(pieceOf[Int($0)])].line) }
            guard !from.isEmpty else { fail("no traffic on \(r.fromRoad) may enter the junction at \(at) (one-way)"); continue }
            var matched = false
            for a in from {
                let inDir = direction(a, atTail: false)
                var candidates: [Int32] = []
                for slot in outgoing.slots(leaving: Int(v)) {
                    let b = outgoing.arcIDs[slot]
                    guard toSet.contains(network.pieces[Int(pieceOf[Int(b)])].line) else { continue }
                    let reverse = pieceOf[Int(b)] == pieceOf[Int(a)] && forward[Int(b)] != forward[Int(a)]
                    if reverse && r.kind != .noUTurn { continue }
                    candidates.append(b)
                }
                if r.kind == .noUTurn || candidates.count > 1 {
                    candidates = candidates.filter { Turn(from: inDir, to: direction($0, atTail: true)) == r.kind.turn }
                }
                guard !candidates.isEmpty else { continue }
                matched = true
                if r.kind.isOnly {
                    let allowed = Set(candidates)
                    for slot in outgoing.slots(leaving: Int(v)) where !allowed.contains(outgoing.arcIDs[slot]) {
                        forbidden[a, default: []].insert(outgoing.arcIDs[slot])
                    }
                } else {
                    forbidden[a, default: []].formUnion(candidates)
                }
            }
            if !matched {
                fail("no \(r.kind.turn) from \(r.fromRoad) onto \(r.toRoad) exists at the junction at \(at)")
            }
        }
        forbidden = forbidden.filter { !$0.value.isEmpty }
        return (forbidden, unresolved)
    }
}
