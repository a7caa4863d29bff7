/// What closing valves around a burst main does.
public struct MainIsolation: Sendable, Hashable {
    /// The valves to close, sorted by id: the operable valves on the boundary of the
    /// valve-bounded segment holding the burst main (expanded past failed valves).
    public var valvesToClose: [String]
    /// Failed valves the search had to pass, sorted.
    public var failedValvesPassed: [String]
    /// Failed valves the caller named that the isolation never reaches (they neither bound the
    /// segment nor lie inside it): naming them changes nothing, and the answer says so. Sorted.
    public var failedValvesNotReached: [String]
    /// Mains inside the isolated segment (the burst main among them), sorted.
    public var segmentMains: [String]
    /// Mains out of service once the valves close: the segment plus everything no longer
    /// connected to any source, sorted.
    public var mainsCutOff: [String]
    /// Nodes no longer connected to any source, sorted.
    public var nodesCutOff: [String]
    /// Connections (customers) that lose water, sorted by id.
    public var connectionsCutOff: [String]
    /// The critical ones among them (hospitals, shelters), sorted.
    public var criticalConnections: [String]
    /// Address codes to notify (of the connections cut off), sorted and unique.
    public var addressesToNotify: [String]
}

extension WaterNetwork {
    /// Isolates a burst main.
    ///
    /// 1. Breadth-first search from the main's body over mains and nodes, treating every operable
    ///    valve as a barrier: the valves met form the minimal set to close (a failed valve is
    ///    passed, so the search expands to the next valves behind it; a closed node valve shuts
    ///    its node).
    /// 2. With those valves closed and the segment out of service, every node, main and connection
    ///    not reachable from a source loses water.
    ///
    /// O(nodes + mains + valves + connections).
    /// - Parameters:
    ///   - main: the burst main's id.
    ///   - failedValves: ids of valves that are missing or will not close.
    /// - Throws: `UtilityNetworkError` when `main` is not a main of the network, or a failed
    ///   valve is not a valve of it.
    public func isolate(main: String, failedValves: Set<String> = []) throws -> MainIsolation {
        guard let k = mainIndex[main] else { throw UtilityNetworkError("\(main) is not a main of the water network", id: main) }
        let known = Set(valves.map(\.id))
        if let unknown = failedValves.subtracting(known).sorted().first {
            throw UtilityNetworkError("\(unknown) is not a valve of the water network", id: unknown)
        }
        let n = nodes.count
        let failed = Set(valves.indices.filter { failedValves.contains(valves[$0].id) })
        // 1. The segment.
        var inSegment = [Bool](repeating: false, count: adjacency.count)
        var boundary: [(vertex: Int, valve: Int)] = [], passed: Set<Int> = []
        var queue = [n + 2 * k, n + 2 * k + 1]
        inSegment[n + 2 * k] = true
        inSegment[n + 2 * k + 1] = true
        var head = 0
        while head < queue.count {
            let u = queue[head]
            head += 1
            for (v, guards) in adjacency[u] where !inSegment[v] {
                if let operable = guards.first(where: { !failed.contains($0) }) {
                    boundary.append((v, operable))
                    continue
                }
                passed.formUnion(guards)
                if v < n, let vs = nodeValves[v] {
                    if let operable = vs.sorted(by: { valves[$0].id < valves[$1].id }).first(where: { !failed.contains($0) }) {
                        boundary.append((v, operable))
                        continue
                    }
                    passed.formUnion(vs)
                }
                inSegment[v] = true
                queue.append(v)
            }
        }
        // A valve met early may end up inside the segment (its far side reached around it): only
        // valves whose far side stays outside bound the segment.
        let toClose = Set(boundary.filter { !inSegment[$0.vertex] }.map(\.valve))
        // 2. What stays fed.
        let seeds = sources.compactMap { nodeIndex[$0] }.filter { !inSegment[$0] }
        var fed = reachable(from: seeds, closed: toClose)
        for i in fed.indices where inSegment[i] { fed[i] = false }
        let mainsOut = mains.indices.filter { !fed[n + 2 * $0] || !fed[n + 2 * $0 + 1] }
        let mainOut = Set(mainsOut)
        let nodesOut = (0..<n).filter { !fed[$0] }
        let connectionsOut = connections.filter { c in
            if let m = c.main, let i = mainIndex[m] { return mainOut.contains(i) }
            if let node = c.node, let i = nodeIndex[node] { return !fed[i] }
            return false
        }
        let segment = mains.indices.filter { inSegment[n + 2 * $0] || inSegment[n + 2 * $0 + 1] }
        let failedPassed = passed.map { valves[$0].id }
        return MainIsolation(
            valvesToClose: toClose.map { valves[$0].id }.sorted(),
            failedValvesPassed: failedPassed.sorted(),
            failedValvesNotReached: failedValves.subtracting(failedPassed).sorted(),
            segmentMains: segment.map { mains[$0].id }.sorted(),
            mainsCutOff: mainsOut.map { mains[$0].id }.sorted(),
            nodesCutOff: nodesOut.map { nodes[$0] }.sorted(),
            connectionsCutOff: connectionsOut.map(\.id).sorted(),
            criticalConnections: connectionsOut.filter(\.critical).map(\.id).sorted(),
            addressesToNotify: Array(Set(connectionsOut.compactMap(\.addressCode))).sorted())
    }

    /// Everything connected to `start` (a node or main id) through open mains, with the valves in
    /// `closedValves` shut. Water mains are undirected, so up- and downstream coincide.
    /// - Throws: `UtilityNetworkError` when `start` is neither a node nor a main.
    public func trace(from start: String, closedValves: Set<String> = []) throws -> NetworkTrace {
        let n = nodes.count
        let seeds: [Int]
        if let i = nodeIndex[start] { seeds = [i] }
        else if let k = mainIndex[start] { seeds = [n + 2 * k, n + 2 * k + 1] }
        else { throw UtilityNetworkError("\(start) is neither a node nor a main of the water network", id: start) }
        let closed = Set(valves.indices.filter { closedValves.contains(valves[$0].id) })
        let seen = reachable(from: seeds, closed: closed)
        return NetworkTrace(nodes: (0..<n).filter { seen[$0] }.map { nodes[$0] }.sorted(),
                            links: mains.indices.filter { seen[n + 2 * $0] || seen[n + 2 * $0 + 1] }.map { mains[$0].id }.sorted())
    }
}
