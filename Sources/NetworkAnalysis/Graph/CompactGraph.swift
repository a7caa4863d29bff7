/// A directed graph in compressed sparse row (CSR) form: the arcs leaving node `v` are
/// `arcs[offsets[v] ..< offsets[v + 1]]`, each naming its head node and the caller's arc id.
///
/// Nodes are `0 ..< nodeCount`; arc ids index the caller's own arrays (costs, geometry, pipe
/// attributes), so one topology can carry several weightings. Built once in O(n + m) by a
/// counting sort, immutable afterwards and safe to share between threads. Used for the road
/// graph (both directions) and available to utility tracing.
public struct CompactGraph: Sendable {
    /// Arc range start per node; `nodeCount + 1` entries.
    public let offsets: [Int32]
    /// Head node of each CSR slot.
    public let heads: [Int32]
    /// Caller's arc id of each CSR slot.
    public let arcIDs: [Int32]

    /// Number of nodes.
    public var nodeCount: Int { offsets.count - 1 }
    /// Number of arcs.
    public var arcCount: Int { heads.count }

    /// Builds the graph from arcs given as `(tail, head)` pairs; arc `i` gets id `i`.
    /// Arcs leaving one node keep their input order.
    /// - Parameters:
    ///   - nodeCount: number of nodes; every tail and head must be in `0 ..< nodeCount`.
    ///   - tails: tail node of each arc.
    ///   - heads: head node of each arc (same count as `tails`).
    public init(nodeCount: Int, tails: [Int32], heads arcHeads: [Int32]) {
        precondition(tails.count == arcHeads.count, "CompactGraph: tails and heads differ in count")
        var offsets = [Int32](repeating: 0, count: nodeCount + 1)
        for t in tails { offsets[Int(t) + 1] += 1 }
        for v in 0..<nodeCount { offsets[v + 1] += offsets[v] }
        var fill = Array(offsets.dropLast())
        var heads = [Int32](repeating: 0, count: tails.count)
        var ids = [Int32](repeating: 0, count: tails.count)
        for (i, t) in tails.enumerated() {
            let slot = Int(fill[Int(t)])
            fill[Int(t)] += 1
            heads[slot] = arcHeads[i]
            ids[slot] = Int32(i)
        }
        self.offsets = offsets
        self.heads = heads
        self.arcIDs = ids
    }

    /// The CSR slots of the arcs leaving `node`.
    @inlinable public func slots(leaving node: Int) -> Range<Int> {
        Int(offsets[node])..<Int(offsets[node + 1])
    }

    /// The same arcs reversed (head → tail), keeping arc ids: for backward searches and
    /// upstream traces.
    public func reversed() -> CompactGraph {
        var tails: [Int32] = [], rheads: [Int32] = []
        tails.reserveCapacity(arcCount); rheads.reserveCapacity(arcCount)
        var order: [Int32] = []
        order.reserveCapacity(arcCount)
        for v in 0..<nodeCount {
            for s in slots(leaving: v) {
                tails.append(heads[s]); rheads.append(Int32(v)); order.append(arcIDs[s])
            }
        }
        let r = CompactGraph(nodeCount: nodeCount, tails: tails, heads: rheads)
        return CompactGraph(offsets: r.offsets, heads: r.heads, arcIDs: r.arcIDs.map { order[Int($0)] })
    }

    private init(offsets: [Int32], heads: [Int32], arcIDs: [Int32]) {
        self.offsets = offsets
        self.heads = heads
        self.arcIDs = arcIDs
    }
}
