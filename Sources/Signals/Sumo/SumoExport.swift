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
        /// The metric CRS of `nodes` and the edges' shapes: the zone of the roads' extent
        /// (`CoordinateReferenceSystem.metricZone`; EPSG:4547 for the sample district).
        public var metricCRS: CoordinateReferenceSystem

        /// Every `roads` feature with a line geometry as an edge per direction between its
        /// `from_intersection` and `to_intersection` (one edge when `oneway`), the road's `lanes`
        /// split between the directions, `speed_kmh` (default by `class`: 主干路 60, 次干路 50, else 30).
        /// - Throws: `ScenarioError(.noRoads)` when no road has a usable line.
        public init(features: [Feature]) throws {
            metricCRS = SumoExport.metricZone(of: features.flatMap { f -> [Position] in
                guard case .lineString(let line)? = f.geometry else { return [] }
                return line.positions
            })
            let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
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
    /// The metric CRS the network is laid out in: the roads' (`Roads.metricCRS`), else the zone of the signals.
    public let metricCRS: CoordinateReferenceSystem
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
        metricCRS = roads?.metricCRS ?? Self.metricZone(of: signals.map(\.intersection.position))
        var placements: [RoadPlacement] = []
        if let roads {
            let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
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

    /// The metric zone of `positions` (longitude/latitude degrees), EPSG:4547 when there are none.
    static func metricZone(of positions: [Position]) -> CoordinateReferenceSystem {
        Envelope(of: positions).map(CoordinateReferenceSystem.metricZone(for:)) ?? .districtMetric
    }
}
