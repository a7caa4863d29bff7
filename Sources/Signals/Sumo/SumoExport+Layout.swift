import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// Where the exported network's pieces lie: each signal's arms and their nodes, the lane groups'
/// lanes and turn bays, the links between lanes, the nodes' positions in the metric CRS.
extension SumoExport {
    static let directions: [String: (dx: Double, dy: Double)] = ["N": (0, 1), "S": (0, -1), "E": (1, 0), "W": (-1, 0)]
    static let opposite = ["N": "S", "S": "N", "E": "W", "W": "E"]

    /// Where a movement from an approach leaves (driving on the right).
    static func exit(from approach: String, _ movement: String) -> String? {
        SignalizedIntersection.exit(from: approach, movement)
    }

    /// The node on the other end of signal `k`'s arm in direction `d`: the neighbouring
    /// corridor signal or an arm node.
    func neighbour(_ k: Int, _ d: String) -> String {
        if let c = corridor {
            let outward = Self.opposite[c.outboundApproach] ?? ""
            if d == outward, k + 1 < signals.count { return signals[k + 1].intersection.id }
            if d == c.outboundApproach, k > 0 { return signals[k - 1].intersection.id }
        }
        return armNode(k, d)
    }

    /// The node at the far end of signal `k`'s arm toward `d` when no exported signal is there.
    func armNode(_ k: Int, _ d: String) -> String { "\(signals[k].intersection.id)_\(d)" }

    /// Edge id from signal `k` toward direction `d` (outgoing) or into `k` from `d` (incoming).
    func outgoing(_ k: Int, _ d: String) -> String {
        if roads != nil { return placements[k].outgoing[d] ?? "" }
        return "\(signals[k].intersection.id)_to_\(neighbour(k, d))"
    }
    func incoming(_ k: Int, _ d: String) -> String {
        if roads != nil { return placements[k].incoming[d] ?? "" }
        return "\(neighbour(k, d))_to_\(signals[k].intersection.id)"
    }

    /// Compass directions with a road at signal `k` (its lane groups' approaches).
    func arms(_ k: Int) -> [String] {
        Array(Set(signals[k].intersection.laneGroups.map(\.approach))).filter { Self.directions[$0] != nil }.sorted()
    }

    /// Directions traffic may leave signal `k` toward: on the road graph every road leaving its
    /// node (a one-way street has an exit but no approach, or the other way round); else its arms
    /// and the exit-only legs its lane groups' movements lead to.
    func exits(_ k: Int) -> Set<String> {
        roads != nil ? Set(placements[k].outgoing.keys) : Set(arms(k)).union(exitOnly(k))
    }

    /// Without a road graph: the directions a lane group's movement at signal `k` leaves toward
    /// where no approach arrives from (a one-way street out of the junction). Each gets an arm
    /// that only leaves, so that every counted movement is driven.
    func exitOnly(_ k: Int) -> [String] {
        guard roads == nil else { return [] }
        let approaches = Set(arms(k))
        var out: Set<String> = []
        for g in signals[k].intersection.laneGroups where approaches.contains(g.approach) {
            for m in g.movements { if let t = Self.exit(from: g.approach, m), !approaches.contains(t) { out.insert(t) } }
        }
        return out.sorted()
    }

    /// Lane groups of approach `d` at signal `k`, right to left, with their first lane index.
    func lanes(_ k: Int, _ d: String) -> [(group: SignalizedIntersection.LaneGroup, first: Int, count: Int)] {
        let groups = signals[k].intersection.laneGroups.filter { $0.approach == d }
        let laneCount = Dictionary(signals[k].intersection.demand.approaches.map { ($0.id, $0.lanes) }, uniquingKeysWith: { a, _ in a })
        func rank(_ g: SignalizedIntersection.LaneGroup) -> Int {
            g.movements.contains("right") ? 0 : g.movements.contains("left") ? 2 : 1
        }
        var next = 0
        return groups.sorted { (rank($0), $0.id) < (rank($1), $1.id) }.map { g in
            defer { next += laneCount[g.id] ?? 1 }
            return (g, next, laneCount[g.id] ?? 1)
        }
    }

    /// One connection of the exported network and the lane group and movement it serves.
    public struct Link: Sendable, Hashable {
        public var signal: String
        public var from: String
        public var fromLane: Int
        public var to: String
        public var toLane: Int
        public var laneGroup: String
        public var movement: String
    }

