import Foundation
import GeoCore
import SignalSim

extension SumoExport {
    /// A turn bay as SUMO built it: the lane groups whose lanes open there, the storage they were
    /// given (`storage_m`, whole metres) and the length their lanes run from where they open to
    /// the stop line in the built network.
    public struct BuiltBay: Sendable, Hashable {
        public var signal: String
        public var approach: String
        public var laneGroups: [String]
        public var storage: Double
        public var built: Double
    }

    /// How far (m) a bay built by netconvert may differ from its storage before the network is
    /// built again with its opening moved.
    public static let bayTolerance = 0.5
    /// The most times netconvert builds one network while moving the bays' openings.
    static let bayBuilds = 4

    /// Writes the plain XML into `directory` (`nodes.nod.xml`, `edges.edg.xml`,
    /// `connections.con.xml`) and builds `network.net.xml` with netconvert (`run` runs it with
    /// the arguments given). netconvert sets each stop line back from its junction and gives each
    /// bay's opening a short junction of its own, so a bay opened at its storage from the node
    /// comes out shorter: the bays are measured in the built network and, where one is off by more
    /// than `bayTolerance`, the network is built again with each opening moved by its difference
    /// (at most `bayBuilds` builds; the bays' built lengths are returned, so a miss is seen).
    /// - Returns: the network, its traffic-light-controlled connections and the bays as built.
    public func buildNetwork(in directory: URL, run: (_ arguments: [String]) async throws -> Void) async throws
        -> (net: URL, links: [NetworkLink], bays: [BuiltBay]) {
        let net = directory.appendingPathComponent("network.net.xml")
        var setbacks: [String: Double] = [:]
        func build() async throws -> (data: Data, bays: [BuiltBay]) {
            let plain = try plainNetwork(setbacks: setbacks)
            try plain.nodes.write(to: directory.appendingPathComponent("nodes.nod.xml"), atomically: true, encoding: .utf8)
            try plain.edges.write(to: directory.appendingPathComponent("edges.edg.xml"), atomically: true, encoding: .utf8)
            try plain.connections.write(to: directory.appendingPathComponent("connections.con.xml"), atomically: true, encoding: .utf8)
            try await run(Self.netconvertArguments(in: directory))
            let data = try Data(contentsOf: net)
            return (data, try measureBays(inNetwork: data))
        }
        var (data, bays) = try await build()
        // An opening first placed inside the junction's setback comes out far off; from a sane
        // first figure on, one move lands it.
        for _ in 1..<Self.bayBuilds where bays.contains(where: { abs($0.built - $0.storage) > Self.bayTolerance }) {
            for b in try allBays().values.sorted(by: { $0.edge < $1.edge }) {
                for o in b.openings {
                    guard let m = bays.first(where: { $0.signal == b.signal && $0.approach == b.approach && $0.storage == o.storage }) else { continue }
                    setbacks[o.edge, default: 0] += o.storage - m.built
                }
            }
            (data, bays) = try await build()
        }
        return (net, try Self.controlledLinks(inNetwork: data), bays)
    }

    /// Every turn bay's built length in a network netconvert built from `plainNetwork`: the
    /// lanes of each part from its opening to the stop line, and the short junctions between them.
    func measureBays(inNetwork data: Data) throws -> [BuiltBay] {
        /// Lane 0 of every edge: its length and the first and last points of its shape.
        var lanes: [String: (length: Double, first: (Double, Double), last: (Double, Double))] = [:]
        var edge: String?
        do {
            try XMLElements.read(data, start: { name, a in
                if name == "edge" { edge = a["function"] == "internal" ? nil : a["id"]; return }
                guard name == "lane", let edge, a["index"] == "0", let length = a["length"].flatMap(Double.init),
                      let shape = a["shape"] else { return }
                let points = shape.split(separator: " ").map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count >= 2 }
                guard let f = points.first, let l = points.last else { return }
                lanes[edge] = (length, (f[0], f[1]), (l[0], l[1]))
            }, end: { name in
                if name == "edge" { edge = nil }
            })
        } catch {
            throw SignalTimingError(field: "network", "netconvert's network cannot be read: \(error.reason)")
        }
        var out: [BuiltBay] = []
        for b in try allBays().values.sorted(by: { $0.edge < $1.edge }) {
            let parts = (1...b.openings.count).map { b.edge(ofPart: $0) }
            for (i, o) in b.openings.enumerated() {
                // The parts from opening i on: their lanes and the junctions between them.
                var length = 0.0
                for p in i..<parts.count {
                    guard let lane = lanes[parts[p]] else {
                        throw SignalTimingError(field: "network", "netconvert built no edge \(parts[p]) for the bay of \(b.signal) approach \(b.approach)")
                    }
                    length += lane.length
                    if p + 1 < parts.count, let next = lanes[parts[p + 1]] {
                        length += hypot(next.first.0 - lane.last.0, next.first.1 - lane.last.1)
                    }
                }
                out.append(BuiltBay(signal: b.signal, approach: b.approach, laneGroups: o.laneGroups, storage: o.storage, built: length))
            }
        }
        return out.sorted { ($0.signal, $0.approach, -$0.storage) < ($1.signal, $1.approach, -$1.storage) }
    }
}
