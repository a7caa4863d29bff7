/// A water-supply network as plain values: undirected mains between nodes, source nodes
/// (plants, reservoirs), valves on mains (at one end, or mid-main) or at nodes, and customer
/// connections on mains or nodes.
///
/// Internally every main is two half-bodies joined in the middle, so a valve at a main's end
/// separates that end's node from the main, a mid-main valve separates the halves, and a node
/// valve shuts the node itself.
public struct WaterNetwork: Sendable {
    public struct Main: Sendable, Hashable {
        public var id: String
        public var from: String
        public var to: String
        public init(id: String, from: String, to: String) {
            self.id = id
            self.from = from
            self.to = to
        }
    }

    public struct Valve: Sendable, Hashable {
        public var id: String
        /// The main it sits on; `nil` for a valve at a node.
        public var main: String?
        /// The node it sits next to (on `main`) or at (without a main); `nil` with a main: mid-main.
        public var node: String?
        public init(id: String, main: String?, node: String?) {
            self.id = id
            self.main = main
            self.node = node
        }
    }

    public struct Connection: Sendable, Hashable {
        public var id: String
        /// The main or node the service pipe leaves from (exactly one of them).
        public var main: String?
        public var node: String?
        /// Standard address code the connection serves, if known.
        public var addressCode: String?
        /// Hospitals, shelters and other customers that must be told first.
        public var critical: Bool
        public init(id: String, main: String? = nil, node: String? = nil, addressCode: String? = nil, critical: Bool = false) {
            self.id = id
            self.main = main
            self.node = node
            self.addressCode = addressCode
            self.critical = critical
        }
    }

    public let nodes: [String]
    public let mains: [Main]
    public let sources: [String]
    public let valves: [Valve]
    public let connections: [Connection]
    let nodeIndex: [String: Int]
    let mainIndex: [String: Int]
    /// Vertices: nodes 0..<N, then main m's halves N + 2m (from side) and N + 2m + 1 (to side).
    /// Each edge: the other vertex and the valves on it (in series: closing any one shuts the edge).
    let adjacency: [[(vertex: Int, valves: [Int])]]
    /// Valve index at each node (node valves), if any.
    let nodeValves: [Int: [Int]]

    /// - Throws: `UtilityNetworkError` naming a duplicate id or a reference to an unknown node or main.
    public init(nodes: [String], mains: [Main], sources: [String], valves: [Valve], connections: [Connection]) throws {
        var nodeIndex: [String: Int] = [:]
        for (i, n) in nodes.enumerated() {
            guard nodeIndex[n] == nil else { throw UtilityNetworkError("duplicate node id \(n)", id: n) }
            nodeIndex[n] = i
        }
        var mainIndex: [String: Int] = [:]
        for (k, m) in mains.enumerated() {
            guard mainIndex[m.id] == nil else { throw UtilityNetworkError("duplicate main id \(m.id)", id: m.id) }
            guard nodeIndex[m.from] != nil, nodeIndex[m.to] != nil else {
                throw UtilityNetworkError("main \(m.id) joins \(m.from)–\(m.to), which is not a node of the network", id: m.id)
            }
            mainIndex[m.id] = k
        }
        for s in sources where nodeIndex[s] == nil { throw UtilityNetworkError("source \(s) is not a node", id: s) }
        // Guards: (main, end 0/1/mid 2) → valves.
        var guards: [Int: [Int]] = [:]
        var nodeValves: [Int: [Int]] = [:]
        for (v, valve) in valves.enumerated() {
            if let main = valve.main {
                guard let k = mainIndex[main] else { throw UtilityNetworkError("valve \(valve.id) is on unknown main \(main)", id: valve.id) }
                let end: Int
                if let node = valve.node {
                    guard node == mains[k].from || node == mains[k].to else {
                        throw UtilityNetworkError("valve \(valve.id) names node \(node), which is not an end of main \(main)", id: valve.id)
                    }
                    end = node == mains[k].from ? 0 : 1
                } else { end = 2 }
                guards[k * 3 + end, default: []].append(v)
            } else if let node = valve.node, let n = nodeIndex[node] {
                nodeValves[n, default: []].append(v)
            } else {
                throw UtilityNetworkError("valve \(valve.id) names neither a known main nor a known node", id: valve.id)
            }
        }
        for c in connections {
            let ok = c.main.map { mainIndex[$0] != nil } ?? c.node.map { nodeIndex[$0] != nil } ?? false
            guard ok else { throw UtilityNetworkError("connection \(c.id) is on no known main or node", id: c.id) }
        }
        let n = nodes.count
        var adjacency = [[(vertex: Int, valves: [Int])]](repeating: [], count: n + 2 * mains.count)
        func link(_ a: Int, _ b: Int, _ gs: [Int]?) {
            let list = (gs ?? []).sorted { valves[$0].id < valves[$1].id }
            adjacency[a].append((b, list))
            adjacency[b].append((a, list))
        }
        for (k, m) in mains.enumerated() {
            let h0 = n + 2 * k, h1 = h0 + 1
            link(nodeIndex[m.from] ?? 0, h0, guards[k * 3])
            link(h0, h1, guards[k * 3 + 2])
            link(h1, nodeIndex[m.to] ?? 0, guards[k * 3 + 1])
        }
        self.nodes = nodes
        self.mains = mains
        self.sources = sources
        self.valves = valves
        self.connections = connections
        self.nodeIndex = nodeIndex
        self.mainIndex = mainIndex
        self.adjacency = adjacency
        self.nodeValves = nodeValves
    }

    /// Vertices reachable from `seeds` without passing a closed valve (edge or node valve).
    func reachable(from seeds: [Int], closed: Set<Int>) -> [Bool] {
        var seen = [Bool](repeating: false, count: adjacency.count)
        var queue: [Int] = []
        for s in seeds where !seen[s] && !nodeClosed(s, closed) { seen[s] = true; queue.append(s) }
        var head = 0
        while head < queue.count {
            let u = queue[head]
            head += 1
            for (v, guards) in adjacency[u] where !seen[v] && !guards.contains(where: closed.contains) && !nodeClosed(v, closed) {
                seen[v] = true
                queue.append(v)
            }
        }
        return seen
    }

    func nodeClosed(_ vertex: Int, _ closed: Set<Int>) -> Bool {
        guard vertex < nodes.count, let vs = nodeValves[vertex] else { return false }
        return vs.contains(where: closed.contains)
    }
}