    /// Every connection through every signal.
    public func links() -> [Link] {
        var out: [Link] = []
        for k in signals.indices {
            let here = exits(k)
            for d in arms(k) {
                for (group, first, count) in lanes(k, d) {
                    for movement in ["right", "through", "left"] where group.movements.contains(movement) {
                        guard let t = Self.exit(from: d, movement), here.contains(t) else { continue }
                        let toLanes = laneCount(ofOutgoing: k, t)
                        // A turn shares a mixed group's outermost lane; a group of that turn alone (a
                        // double left or right bay) turns from every lane, side by side into the exit.
                        let alone = group.movements == [movement]
                        let fromLanes: [Int] = alone || movement == "through" ? Array(first..<(first + count))
                            : movement == "right" ? [first] : [first + count - 1]
                        for (j, lane) in fromLanes.enumerated() {
                            let toLane = movement == "left" ? max(0, toLanes - fromLanes.count + j) : min(j, toLanes - 1)
                            out.append(Link(signal: signals[k].intersection.id, from: stopLineEdge(k, d), fromLane: lane, to: outgoing(k, t),
                                            toLane: toLane, laneGroup: group.id, movement: movement))
                        }
                    }
                }
            }
        }
        return out
    }

    /// An approach's turn bays as SUMO is given them: its edge opens lanes at each bay's storage
    /// back from the stop line (`storage_m`, whole metres; longest first), each part of the edge
    /// an edge of its own. The first part keeps the approach edge's id (traffic enters there), the
    /// part at the stop line is the one the signal controls.
    struct Bays: Sendable, Hashable {
        /// One opening: its storage (m back from the stop line), the lane groups whose lanes begin
        /// there, the lanes from there on (stop-line lane indices, right to left) and the edge from there.
        struct Opening: Sendable, Hashable {
            var storage: Double
            var laneGroups: [String]
            var lanes: [Int]
            var edge: String
        }
        var signal: String
        var approach: String
        /// The approach edge (its first part).
        var edge: String
        /// Stop-line lane indices of the lanes that run the whole approach.
        var throughLanes: [Int]
        var openings: [Opening]

        /// The lanes of part `i` (0: the first part, the approach edge's id; i: after opening i − 1).
        func lanes(ofPart i: Int) -> [Int] { i == 0 ? throughLanes : openings[i - 1].lanes }
        func edge(ofPart i: Int) -> String { i == 0 ? edge : openings[i - 1].edge }

        /// Connections from part `i` into part `i + 1`, as (from lane, to lane) of the parts'
        /// own numbering: a lane that goes on keeps its place; a lane that opens is fed from the
        /// nearest lane of the part before.
        func connections(intoPart i: Int) -> [(from: Int, to: Int)] {
            let before = lanes(ofPart: i - 1), after = lanes(ofPart: i)
            return after.enumerated().map { j, lane in
                if let f = before.firstIndex(of: lane) { return (f, j) }
                let nearest = before.indices.min { (abs(before[$0] - lane), -before[$0]) < (abs(before[$1] - lane), -before[$1]) } ?? 0
                return (nearest, j)
            }
        }
    }

    /// Where storage shorter than its approach starts a bay: at least this far (m) from the
    /// approach edge's upstream end, so the part before it keeps a usable length.
    static let shortestLeadIn = 20.0

    /// The turn bays of signal `k`'s approach from `d` whose `storage_m` is shorter than the
    /// approach edge (`length`, m) less `shortestLeadIn`; nil with none. A bay as long as its
    /// approach runs the whole edge.
    /// - Throws: `ScenarioError` naming `signalized_intersections` when every lane group of the
    ///   approach is a bay, so no lane would feed them.
    func bays(_ k: Int, _ d: String, length: Double) throws -> Bays? {
        let storage = Dictionary(signals[k].intersection.demand.approaches.map { ($0.id, $0.storage) }, uniquingKeysWith: { a, _ in a })
        let groups = lanes(k, d)
        func opens(_ g: SignalizedIntersection.LaneGroup) -> Double? {
            guard let s = storage[g.id] ?? nil else { return nil }
            let whole = max(1, s.rounded())
            return whole <= length - Self.shortestLeadIn ? whole : nil
        }
        let bayGroups = groups.filter { opens($0.group) != nil }
        guard !bayGroups.isEmpty else { return nil }
        guard bayGroups.count < groups.count else {
            throw ScenarioError(.invalidDistrict, "\(signals[k].intersection.id) approach \(d): every lane group has a storage_m shorter than the approach, so no lane runs back along it to feed the bays: leave storage_m off the lane groups whose lanes run the approach's length", field: "signalized_intersections")
        }
        let edge = incoming(k, d)
        let through = groups.filter { opens($0.group) == nil }.flatMap { Array($0.first..<($0.first + $0.count)) }
        let lengths = Set(bayGroups.compactMap { opens($0.group) }).sorted(by: >)
        var openings: [Bays.Opening] = []
        for s in lengths {
            let longer = bayGroups.filter { opens($0.group)! >= s }
            let lanes = (through + longer.flatMap { Array($0.first..<($0.first + $0.count)) }).sorted()
            openings.append(.init(storage: s, laneGroups: bayGroups.filter { opens($0.group)! == s }.map(\.group.id).sorted(),
                                  lanes: lanes, edge: "\(edge)_bay\(Int(s))m"))
        }
        return Bays(signal: signals[k].intersection.id, approach: d, edge: edge, throughLanes: through, openings: openings)
    }

