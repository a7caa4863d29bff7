import Foundation
import GeoCore

/// The roads and intersections the analyses need, derived from OpenStreetMap ways by `RoadRules`:
/// each drivable way is split at every vertex it shares with another drivable way (an OSM node
/// both use) and at its ends, so roads meet only where OpenStreetMap joins them — never where
/// a bridge, a tunnel or another `layer` merely crosses. Pure: plain values in and out.
public struct RoadNetworkDraft: Sendable {
    /// A line that may be a road: its id, vertices (longitude/latitude degrees) and what it is —
    /// an OpenStreetMap way's tags read by `RoadRules`, or a GIS layer's mapped fields.
    public struct Way: Sendable {
        public var id: String
        public var positions: [Position]
        public var tags: OSMTags
        /// The road's class, direction, speed, lanes and name when they come from a GIS layer's
        /// fields (`CityManifest`); `nil` for an OpenStreetMap way, whose tags `RoadRules` reads.
        public var attributes: Attributes?
        /// The vertical level (0 at grade, 1 a bridge, -1 a tunnel): lines meet at a shared inner
        /// vertex only on the same level, at a line's end on any. OpenStreetMap ways stay 0 — their
        /// shared nodes are the junctions.
        public var level: Int
        public init(id: String, positions: [Position], tags: OSMTags) {
            self.id = id
            self.positions = positions
            self.tags = tags
            self.attributes = nil
            self.level = 0
        }
        public init(id: String, positions: [Position], attributes: Attributes, level: Int = 0) {
            self.id = id
            self.positions = positions
            self.tags = OSMTags()
            self.attributes = attributes
            self.level = level
        }
    }

    /// What a road is, before the class defaults fill what its source does not say.
    public struct Attributes: Sendable, Hashable {
        /// The CJJ 37 class (`RoadRules.speeds`' keys).
        public var roadClass: String
        public var direction: RoadRules.Direction
        /// km/h as the source gives it; `nil`: the class's speed (derived).
        public var speed: Int?
        /// Lanes in both directions as the source gives them; `nil`: the class's (derived).
        public var lanes: Int?
        public var name: String
        public init(roadClass: String, direction: RoadRules.Direction, speed: Int?, lanes: Int?, name: String) {
            self.roadClass = roadClass
            self.direction = direction
            self.speed = speed
            self.lanes = lanes
            self.name = name
        }

        /// An OpenStreetMap way's by `RoadRules`; `nil` for a way motor vehicles do not use.
        public init?(osm tags: OSMTags) {
            guard let c = RoadRules.roadClass(tags) else { return nil }
            self.init(roadClass: c, direction: RoadRules.direction(tags), speed: RoadRules.maxspeed(tags),
                      lanes: RoadRules.taggedLanes(tags), name: tags["name"] ?? tags["ref"] ?? "")
        }
    }

    public struct Road: Sendable, Hashable {
        public var id: String
        public var name: String
        public var roadClass: String
        public var lanes: Int
        public var speed: Int
        public var oneway: Bool
        public var from: String
        public var to: String
        /// Longitude/latitude, in the direction traffic may go when one-way.
        public var positions: [Position]
        /// Metres in the city's metric CRS.
        public var length: Double
        /// The properties derived by rule rather than tagged (`speed_kmh`, `lanes`, `name`).
        public var derived: [String]
    }

    public struct Intersection: Sendable, Hashable {
        public var id: String
        public var position: Position
        public var name: String
        public var control: String
        public var legs: Int
    }

    public var roads: [Road] = []
    public var intersections: [Intersection] = []
    /// What the build did, counted: ways read, roads, derived values by property.
    public var report: [String: Int] = [:]

    /// An exact vertex, as two ways that share an OSM node both hold it (the same double twice).
    struct Vertex: Hashable {
        let x: UInt64, y: UInt64
        init(_ p: Position) { x = p.x.bitPattern; y = p.y.bitPattern }
    }

    /// A vertex on one vertical level.
    struct LevelVertex: Hashable {
        let vertex: Vertex, level: Int
        init(_ vertex: Vertex, _ level: Int) { self.vertex = vertex; self.level = level }
    }

