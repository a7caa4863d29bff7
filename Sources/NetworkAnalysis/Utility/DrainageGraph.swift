/// A drainage network as plain values: manholes/outfalls as nodes and pipes directed with the
/// flow (from the upstream node to the downstream node).
public struct DrainageGraph: Sendable {
    public struct Pipe: Sendable, Hashable {
        public var id: String
        /// Upstream node id.
        public var from: String
        /// Downstream node id.
        public var to: String
        public init(id: String, from: String, to: String) {
            self.id = id
            self.from = from
            self.to = to
        }
    }

    public let nodes: [String]
    public let pipes: [Pipe]
    let nodeIndex: [String: Int]
    let pipeIndex: [String: Int]
    /// Pipe indices leaving / entering each node.
    let outgoing: [[Int]]
    let incoming: [[Int]]

    /// - Throws: `UtilityNetworkError` naming a duplicate id or a pipe whose end is not a node.
    public init(nodes: [String], pipes: [Pipe]) throws {
        var nodeIndex: [String: Int] = [:]
        for (i, n) in nodes.enumerated() {
            guard nodeIndex[n] == nil else { throw UtilityNetworkError("duplicate node id \(n)", id: n) }
            nodeIndex[n] = i
        }
        var pipeIndex: [String: Int] = [:]
        var outgoing = [[Int]](repeating: [], count: nodes.count), incoming = outgoing
        for (k, p) in pipes.enumerated() {
            guard pipeIndex[p.id] == nil else { throw UtilityNetworkError("duplicate pipe id \(p.id)", id: p.id) }
            guard let a = nodeIndex[p.from], let b = nodeIndex[p.to] else {
                throw UtilityNetworkError("pipe \(p.id) joins \(p.from) → \(p.to), which is not a node of the network", id: p.id)
            }
            pipeIndex[p.id] = k
            outgoing[a].append(k)
            incoming[b].append(k)
        }
        self.nodes = nodes
        self.pipes = pipes
        self.nodeIndex = nodeIndex
        self.pipeIndex = pipeIndex
        self.outgoing = outgoing
        self.incoming = incoming
    }
}

/// Which way a trace follows the flow.
public enum TraceDirection: String, Sendable, Hashable, CaseIterable {
    /// Against the flow: everything that drains into the start.
    case upstream = "up"
    /// With the flow: everywhere the start drains to.
    case downstream = "down"
}

/// What a trace reached: node and link ids, sorted.
public struct NetworkTrace: Sendable, Hashable {
    public var nodes: [String]
    public var links: [String]
    public init(nodes: [String], links: [String]) {
        self.nodes = nodes
        self.links = links
    }
}

/// A utility-network input or query error, naming the offending id.
public struct UtilityNetworkError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var id: String?
    public init(_ message: String, id: String? = nil) {
        self.message = message
        self.id = id
    }
    public var description: String { message }
}

extension DrainageGraph {
    /// Upstream or downstream trace from a node or a pipe (breadth-first, O(nodes + pipes)).
    ///
    /// From a node: every node reachable along (downstream) or against (upstream) the flow,
    /// including the start, and every pipe between them. From a pipe: the trace from its
    /// downstream node (downstream) or upstream node (upstream), plus the pipe itself.
    /// - Throws: `UtilityNetworkError` when `start` is neither a node nor a pipe.
    public func trace(from start: String, direction: TraceDirection) throws -> NetworkTrace {
        var seed: Int
        var startPipe: Int?
        if let n = nodeIndex[start] { seed = n }
        else if let k = pipeIndex[start] {
            startPipe = k
            seed = nodeIndex[direction == .downstream ? pipes[k].to : pipes[k].from] ?? 0
        } else {
            throw UtilityNetworkError("\(start) is neither a node nor a pipe of the drainage network", id: start)
        }
        var seen = [Bool](repeating: false, count: nodes.count)
        var usedPipes = [Bool](repeating: false, count: pipes.count)
        if let startPipe { usedPipes[startPipe] = true }
        var queue = [seed]
        seen[seed] = true
        var head = 0
        while head < queue.count {
            let n = queue[head]
            head += 1
            for k in (direction == .downstream ? outgoing[n] : incoming[n]) {
                usedPipes[k] = true
                let next = nodeIndex[direction == .downstream ? pipes[k].to : pipes[k].from] ?? n
                if !seen[next] { seen[next] = true; queue.append(next) }
            }
        }
        return NetworkTrace(nodes: queue.map { nodes[$0] }.sorted(),
                            links: pipes.indices.filter { usedPipes[$0] }.map { pipes[$0].id }.sorted())
    }
}