    /// The length (m) of signal `k`'s approach edge from `d`.
    func approachLength(_ k: Int, _ d: String) -> Double {
        if let roads {
            let id = incoming(k, d)
            guard let e = roads.edges.first(where: { $0.id == id }) else { return armLength }
            return zip(e.shape, e.shape.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
        }
        if let c = corridor, let j = signals.firstIndex(where: { $0.intersection.id == neighbour(k, d) }) {
            return c.distances[min(j, k)]
        }
        return armLength
    }

    /// Every exported approach with turn bays, by approach edge id.
    func allBays() throws -> [String: Bays] {
        var out: [String: Bays] = [:]
        for k in signals.indices {
            for d in arms(k) {
                if let b = try bays(k, d, length: approachLength(k, d)) { out[b.edge] = b }
            }
        }
        return out
    }

    /// Lanes where traffic enters signal `k`'s approach from `d`: its lane groups' lanes less the
    /// turn bays', at least one.
    func entryLanes(_ k: Int, _ d: String) -> Int {
        if let b = try? bays(k, d, length: approachLength(k, d)) { return b.throughLanes.count }
        return max(1, lanes(k, d).reduce(0) { $0 + $1.count })
    }

    /// The edge of signal `k`'s approach from `d` that reaches its stop line: the approach edge,
    /// or its last part when it has turn bays.
    func stopLineEdge(_ k: Int, _ d: String) -> String {
        let edge = incoming(k, d)
        guard let b = try? bays(k, d, length: approachLength(k, d)), let last = b.openings.last else { return edge }
        return last.edge
    }

    /// Lanes of the edge leaving signal `k` toward `d`: the next signal's approach lanes on a
    /// corridor link, else the through lanes feeding it (at least two).
    func laneCount(ofOutgoing k: Int, _ d: String) -> Int {
        if let roads {
            let id = outgoing(k, d)
            return roads.edges.first { $0.id == id }.map { roadLanes($0) } ?? 1
        }
        let n = neighbour(k, d)
        if let j = signals.firstIndex(where: { $0.intersection.id == n }) {
            return entryLanes(j, Self.opposite[d] ?? d)
        }
        // An arm takes every through lane that feeds it on a lane of its own.
        let feeding = Self.opposite[d].map { from in lanes(k, from).filter { $0.group.movements.contains("through") }.reduce(0) { $0 + $1.count } } ?? 0
        return max(2, feeding)
    }

    /// Lanes of a road edge: at a signal's approach its lane groups' lanes, else the road's.
    func roadLanes(_ e: Roads.Edge) -> Int {
        guard let j = placements.firstIndex(where: { $0.node == e.to }),
              let d = placements[j].incoming.first(where: { $0.value == e.id })?.key else { return e.lanes }
        return lanes(j, d).isEmpty ? e.lanes : entryLanes(j, d)
    }

    /// Node positions in the network's metric CRS (m).
    func positions() throws -> [String: Position] {
        let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
        var out: [String: Position] = [:]
        for (k, s) in signals.enumerated() {
            let p = try transformer.transform(s.intersection.position)
            out[s.intersection.id] = p
            for d in arms(k) + exitOnly(k) where neighbour(k, d) == armNode(k, d) {
                let v = Self.directions[d]!
                out[armNode(k, d)] = Position(x: p.x + v.dx * armLength, y: p.y + v.dy * armLength)
            }
        }
        return out
    }
}
