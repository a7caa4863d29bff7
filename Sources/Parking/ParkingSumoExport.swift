import Foundation
import GeoCore
import ParkingSim
import ProcessRuntime
import TwinStore

/// The guided-vs-unguided parking day as a SUMO scenario (SUMO 1.28, PyPI `eclipse-sumo`), so the
/// effect CityTwin's simulation reports can be checked in an independent simulator on the same map
/// and the same trips:
///
/// - the network: every `roads` feature as an edge between its intersections (both directions unless
///   one-way; lanes split between directions; design speed), in the graph's metric CRS, as SUMO plain XML;
/// - each lot as a `parkingArea` (its capacity as `roadsideCapacity`) on the edge nearest its entrance,
///   on the side the lot lies;
/// - each trip as a `trip` from the edge nearest its origin to the edge of the lot nearest its
///   destination (where an unguided driver heads first), with a `stop` there for its stay;
/// - a `rerouter` on every parking edge and origin edge with a `parkingAreaReroute` for every lot: with
///   `visible="false"` (unguided) a driver learns a lot is full only on reaching it and tries others
///   without knowing theirs; with `visible="true"` (guided, as a sign or an app) every lot's occupancy
///   is known at each rerouter, so a full target is swapped before the drive there.
///
/// Simulation time is the time of day (s). SUMO's search time is the time from departure to the start
/// of the parking stop; its extra vehicle-km is the distance driven to the lot finally used.
public struct ParkingSumoExport: Sendable {
    public struct Node: Sendable, Hashable {
        public var id: String
        public var position: Position
    }

    public struct Edge: Sendable, Hashable {
        public var id: String
        public var from: String
        public var to: String
        /// Vertices from `from` to `to` (metric).
        public var shape: [Position]
        public var lanes: Int
        /// m/s.
        public var speed: Double
        public var length: Double
    }

    public struct ParkingArea: Sendable, Hashable {
        public var lot: String
        public var edge: String
        public var start: Double
        public var end: Double
        public var capacity: Int
    }

    public struct Trip: Sendable, Hashable {
        public var id: String
        public var depart: Double
        public var from: String
        /// The first-choice lot (nearest the destination) and its edge.
        public var lot: String
        public var to: String
        public var stay: Double
    }

    public var nodes: [Node]
    public var edges: [Edge]
    public var parkingAreas: [ParkingArea]
    public var trips: [Trip]
    /// Edges carrying a rerouter (every parking edge and every origin edge).
    public var rerouterEdges: [String]

    /// The scenario's trips on the roads `roads` (features of `roads` with lon/lat line geometry,
    /// `from_intersection`, `to_intersection`, `lanes`, `speed_kmh`, `oneway`).
    /// - Throws: `ScenarioError(.noRoads)` when no road has a usable line.
    public init(scenario: DistrictParkingScenario, roads: [Feature], metric: (Position) throws -> Position) throws {
        var nodes: [String: Position] = [:]
        var edges: [Edge] = []
        for road in roads {
            guard case .lineString(let line)? = road.geometry, line.positions.count >= 2, let id = road.id?.description else { continue }
            let shape = try line.positions.map { try metric(Position(x: $0.x, y: $0.y)) }
            func key(_ p: Position) -> String { "n\(Int(p.x.rounded()))_\(Int(p.y.rounded()))" }
            let a = road.properties["from_intersection"]?.stringValue ?? key(shape[0])
            let b = road.properties["to_intersection"]?.stringValue ?? key(shape[shape.count - 1])
            guard a != b else { continue }
            nodes[a] = nodes[a] ?? shape[0]
            nodes[b] = nodes[b] ?? shape[shape.count - 1]
            let oneway = road.properties["oneway"]?.boolValue ?? false
            let lanes = max(1, Int(road.properties["lanes"]?.integerValue ?? 2))
            let perDirection = oneway ? lanes : max(1, lanes / 2)
            let speed = (road.properties["speed_kmh"]?.doubleValue ?? 30) / 3.6
            var length = 0.0
            for k in 1..<shape.count { length += hypot(shape[k].x - shape[k - 1].x, shape[k].y - shape[k - 1].y) }
            let safe = Self.sumoID(id)
            edges.append(Edge(id: "r\(safe)", from: a, to: b, shape: shape, lanes: perDirection, speed: speed, length: length))
            if !oneway {
                edges.append(Edge(id: "r\(safe)-back", from: b, to: a, shape: shape.reversed(), lanes: perDirection, speed: speed, length: length))
            }
        }
        guard !edges.isEmpty else { throw ScenarioError(.noRoads, "no road with a line geometry to export", field: "roads") }
        self.nodes = nodes.keys.sorted().map { Node(id: $0, position: nodes[$0]!) }
        self.edges = edges
        // Each lot on the nearest edge long enough for a parking area, on the side the lot lies.
        var areas: [ParkingArea] = []
        for (i, lot) in scenario.lots.enumerated() {
            let (edge, at) = Self.nearest(scenario.lotEntrances[i], edges.filter { $0.length >= 12 }, side: true)
            let half = min(5, edge.length / 2 - 0.5)
            let centre = min(max(at, half + 0.1), edge.length - half - 0.1)
            areas.append(ParkingArea(lot: lot.id, edge: edge.id, start: centre - half, end: centre + half, capacity: lot.capacity))
        }
        parkingAreas = areas
        let originEdges = scenario.origins.map { Self.nearest($0, edges.filter { $0.length >= 12 }, side: false).edge.id }
        // Where an unguided driver heads first: the lot nearest the destination on foot.
        trips = scenario.trips.enumerated().map { k, t in
            let walks = scenario.network.walkMetres[t.destination]
            let first = walks.indices.min { walks[$0] < walks[$1] } ?? 0
            return Trip(id: "t\(k)", depart: t.departure.rounded(), from: originEdges[t.origin], lot: areas[first].lot, to: areas[first].edge,
                        stay: t.stay.rounded())
        }
        rerouterEdges = Array(Set(areas.map(\.edge) + originEdges)).sorted()
    }

