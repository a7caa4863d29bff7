import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// One intersection, a corridor or the whole district as a SUMO scenario, so a traffic engineer
/// can replay CityTwin's plans in an independent simulator: SUMO plain XML (nodes, edges,
/// connections: `netconvert` turns them into a network), the stored plans as `tlLogic`
/// programs switched by time of day (`WAUT`), and routes from the counts as `flow`s with
/// Poisson arrivals. Simulation time is the time of day in seconds, so a plan's period and
/// the counts' intervals keep their clock times.
///
/// Geometry, one intersection or a corridor: each signal at its position in the district's
/// metric CRS; an approach that does not come from another exported signal starts at an arm
/// node `armLength` m away in its compass direction. A corridor's consecutive signals are joined
/// by one edge per direction with the corridor's own distance as its length.
///
/// Geometry, the whole district (`roads`): the road graph itself — every `roads` feature an edge
/// per direction between its intersections (lanes and speed from the road), each signal on the
/// road node it stands on, its approaches the road edges arriving from its compass directions.
/// A signal's approach edge carries its lane groups' lanes (the turn bays); every other
/// junction is a priority junction whose connections netconvert derives.
///
/// Lanes follow the lane groups (right-turn groups on the right, left-turn groups on the left).
public struct SumoExport: Sendable {
    /// One signal: the intersection, its stored plans with their periods, and its counts.
    public struct Signal: Sendable {
        public var intersection: SignalizedIntersection
        /// Its stored plans with their periods.
        public var plans: [SignalPlanLayer.Stored]
        /// Vehicles per interval by lane group; empty: the layer's peak-hour flows all period.
        public var counts: [IntervalCount]
        public var intervalMinutes: Int
        /// What the counts read leave out (`SignalizedIntersection.Counts.leftOutNote`): the routes
        /// carry only whole intervals.
        public var countsNote: String?

        public init(intersection: SignalizedIntersection, plans: [SignalPlanLayer.Stored],
                    counts: [IntervalCount], intervalMinutes: Int, countsNote: String? = nil) {
            self.intersection = intersection
            self.plans = plans
            self.counts = counts
            self.intervalMinutes = intervalMinutes
            self.countsNote = countsNote
        }
    }

    /// A corridor's order: signals in outbound order, the approach outbound traffic arrives on,
    /// and the distances between consecutive signals (m).
    public struct CorridorOrder: Sendable {
        public var outboundApproach: String
        public var inboundApproach: String
        public var distances: [Double]

        public init(outboundApproach: String, inboundApproach: String, distances: [Double]) {
            self.outboundApproach = outboundApproach
            self.inboundApproach = inboundApproach
            self.distances = distances
        }
    }

    /// How the exported controllers run their plans.
    public enum Control: String, Sendable, CaseIterable {
        /// Each plan's fixed greens.
        case fixed
        /// SUMO's own gap-based actuated control on the plan's stages: each green between its
        /// minimum (vehicle or pedestrian, as CityTwin times it) and the plan's green + 30 s.
        case actuated
    }

    /// The district's roads as directed edges (metric CRS), with each signal's node: the whole
    /// district's road graph.
    public struct Roads: Sendable {
        public struct Edge: Sendable, Hashable {
            public var id: String
            public var from: String
            public var to: String
            /// Vertices from `from` to `to` (metric, m).
            public var shape: [Position]
            public var lanes: Int
            /// m/s.
            public var speed: Double
        }

        /// Road nodes (intersections) by id, metric.
        public var nodes: [String: Position]
        public var edges: [Edge]