    /// Builds the network from `ways` (those `RoadRules.roadClass` rejects are skipped and counted).
    /// - Parameters:
    ///   - signals: vertices tagged `highway=traffic_signals`; an intersection on one is 信号控制.
    ///   - stops: vertices tagged `highway=stop` or `give_way`; an intersection on one is 停车让行.
    ///   - metric: longitude/latitude to the city's metric CRS, for lengths.
    public static func build(ways: [Way], signals: [Position] = [], stops: [Position] = [],
                             metric: CoordinateTransformer) throws -> RoadNetworkDraft {
        var draft = RoadNetworkDraft()
        let drivable = ways.compactMap { way -> (Way, Attributes)? in
            guard way.positions.count >= 2, let a = way.attributes ?? Attributes(osm: way.tags) else { return nil }
            return (way, a)
        }
        draft.report["ways read"] = ways.count
        draft.report["ways not for motor vehicles (skipped)"] = ways.count - drivable.count
        // Uses of each vertex on each level: a line is split where another of its level holds the
        // same vertex, and where any line ends (lines of every level meet at an end: a bridge's ramp).
        var uses: [LevelVertex: Int] = [:]
        var ends = Set<Vertex>()
        for (way, _) in drivable {
            for p in way.positions { uses[LevelVertex(Vertex(p), way.level), default: 0] += 1 }
            uses[LevelVertex(Vertex(way.positions[0]), way.level), default: 0] += 1
            uses[LevelVertex(Vertex(way.positions[way.positions.count - 1]), way.level), default: 0] += 1
            ends.insert(Vertex(way.positions[0]))
            ends.insert(Vertex(way.positions[way.positions.count - 1]))
        }
        func splits(_ p: Position, _ level: Int) -> Bool {
            let v = Vertex(p)
            return (uses[LevelVertex(v, level)] ?? 0) >= 2 || ends.contains(v)
        }
        // One intersection per vertex where a line ends; elsewhere one per vertex and level (two
        // crossings stacked on one point stay apart).
        var ids: [LevelVertex: String] = [:]
        var places: [String: Position] = [:]
        func junction(_ p: Position, _ level: Int) -> String {
            let v = Vertex(p)
            let key = LevelVertex(v, ends.contains(v) ? Int.min : level)
            if let id = ids[key] { return id }
            let id = "J\(ids.count + 1)"
            ids[key] = id
            places[id] = p
            return id
        }
        for (way, attributes) in drivable {
            let roadClass = attributes.roadClass, direction = attributes.direction, name = attributes.name
            let tagged = (speed: attributes.speed, lanes: attributes.lanes)
            let oneway = direction != .both
            let lanes = tagged.lanes ?? max(1, (RoadRules.lanes[roadClass] ?? 2) / (oneway ? 2 : 1))
            let speed = tagged.speed ?? RoadRules.speeds[roadClass] ?? 30
            var derived: [String] = []
            if tagged.speed == nil { derived.append("speed_kmh") }
            if tagged.lanes == nil { derived.append("lanes") }
            if name.isEmpty { derived.append("name") }
            var start = 0
            var part = 0
            for i in 1..<way.positions.count where i == way.positions.count - 1 || splits(way.positions[i], way.level) {
                var positions = Array(way.positions[start...i])
                start = i
                guard Set(positions.map(Vertex.init)).count >= 2 else { continue }
                if direction == .backward { positions.reverse() }
                part += 1
                let projected = try positions.map { try metric.transform($0) }
                let length = zip(projected, projected.dropFirst()).reduce(0.0) { $0 + (($1.1.x - $1.0.x) * ($1.1.x - $1.0.x) + ($1.1.y - $1.0.y) * ($1.1.y - $1.0.y)).squareRoot() }
                draft.roads.append(Road(id: "\(way.id)-\(part)", name: name, roadClass: roadClass, lanes: lanes, speed: speed, oneway: oneway,
                                        from: junction(positions[0], way.level), to: junction(positions[positions.count - 1], way.level),
                                        positions: positions, length: length, derived: derived))
                for d in derived { draft.report["roads with \(d) derived (not tagged)", default: 0] += 1 }
            }
        }
        draft.report["roads"] = draft.roads.count
        draft.intersections = intersections(draft.roads, places: places, signals: Set(signals.map(Vertex.init)),
                                            stops: Set(stops.map(Vertex.init)))
        draft.report["intersections"] = draft.intersections.count
        draft.report["signalized intersections"] = draft.intersections.filter { $0.control == "信号控制" }.count
        return draft
    }

    /// One intersection per road end: its legs (road ends meeting there), its name from the roads'
    /// names (甲路与乙路交叉口), its control from the tagged vertices.
    static func intersections(_ roads: [Road], places: [String: Position], signals: Set<Vertex>, stops: Set<Vertex>) -> [Intersection] {
        var legs: [String: Int] = [:]
        var names: [String: [(rank: Int, name: String)]] = [:]
        let rank = ["快速路": 0, "主干路": 1, "次干路": 2, "支路": 3]
        for r in roads {
            for end in [r.from, r.to] {
                legs[end, default: 0] += 1
                if !r.name.isEmpty { names[end, default: []].append((rank[r.roadClass] ?? 4, r.name)) }
            }
        }
        return places.keys.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }.map { id in
            let p = places[id]!
            var seen = Set<String>()
            let distinct = (names[id] ?? []).sorted { ($0.rank, $0.name) < ($1.rank, $1.name) }.map(\.name).filter { seen.insert($0).inserted }
            let name = distinct.count >= 2 ? "\(distinct[0])与\(distinct[1])交叉口" : distinct.first.map { "\($0)路口" } ?? "无名路口"
            let v = Vertex(p)
            let control = signals.contains(v) ? "信号控制" : stops.contains(v) ? "停车让行" : "无控制"
            return Intersection(id: id, position: p, name: name, control: control, legs: legs[id] ?? 0)
        }
    }
}