    /// SUMO ids: letters, digits, `_`, `-`, `.` only.
    static func sumoID(_ text: String) -> String {
        String(text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") ? $0 : "_" })
    }

    /// The edge nearest `p` and the distance along it of the nearest point; with `side`, of the two
    /// directions of a road the one that has `p` on its right (driving on the right).
    static func nearest(_ p: Position, _ edges: [Edge], side: Bool) -> (edge: Edge, at: Double) {
        var best: (edge: Edge, at: Double, d: Double, right: Bool)?
        for e in edges {
            var walked = 0.0
            for k in 1..<e.shape.count {
                let a = e.shape[k - 1], b = e.shape[k]
                let dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy
                let t = len2 > 0 ? min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / len2, 0), 1) : 0
                let qx = a.x + t * dx, qy = a.y + t * dy
                let d = hypot(p.x - qx, p.y - qy)
                let right = dx * (p.y - a.y) - dy * (p.x - a.x) < 0
                let better: Bool
                if let b0 = best {
                    better = d < b0.d - 0.01 || (side && abs(d - b0.d) <= 0.01 && right && !b0.right)
                } else { better = true }
                if better { best = (e, walked + t * len2.squareRoot(), d, right) }
                walked += len2.squareRoot()
            }
        }
        return (best!.edge, best!.at)
    }

    static func number(_ v: Double) -> String { String(format: "%.2f", v) }

    /// `nodes.nod.xml`.
    public func nodesXML() -> String {
        var s = "<nodes>\n"
        for n in nodes { s += "    <node id=\"\(Self.sumoID(n.id))\" x=\"\(Self.number(n.position.x))\" y=\"\(Self.number(n.position.y))\" type=\"priority\"/>\n" }
        return s + "</nodes>\n"
    }

    /// `edges.edg.xml`.
    public func edgesXML() -> String {
        var s = "<edges>\n"
        for e in edges {
            let shape = e.shape.map { "\(Self.number($0.x)),\(Self.number($0.y))" }.joined(separator: " ")
            s += "    <edge id=\"\(e.id)\" from=\"\(Self.sumoID(e.from))\" to=\"\(Self.sumoID(e.to))\" numLanes=\"\(e.lanes)\" speed=\"\(Self.number(e.speed))\" shape=\"\(shape)\"/>\n"
        }
        return s + "</edges>\n"
    }

    /// `parking.add.xml`: the parking areas and the rerouters, every lot `visible` or not.
    public func additionalXML(visible: Bool) -> String {
        var s = "<additional>\n"
        for a in parkingAreas {
            s += "    <parkingArea id=\"pa_\(Self.sumoID(a.lot))\" lane=\"\(a.edge)_0\" startPos=\"\(Self.number(a.start))\" endPos=\"\(Self.number(a.end))\" roadsideCapacity=\"\(a.capacity)\" onRoad=\"false\" friendlyPos=\"true\"/>\n"
        }
        for (k, edge) in rerouterEdges.enumerated() {
            s += "    <rerouter id=\"rr\(k)\" edges=\"\(edge)\">\n        <interval begin=\"0\" end=\"172800\">\n"
            for a in parkingAreas { s += "            <parkingAreaReroute id=\"pa_\(Self.sumoID(a.lot))\" visible=\"\(visible)\"/>\n" }
            s += "        </interval>\n    </rerouter>\n"
        }
        return s + "</additional>\n"
    }

    /// `routes.rou.xml`: the trips, each with its parking stop (the same file for both scenarios).
    public func routesXML() -> String {
        var s = "<routes>\n    <vType id=\"car\" vClass=\"passenger\"/>\n"
        for t in trips {
            s += "    <trip id=\"\(t.id)\" type=\"car\" depart=\"\(Self.number(t.depart))\" from=\"\(t.from)\" to=\"\(t.to)\" departLane=\"best\">\n"
            s += "        <stop parkingArea=\"pa_\(Self.sumoID(t.lot))\" duration=\"\(Self.number(t.stay))\"/>\n    </trip>\n"
        }
        return s + "</routes>\n"
    }

    /// A `.sumocfg` running the network, the trips and one scenario's additional file.
    public func configXML(additional: String) -> String {
        let begin = Int((trips.map(\.depart).min() ?? 0) / 60) * 60
        return """
            <configuration>
                <input>
                    <net-file value="network.net.xml"/>
                    <route-files value="routes.rou.xml"/>
                    <additional-files value="\(additional)"/>
                </input>
                <time>
                    <begin value="\(begin)"/>
                </time>
            </configuration>

            """
    }
}
