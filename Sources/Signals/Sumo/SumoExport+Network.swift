import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// The network SUMO runs: the plain XML `netconvert` reads, the stored plans as `tlLogic`
/// programmes switched by time of day, the measured baseline programme, and the controlled
/// links read back from the built network.
extension SumoExport {
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
}