        /// Every `roads` feature with a line geometry as an edge per direction between its
        /// `from_intersection` and `to_intersection` (one edge when `oneway`), the road's `lanes`
        /// split between the directions, `speed_kmh` (default by `class`: 主干路 60, 次干路 50, else 30).
        /// - Throws: `ScenarioError(.noRoads)` when no road has a usable line.
        public init(features: [Feature]) throws {
            let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric)
            var nodes: [String: Position] = [:]
            var edges: [Edge] = []
            for road in features {
                guard case .lineString(let line)? = road.geometry, line.positions.count >= 2, let id = road.id?.description else { continue }
                let shape = try line.positions.map { try transformer.transform(Position(x: $0.x, y: $0.y)) }
                func key(_ p: Position) -> String { "n\(Int(p.x.rounded()))_\(Int(p.y.rounded()))" }
                let a = SumoExport.sumoID(road.properties["from_intersection"]?.stringValue ?? key(shape[0]))
                let b = SumoExport.sumoID(road.properties["to_intersection"]?.stringValue ?? key(shape[shape.count - 1]))
                guard a != b else { continue }
                nodes[a] = nodes[a] ?? shape[0]
                nodes[b] = nodes[b] ?? shape[shape.count - 1]
                let oneway = road.properties["oneway"]?.boolValue ?? false
                let lanes = max(1, Int(road.properties["lanes"]?.integerValue ?? 2))
                let byClass: Double = switch road.properties["class"]?.stringValue { case "主干路": 60; case "次干路": 50; default: 30 }
                let speed = (road.properties["speed_kmh"]?.doubleValue ?? byClass) / 3.6
                let perDirection = oneway ? lanes : max(1, lanes / 2)
                let safe = SumoExport.sumoID(id)
                edges.append(Edge(id: safe, from: a, to: b, shape: shape, lanes: perDirection, speed: speed))
                if !oneway { edges.append(Edge(id: "\(safe)-back", from: b, to: a, shape: shape.reversed(), lanes: perDirection, speed: speed)) }
            }
            guard !edges.isEmpty else { throw ScenarioError(.noRoads, "no road with a line geometry to export", field: "roads") }
            self.nodes = nodes
            self.edges = edges
        }

        /// The compass direction (N, S, E, W) in which `edge` leaves `node` (outgoing) or arrives from (incoming).
        static func direction(of edge: Edge, at node: String) -> String {
            let (a, b) = edge.from == node ? (edge.shape[0], edge.shape[1]) : (edge.shape[edge.shape.count - 1], edge.shape[edge.shape.count - 2])
            let dx = b.x - a.x, dy = b.y - a.y
            return abs(dy) >= abs(dx) ? (dy > 0 ? "N" : "S") : (dx > 0 ? "E" : "W")
        }
    }

    /// Per signal in the district's road graph: its road node and the road edges arriving from
    /// and leaving toward each compass direction.
    struct RoadPlacement: Sendable {
        var node: String
        var incoming: [String: String]
        var outgoing: [String: String]
    }

    public let signals: [Signal]
    public let corridor: CorridorOrder?
    /// The whole district's road graph (nil: one intersection or a corridor on its own arms).
    public let roads: Roads?
    let placements: [RoadPlacement]
    public let control: Control
    /// Simulated time of day (minutes after midnight, end exclusive).
    public let period: (start: Int, end: Int)
    public let armLength: Double
    public let speed: Double

    /// - Parameters:
    ///   - corridor: the signals' order as a corridor (nil: independent signals).
    ///   - speed: speed limit of every edge (m/s).
    ///   - roads: the district's road graph to place the signals on (then `corridor` must be nil).
    /// - Throws: `ScenarioError` naming `roads` for a signal with no road node within
    ///   `maximumSnapMetres` or an approach with no road arriving from its direction.
    public init(signals: [Signal], corridor: CorridorOrder? = nil, roads: Roads? = nil, period: (start: Int, end: Int), armLength: Double = 300,
                speed: Double = 13.89, control: Control = .fixed, maximumSnapMetres: Double = 30) throws {
        self.signals = signals
        self.control = control
        self.corridor = roads == nil ? corridor : nil
        self.roads = roads
        self.period = period
        self.armLength = armLength
        self.speed = speed
        var placements: [RoadPlacement] = []
        if let roads {
            let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric)
            for s in signals {
                let p = try transformer.transform(s.intersection.position)
                let nearest = roads.nodes.min { hypot($0.value.x - p.x, $0.value.y - p.y) < hypot($1.value.x - p.x, $1.value.y - p.y) }
                guard let (node, q) = nearest, hypot(q.x - p.x, q.y - p.y) <= maximumSnapMetres else {
                    throw ScenarioError(.invalidDistrict, "\(s.intersection.id) stands on no road node (none within \(Int(maximumSnapMetres)) m)", field: "roads")
                }
                var incoming: [String: String] = [:], outgoing: [String: String] = [:]
                for e in roads.edges where e.to == node { incoming[Roads.direction(of: e, at: node)] = e.id }
                for e in roads.edges where e.from == node { outgoing[Roads.direction(of: e, at: node)] = e.id }
                for approach in Set(s.intersection.laneGroups.map(\.approach)) where incoming[approach] == nil {
                    throw ScenarioError(.invalidDistrict, "\(s.intersection.id) has lane groups for approach \(approach) but no road arrives at \(node) from there", field: "roads")
                }
                // A counted movement with no road to leave by would be dropped from the simulation unseen.
                let flows = s.intersection.demand.flowsByApproach
                for g in s.intersection.laneGroups {
                    for m in g.movements {
                        guard let t = Self.exit(from: g.approach, m), outgoing[t] == nil else { continue }
                        let f = flows[g.id] ?? MovementFlows()
                        let counted = m == "through" ? f.through : m == "left" ? f.left : f.right
                        guard counted > 0 else { continue }
                        throw ScenarioError(.invalidDistrict, "\(s.intersection.id) lane group \(g.id) counts \(Int(counted.rounded())) veh/h \(m) from \(g.approach), toward \(t), but no road leaves \(node) that way: correct the lane group's movements or the roads", field: "signalized_intersections")
                    }
                }
                placements.append(RoadPlacement(node: node, incoming: incoming, outgoing: outgoing))
            }
            let nodes = placements.map(\.node)
            if let twice = Dictionary(grouping: nodes, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                throw ScenarioError(.invalidDistrict, "two signals stand on road node \(twice)", field: "roads")
            }
        }
        self.placements = placements
    }

    /// The export of stored signals: one intersection, a corridor (its signals in order, joined
    /// by its links) or, with neither, the whole district — every signal on the road graph of the
    /// `roads` layer; each with all its stored plans and its latest day of counts.
    /// - Throws: `ScenarioError` naming `intersection` or `corridor` for an unknown id.
    public static func load(from store: any FeatureStore, intersection: String?, corridor: String?, period: (start: Int, end: Int),
                            control: Control = .fixed, by caller: Caller) async throws -> SumoExport {
        var intersections: [SignalizedIntersection] = []
        var order: CorridorOrder?
        var speed = 13.89
        var roads: Roads?
        if let corridor {
            let stored = try await StoreSignalCorridor.load(id: corridor, from: store, by: caller)
            speed = stored.links.first?.outboundSpeed ?? speed
            intersections = stored.intersections
            order = CorridorOrder(outboundApproach: stored.outboundApproach, inboundApproach: stored.inboundApproach,
                                  distances: stored.links.map(\.length))
        } else if let intersection {
            guard let found = try await SignalizedIntersection.load(id: intersection, from: store, by: caller) else {
                throw ScenarioError(.invalidArgument, "no signalised intersection '\(intersection)' in \(SignalizedIntersection.layer)", field: "intersection")
            }
            intersections = [found]
        } else {
            intersections = try await SignalizedIntersection.all(from: store, by: caller)
            var features: [Feature] = []
            for try await f in store.stream(layer: "roads", FeatureQuery(limit: 100_000), by: caller) { features.append(f) }
            roads = try Roads(features: features)
        }
        var signals: [Signal] = []
        for i in intersections {
            let plans = try await SignalPlanLayer.plans(of: i.id, from: store, by: caller)
            guard !plans.isEmpty else {
                throw ScenarioError(.invalidDistrict, "\(i.id) has no plan in \(SignalPlanLayer.layer) to export (run signal-timing with write=true)")
            }
            let read = try await i.countsIfReadable(from: store, by: caller)
            signals.append(Signal(intersection: i, plans: plans, counts: read.intervals, intervalMinutes: read.minutes, countsNote: read.leftOutNote))
        }
        // A corridor's traffic drives at its design speed, as its green wave assumes.
        return try SumoExport(signals: signals, corridor: order, roads: roads, period: period, speed: speed, control: control)
    }

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

    /// Node positions in the district's metric CRS (m).
    func positions() throws -> [String: Position] {
        let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric)
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

    /// The plain XML files for `netconvert`: nodes, edges, connections.
    /// - Parameter setbacks: metres to move each turn bay's opening (by its edge id) further from
    ///   the stop line than its storage, so that its lanes, once netconvert has set the stop line
    ///   back from the junction, are the storage long (`buildNetwork` measures them).
    /// - Throws: `ScenarioError` for an approach whose every lane group is a bay.
    public func plainNetwork(setbacks: [String: Double] = [:]) throws -> (nodes: String, edges: String, connections: String) {
        let bays = try allBays()
        var connections = "<connections>\n"
        for l in links() {
            connections += "    <connection from=\"\(Self.escape(l.from))\" to=\"\(Self.escape(l.to))\" fromLane=\"\(l.fromLane)\" toLane=\"\(l.toLane)\"/>\n"
        }
        for b in bays.values.sorted(by: { $0.edge < $1.edge }) {
            for i in 1...b.openings.count {
                for c in b.connections(intoPart: i) {
                    connections += "    <connection from=\"\(Self.escape(b.edge(ofPart: i - 1)))\" to=\"\(Self.escape(b.edge(ofPart: i)))\" fromLane=\"\(c.from)\" toLane=\"\(c.to)\"/>\n"
                }
            }
        }
        connections += "</connections>\n"
        // An approach edge with turn bays: its first part's lanes, then a split where each bay opens.
        func edge(_ id: String, from: String, to: String, lanes: Int, speed: Double, _ extra: String = "") -> String {
            let head = "    <edge id=\"\(Self.escape(id))\" from=\"\(from)\" to=\"\(to)\" numLanes=\"\(lanes)\" speed=\"\(Self.format(speed))\"\(extra)"
            guard let b = bays[id] else { return head + "/>\n" }
            var out = head + ">\n"
            for (i, o) in b.openings.enumerated() {
                let at = o.storage + (setbacks[o.edge] ?? 0)
                out += "        <split pos=\"-\(Self.format(at))\" lanes=\"\(o.lanes.indices.map(String.init).joined(separator: " "))\" id=\"\(Self.escape(o.edge))_opens\" idBefore=\"\(Self.escape(b.edge(ofPart: i)))\" idAfter=\"\(Self.escape(o.edge))\"/>\n"
            }
            return out + "    </edge>\n"
        }
        if let roads {
            // The signals' nodes carry the signals' ids (the traffic lights' ids in SUMO).
            let named = Dictionary(uniqueKeysWithValues: zip(placements.map(\.node), signals.map(\.intersection.id)))
            func id(_ node: String) -> String { Self.escape(named[node] ?? node) }
            var nodes = "<nodes>\n"
            for (node, p) in roads.nodes.sorted(by: { $0.key < $1.key }) {
                nodes += "    <node id=\"\(id(node))\" x=\"\(Self.format(p.x))\" y=\"\(Self.format(p.y))\" type=\"\(named[node] != nil ? "traffic_light" : "priority")\"/>\n"
            }
            nodes += "</nodes>\n"
            var edges = "<edges>\n"
            for e in roads.edges {
                let shape = e.shape.map { "\(Self.format($0.x)),\(Self.format($0.y))" }.joined(separator: " ")
                edges += edge(e.id, from: id(e.from), to: id(e.to), lanes: roadLanes(e), speed: e.speed, " shape=\"\(shape)\"")
            }
            edges += "</edges>\n"
            return (nodes, edges, connections)
        }
        let positions = try positions()
        let ids = Set(signals.map(\.intersection.id))
        var nodes = "<nodes>\n"
        for (id, p) in positions.sorted(by: { $0.key < $1.key }) {
            nodes += "    <node id=\"\(Self.escape(id))\" x=\"\(Self.format(p.x))\" y=\"\(Self.format(p.y))\" type=\"\(ids.contains(id) ? "traffic_light" : "priority")\"/>\n"
        }
        nodes += "</nodes>\n"
        var edges = "<edges>\n"
        var written = Set<String>()
        for k in signals.indices {
            for d in arms(k) {
                let inLanes = entryLanes(k, d)
                let pairs = [(incoming(k, d), neighbour(k, d), signals[k].intersection.id, inLanes),
                             (outgoing(k, d), signals[k].intersection.id, neighbour(k, d), laneCount(ofOutgoing: k, d))]
                for (id, from, to, lanes) in pairs where !written.contains(id) {
                    written.insert(id)
                    var length = ""
                    if let c = corridor, let i = signals.firstIndex(where: { $0.intersection.id == from }),
                       let j = signals.firstIndex(where: { $0.intersection.id == to }), abs(i - j) == 1 {
                        length = " length=\"\(Self.format(c.distances[min(i, j)]))\""
                    }
                    edges += edge(id, from: Self.escape(from), to: Self.escape(to), lanes: lanes, speed: speed, length)
                }
            }
            for d in exitOnly(k) where !written.contains(outgoing(k, d)) {
                written.insert(outgoing(k, d))
                edges += "    <edge id=\"\(Self.escape(outgoing(k, d)))\" from=\"\(Self.escape(signals[k].intersection.id))\" to=\"\(Self.escape(neighbour(k, d)))\" numLanes=\"\(laneCount(ofOutgoing: k, d))\" speed=\"\(Self.format(speed))\"/>\n"
            }
        }
        edges += "</edges>\n"
        return (nodes, edges, connections)
    }

    /// `netconvert`'s arguments for the plain XML files in `directory` (`nodes.nod.xml`,
    /// `edges.edg.xml`, `connections.con.xml`), writing `network.net.xml` there; every signal
    /// keeps its traffic light even where it looks simple.
    public static func netconvertArguments(in directory: URL) -> [String] {
        ["--node-files", directory.appendingPathComponent("nodes.nod.xml").path,
         "--edge-files", directory.appendingPathComponent("edges.edg.xml").path,
         "--connection-files", directory.appendingPathComponent("connections.con.xml").path,
         "--no-turnarounds", "true", "--tls.discard-simple", "false", "-o", directory.appendingPathComponent("network.net.xml").path]
    }

    /// The signals' programs as SUMO additionals: one static `tlLogic` per stored plan (its
    /// stages' green, amber and all-red; its offset) and a `WAUT` switching them at their
    /// periods' starts. `netLinks` are the network's controlled connections as `netconvert`
    /// numbered them (`controlledLinks(inNetwork:)`).
    public func programs(netLinks: [NetworkLink]) throws -> String {
        let ours = linksByKey()
        var out = "<additional>\n"
        for s in signals {
            let id = s.intersection.id
            let (controlled, size) = try Self.controlled(by: id, in: netLinks)
            var byIndex: [Int: Link] = [:]
            for c in controlled {
                guard let link = ours[Self.key(c.from, c.fromLane, c.to)] else {
                    throw SignalTimingError(field: "\(id)", "netconvert made a connection \(c.from) lane \(c.fromLane) → \(c.to) that no lane group serves")
                }
                byIndex[c.linkIndex] = link
            }
            let groupsOf = Dictionary(s.intersection.laneGroups.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let used = Set(schedule(s).map(\.plan))
            for stored in s.plans {
                guard let program = stored.feature.id?.description, used.contains(program) else { continue }
                out += "    <tlLogic id=\"\(Self.escape(id))\" type=\"\(control == .fixed ? "static" : "actuated")\" programID=\"\(Self.escape(program))\" offset=\"\(Self.format(stored.plan.offset))\">\n"
                let minimums = control == .actuated
                    ? try SignalTiming.minimumGreens(s.intersection.demand, stages: stored.plan.stages.map(\.approaches)) : []
                // A lane group in no stage is a free right turn: it yields ('g') whatever the signal shows.
                let staged = Set(stored.plan.stages.flatMap(\.approaches))
                let chain = stored.plan.stages.map(\.approaches)
                for (index, stage) in stored.plan.stages.enumerated() {
                    let members = Set(stage.approaches)
                    let throughFrom = Set(stage.approaches.compactMap { groupsOf[$0] }.filter { $0.movements.contains("through") }.map(\.approach))
                    func state(_ signal: (Link) -> Character) -> String {
                        String((0..<size).map { i in byIndex[i].map { staged.contains($0.laneGroup) ? signal($0) : "g" } ?? "r" })
                    }
                    func greenSignal(_ l: Link) -> Character {
                        guard members.contains(l.laneGroup) else { return "r" }
                        // A left turn facing an opposing through in the same stage yields to it.
                        let approach = groupsOf[l.laneGroup]?.approach ?? ""
                        return l.movement == "left" && throughFrom.contains(Self.opposite[approach] ?? "") ? "g" : "G"
                    }
                    let green = state(greenSignal)
                    // A lane group that runs on into the next stage (搭接, the first after the last) keeps its green through the change.
                    let keeping = Set(stage.approaches.filter { StageChain.keepsGreen($0, after: index, in: chain) })
                    func kept(_ l: Link) -> Character? { keeping.contains(l.laneGroup) ? greenSignal(l) : nil }
                    let amber = state { kept($0) ?? (members.contains($0.laneGroup) ? "y" : "r") }
                    // A pedestrian-only stage has no vehicle to extend it: it runs its green as planned.
                    if control == .actuated, !members.isEmpty {
                        let minimum = minimums[index]
                        out += "        <phase duration=\"\(Self.format(max(stage.green, minimum)))\" minDur=\"\(Self.format(minimum))\" maxDur=\"\(Self.format(max(stage.green, minimum) + 30))\" state=\"\(green)\"/>\n"
                    } else if stage.green > 0 {
                        out += "        <phase duration=\"\(Self.format(stage.green))\" state=\"\(green)\"/>\n"
                    }
                    for (duration, phase) in [(stage.amber, amber), (stage.allRed, state { kept($0) ?? "r" })] where duration > 0 {
                        out += "        <phase duration=\"\(Self.format(duration))\" state=\"\(phase)\"/>\n"
                    }
                }
                out += "    </tlLogic>\n"
            }
            let switches = schedule(s)
            if switches.count > 1 {
                out += "    <WAUT id=\"w_\(Self.escape(id))\" refTime=\"0\" startProg=\"\(Self.escape(switches[0].plan))\">\n"
                for w in switches.dropFirst() {
                    out += "        <wautSwitch time=\"\(w.minute * 60)\" to=\"\(Self.escape(w.plan))\"/>\n"
                }
                out += "    </WAUT>\n    <wautJunction wautID=\"w_\(Self.escape(id))\" junctionID=\"\(Self.escape(id))\"/>\n"
            }
        }
        return out + "</additional>\n"
    }

    /// When each of a signal's plans takes over within the simulated period: the plan running
    /// at the period's start, then a switch wherever another plan's period starts or the running
    /// one's ends (the shortest period holding a minute wins, as in `SignalPlanLayer.running`).
    func schedule(_ s: Signal) -> [(minute: Int, plan: String)] {
        let bounds = Set([period.start] + s.plans.flatMap { [$0.start, $0.end] }).filter { $0 >= period.start && $0 < period.end }.sorted()
        var out: [(minute: Int, plan: String)] = []
        for b in bounds {
            if let id = SignalPlanLayer.running(at: b, among: s.plans)?.feature.id?.description, out.last?.plan != id { out.append((b, id)) }
        }
        return out
    }

    /// One counted stream: an interval's vehicles of a lane group and movement, from edge to edge.
    public struct Flow: Sendable, Hashable {
        public var id: String
        /// The signal and the lane group (its `approach` the compass arm) it was counted on.
        public var signal: String
        public var laneGroup: String
        public var approach: String
        /// Simulation seconds (time of day).
        public var begin: Int
        public var end: Int
        public var from: String
        public var to: String
        public var perHour: Double
        /// The share of its vehicles that are heavy (the lane group's `heavy_vehicles_pct` / 100),
        /// driven as SUMO's trucks.
        public var heavyShare: Double = 0
    }

    /// The counted streams of the simulated period, in departure order.
    public func flows() -> [Flow] {
        var flows: [Flow] = []
        for (k, s) in signals.enumerated() {
            let here = exits(k)
            let intervals: [(start: Int, minutes: Int, volumes: [String: MovementFlows])] = s.counts.isEmpty
                ? [(period.start, period.end - period.start, s.intersection.demand.flowsByApproach.mapValues { $0.scaled(by: Double(period.end - period.start) / 60) })]
                : s.counts.filter { $0.start >= period.start && $0.start < period.end }.sorted { $0.start < $1.start }
                    .map { ($0.start, s.intervalMinutes, $0.volumes) }
            let heavy = Dictionary(s.intersection.demand.approaches.map { ($0.id, ($0.conditions.heavyVehicles ?? 0) / 100) },
                                   uniquingKeysWith: { a, _ in a })
            for d in arms(k) {
                let fromSignal = neighbour(k, d) != armNode(k, d)
                for (group, _, _) in lanes(k, d) {
                    for movement in ["right", "through", "left"] where group.movements.contains(movement) {
                        guard let t = Self.exit(from: d, movement), here.contains(t) else { continue }
                        guard let (from, to) = route(k, from: d, to: t, arrivingFromSignal: fromSignal) else { continue }
                        for i in intervals {
                            let f = i.volumes[group.id] ?? MovementFlows()
                            let n = movement == "through" ? f.through : movement == "left" ? f.left : f.right
                            guard n > 0, i.minutes > 0 else { continue }
                            flows.append(Flow(id: "\(group.id)_\(movement)_\(s.intersection.id)_\(i.start)", signal: s.intersection.id,
                                              laneGroup: group.id, approach: d, begin: i.start * 60, end: (i.start + i.minutes) * 60,
                                              from: from, to: to, perHour: n * 60 / Double(i.minutes), heavyShare: heavy[group.id] ?? 0))
                        }
                    }
                }
            }
        }
        return flows.sorted { ($0.begin, $0.id) < ($1.begin, $1.id) }
    }

    /// The car, and the truck heavy vehicles are driven as: SUMO's own for its `truck` class (its
    /// length, acceleration and deceleration), at most the design speed.
    var vehicleTypes: String {
        "    <vType id=\"car\" accel=\"2.6\" decel=\"4.5\" sigma=\"0.5\" length=\"5\" minGap=\"2.5\" maxSpeed=\"\(Self.format(speed))\"/>\n"
            + "    <vType id=\"truck\" vClass=\"truck\" sigma=\"0.5\" maxSpeed=\"\(Self.format(speed))\"/>\n"
    }

    /// Routes from the counts: one `flow` per interval, lane group and movement, with Poisson
    /// arrivals at the counted rate (its heavy vehicles a second flow of trucks at their share of
    /// it, so the two together are the counted Poisson stream). On a corridor, through traffic of
    /// the first and last signals' corridor approaches drives the whole corridor; traffic from a
    /// side street that turns onto it drives on to the corridor's end.
    public func routes() -> String {
        var out = "<routes>\n" + vehicleTypes
        for f in flows() {
            for (type, suffix, rate) in [("car", "", f.perHour * (1 - f.heavyShare)), ("truck", ".heavy", f.perHour * f.heavyShare)] where rate > 0 {
                out += "    <flow id=\"\(Self.escape(f.id + suffix))\" type=\"\(type)\" begin=\"\(f.begin)\" end=\"\(f.end)\" period=\"exp(\(Self.format(rate / 3600, digits: 6)))\" from=\"\(Self.escape(f.from))\" to=\"\(Self.escape(f.to))\" departLane=\"best\" departSpeed=\"max\"/>\n"
            }
        }
        return out + "</routes>\n"
    }

    /// One vehicle of `vehicles(seed:)`: its id (`flow id.n`), the flow it belongs to, its departure (s)
    /// and whether it is a heavy vehicle (a truck).
    public struct Vehicle: Sendable, Hashable {
        public var id: String
        public var flow: Flow
        public var depart: Double
        public var heavy: Bool = false
    }

    /// The flows' Poisson arrivals drawn here rather than by SUMO, so that a run with only some
    /// of the vehicles (a baseline without the crossing traffic) has exactly the same ones:
    /// every flow draws from its own generator, seeded from `seed` and the flow's id.
    public func vehicles(seed: UInt64) -> [Vehicle] {
        var out: [Vehicle] = []
        for f in flows() where f.perHour > 0 {
            var random = SplitMix64(seed: seed ^ Self.hash(f.id))
            var kinds = SplitMix64(seed: seed ^ Self.hash(f.id + ".heavy"))
            let rate = f.perHour / 3600
            var t = Double(f.begin)
            var n = 0
            while true {
                // Exponential gap; 1 - u keeps the logarithm finite.
                t += -log(1 - Double.random(in: 0..<1, using: &random)) / rate
                guard t < Double(f.end) else { break }
                // Each vehicle heavy with the group's share, drawn from a generator of its own so the
                // departures are the same whatever the share.
                let heavy = f.heavyShare > 0 && Double.random(in: 0..<1, using: &kinds) < f.heavyShare
                out.append(Vehicle(id: "\(f.id).\(n)", flow: f, depart: (t * 100).rounded() / 100, heavy: heavy))
                n += 1
            }
        }
        return out.sorted { ($0.depart, $0.id) < ($1.depart, $1.id) }
    }

    /// `vehicles` as a SUMO route file of explicit vehicles (what `routes()` writes as flows).
    public func routes(_ vehicles: [Vehicle]) -> String {
        var out = "<routes>\n" + vehicleTypes
        for v in vehicles {
            out += "    <trip id=\"\(Self.escape(v.id))\" type=\"\(v.heavy ? "truck" : "car")\" depart=\"\(Self.format(v.depart))\" from=\"\(Self.escape(v.flow.from))\" to=\"\(Self.escape(v.flow.to))\" departLane=\"best\" departSpeed=\"max\"/>\n"
        }
        return out + "</routes>\n"
    }

    /// FNV-1a of a string: a seed that does not change between runs (Swift's `Hasher` does).
    static func hash(_ text: String) -> UInt64 { FNV1a.hash(text) }

    /// A baseline programme of the measured SUMO method (reference §8): every signal's
    /// connections from `approaches` permanently green (a left turn facing an opposing through
    /// among them yields to it), every other one red.
    public func greenProgram(netLinks: [NetworkLink], approaches axis: Set<String>, programID: String = "baseline") throws -> String {
        let ours = linksByKey()
        var out = "<additional>\n"
        for s in signals {
            let id = s.intersection.id
            let (controlled, size) = try Self.controlled(by: id, in: netLinks)
            let groupsOf = Dictionary(s.intersection.laneGroups.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let throughFrom = Set(s.intersection.laneGroups.filter { axis.contains($0.approach) && $0.movements.contains("through") }.map(\.approach))
            var state = Array(repeating: Character("r"), count: size)
            for c in controlled {
                guard let link = ours[Self.key(c.from, c.fromLane, c.to)], let approach = groupsOf[link.laneGroup]?.approach,
                      axis.contains(approach) else { continue }
                state[c.linkIndex] = link.movement == "left" && throughFrom.contains(Self.opposite[approach] ?? "") ? "g" : "G"
            }
            out += "    <tlLogic id=\"\(Self.escape(id))\" type=\"static\" programID=\"\(Self.escape(programID))\" offset=\"0\">\n"
            out += "        <phase duration=\"100000\" state=\"\(String(state))\"/>\n    </tlLogic>\n"
        }
        return out + "</additional>\n"
    }

    /// The from and to edges of traffic counted at signal `k` moving from approach `d` to exit
    /// `t`; nil for corridor traffic counted again downstream (it came from the previous signal).
    func route(_ k: Int, from d: String, to t: String, arrivingFromSignal: Bool) -> (String, String)? {
        // On the road graph each counted movement drives from the road arriving at its signal to
        // the road it turns into: every counted vehicle crosses its own signal once.
        if roads != nil { return (incoming(k, d), outgoing(k, t)) }
        if arrivingFromSignal { return nil }
        guard let c = corridor else { return (incoming(k, d), outgoing(k, t)) }
        let outward = Self.opposite[c.outboundApproach] ?? ""
        let inward = Self.opposite[c.inboundApproach] ?? ""
        let last = signals.count - 1
        // Onto the corridor: on to its end in that direction.
        if t == outward, k < last { return (incoming(k, d), outgoing(last, outward)) }
        if t == inward, k > 0 { return (incoming(k, d), outgoing(0, inward)) }
        return (incoming(k, d), outgoing(k, t))
    }

    /// A connection of a built SUMO network controlled by a traffic light.
    public struct NetworkLink: Sendable, Hashable {
        public var signal: String
        public var from: String
        public var fromLane: Int
        public var to: String
        public var linkIndex: Int
    }

    /// The traffic-light-controlled connections of a `.net.xml` written by `netconvert`.
    public static func controlledLinks(inNetwork data: Data) throws -> [NetworkLink] {
        var links: [NetworkLink] = []
        do {
            try XMLElements.read(data, start: { name, a in
                guard name == "connection", let tl = a["tl"], let from = a["from"], let to = a["to"],
                      let lane = a["fromLane"].flatMap(Int.init), let index = a["linkIndex"].flatMap(Int.init) else { return }
                links.append(NetworkLink(signal: tl, from: from, fromLane: lane, to: to, linkIndex: index))
            })
        } catch {
            throw SignalTimingError(field: "network", "the SUMO network cannot be read: \(error.reason)")
        }
        return links
    }

    static func key(_ from: String, _ lane: Int, _ to: String) -> String { "\(from)#\(lane)>\(to)" }

    /// Our links by `key(from, fromLane, to)`, to match netconvert's numbered connections.
    func linksByKey() -> [String: Link] {
        Dictionary(links().map { (Self.key($0.from, $0.fromLane, $0.to), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The network's connections controlled by signal `id` and the length of its state string.
    static func controlled(by id: String, in netLinks: [NetworkLink]) throws -> (links: [NetworkLink], size: Int) {
        let controlled = netLinks.filter { $0.signal == id }
        guard let size = controlled.map(\.linkIndex).max().map({ $0 + 1 }) else {
            throw SignalTimingError(field: "\(id)", "the network has no connection controlled by the signal")
        }
        return (controlled, size)
    }

    static func format(_ v: Double, digits: Int = 2) -> String {
        var text = String(format: "%.\(digits)f", v)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// SUMO ids: letters, digits, `_`, `-`, `.` only.
    static func sumoID(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") ? $0 : "_" })
    }

    static func escape(_ s: String) -> String { MarkupEscaping.escape(s) }
}
