/// A contraction hierarchy (Geisberger et al. 2008) over a directed graph with non-negative
/// arc costs: the preprocessing that makes road queries fast.
///
/// **Preprocessing.** Nodes are contracted one by one in the order of a priority (edge
/// difference — shortcuts added minus arcs removed — plus the number of already contracted
/// neighbours, kept up to date lazily). Contracting `v` adds a shortcut `u → w` for each pair
/// of remaining neighbours whose shortest `u → v → w` path has no witness: a Dijkstra from `u`
/// that avoids `v`, limited to `witnessSettleLimit` settled nodes and to the shortcut's cost.
/// A limited search can only miss witnesses, i.e. add unneeded shortcuts, so answers stay exact.
/// Each node's rank is its contraction order; internally nodes are renumbered by rank so the
/// PHAST sweep walks memory linearly.
///
/// **Queries.** Every shortest path is an "up, then down" path in the hierarchy. One-to-all
/// distances (PHAST, Delling et al. 2011): a Dijkstra on upward arcs from the sources, then one
/// linear sweep over nodes in descending rank relaxing downward arcs — O(n + m) with no heap, the
/// kernel behind one-to-many matrices, nearest-N and service areas. Paths are recovered by
/// unpacking shortcuts recursively into original arcs.
public struct ContractionHierarchy: Sendable {
    /// Number of nodes.
    public let nodeCount: Int
    /// Rank (contraction order) of each original node.
    public let rank: [Int32]
    /// Original node at each rank.
    public let nodeAtRank: [Int32]
    /// Number of shortcuts the preprocessing added.
    public let shortcutCount: Int

    // Hierarchy arcs (original and shortcuts), by id. Shortcuts name their two halves.
    let arcCost: [Double]
    let arcFirst: [Int32]     // first half (shortcut) or -1
    let arcSecond: [Int32]    // second half (shortcut) or -1
    let arcOriginal: [Int32]  // original arc id or -1
    // Upward arcs in rank space: from a node to higher-ranked heads.
    let upOffsets: [Int32], upHeads: [Int32], upCosts: [Double], upArcs: [Int32]
    // Downward arcs grouped by their lower (head) node, in rank space: `downTails` are higher ranks.
    let downOffsets: [Int32], downTails: [Int32], downCosts: [Double], downArcs: [Int32]

    /// Builds the hierarchy.
    /// - Parameters:
    ///   - nodeCount: nodes `0 ..< nodeCount`.
    ///   - tails, heads, costs: the arcs (same counts); costs are non-negative and finite
    ///     (seconds for roads). Parallel arcs keep the cheapest; loops are dropped.
    ///   - witnessSettleLimit: nodes a witness search may settle before giving up.
    public init(nodeCount: Int, tails: [Int32], heads: [Int32], costs: [Double], witnessSettleLimit: Int = 120) {
        var cost: [Double] = [], first: [Int32] = [], second: [Int32] = [], original: [Int32] = []
        var arcTail: [Int32] = [], arcHead: [Int32] = []
        var outAdj = [[Int32]](repeating: [], count: nodeCount)   // arc ids
        var inAdj = [[Int32]](repeating: [], count: nodeCount)
        func addArc(_ t: Int32, _ h: Int32, _ c: Double, _ f: Int32, _ s: Int32, _ o: Int32) {
            // Keep only the cheapest arc per (tail, head).
            if let k = outAdj[Int(t)].firstIndex(where: { arcHead[Int($0)] == h }) {
                let old = outAdj[Int(t)][k]
                if cost[Int(old)] <= c { return }
                outAdj[Int(t)].remove(at: k)
                inAdj[Int(h)].removeAll { $0 == old }
            }
            let id = Int32(cost.count)
            cost.append(c); first.append(f); second.append(s); original.append(o)
            arcTail.append(t); arcHead.append(h)
            outAdj[Int(t)].append(id)
            inAdj[Int(h)].append(id)
        }
        for i in tails.indices where tails[i] != heads[i] {
            addArc(tails[i], heads[i], costs[i], -1, -1, Int32(i))
        }
        let originalArcs = cost.count

        var contracted = [Bool](repeating: false, count: nodeCount)
        var deleted = [Int32](repeating: 0, count: nodeCount)
        var dist = [Double](repeating: .infinity, count: nodeCount)
        var touched: [Int32] = []
        var heap = MinHeap()

        // Shortcuts needed to contract v: (in arc, out arc, cost).
        func shortcuts(_ v: Int, into result: inout [(Int32, Int32, Double)]) {
            result.removeAll(keepingCapacity: true)
            let outs = outAdj[v]
            guard !outs.isEmpty else { return }
            for inArc in inAdj[v] {
                let u = Int(arcTail[Int(inArc)])
                let c1 = cost[Int(inArc)]
                var maxOut = 0.0
                for o in outs where Int(arcHead[Int(o)]) != u { maxOut = max(maxOut, cost[Int(o)]) }
                let limit = c1 + maxOut
                // Witness search from u avoiding v.
                heap.removeAll()
                dist[u] = 0; touched.append(Int32(u))
                heap.push(0, Int32(u))
                var settled = 0
                while let (d, x) = heap.pop() {
                    let xi = Int(x)
                    if d > dist[xi] { continue }
                    if d > limit || settled >= witnessSettleLimit { break }
                    settled += 1
                    for a in outAdj[xi] {
                        let y = Int(arcHead[Int(a)])
                        if y == v { continue }
                        let nd = d + cost[Int(a)]
                        if nd < dist[y] {
                            if dist[y] == .infinity { touched.append(Int32(y)) }
                            dist[y] = nd
                            heap.push(nd, Int32(y))
                        }
                    }
                }
                for o in outs {
                    let w = Int(arcHead[Int(o)])
                    if w == u { continue }
                    let c = c1 + cost[Int(o)]
                    if dist[w] > c { result.append((inArc, o, c)) }
                }
                for t in touched { dist[Int(t)] = .infinity }
                touched.removeAll(keepingCapacity: true)
            }
        }

        var scratch: [(Int32, Int32, Double)] = []
        func priority(_ v: Int) -> Double {
            shortcuts(v, into: &scratch)
            return Double(scratch.count - outAdj[v].count - inAdj[v].count) + Double(deleted[v])
        }
        var current = [Double](repeating: 0, count: nodeCount)
        var queue = MinHeap()
        for v in 0..<nodeCount {
            current[v] = priority(v)
            queue.push(current[v], Int32(v))
        }
        var order: [Int32] = []
        order.reserveCapacity(nodeCount)
        var upLists = [[Int32]](repeating: [], count: nodeCount)
        var downLists = [[Int32]](repeating: [], count: nodeCount)
        while let (p, x) = queue.pop() {
            let v = Int(x)
            if contracted[v] || p != current[v] { continue }
            let fresh = priority(v)
            if let next = queue.minimumKey, fresh > next {
                current[v] = fresh
                queue.push(fresh, x)
                continue
            }
            // Contract v (`priority` just left its shortcuts in `scratch`): its remaining arcs
            // become its hierarchy arcs.
            let found = scratch
            upLists[v] = outAdj[v]
            downLists[v] = inAdj[v]
            contracted[v] = true
            order.append(x)
            var neighbours = Set<Int32>()
            for a in outAdj[v] {
                let w = Int(arcHead[Int(a)])
                inAdj[w].removeAll { $0 == a }
                neighbours.insert(Int32(w))
            }
            for a in inAdj[v] {
                let u = Int(arcTail[Int(a)])
                outAdj[u].removeAll { $0 == a }
                neighbours.insert(Int32(u))
            }
            outAdj[v] = []; inAdj[v] = []
            for (a, b, c) in found {
                addArc(arcTail[Int(a)], arcHead[Int(b)], c, a, b, -1)
            }
            for w in neighbours {
                deleted[Int(w)] += 1
                current[Int(w)] = priority(Int(w))
                queue.push(current[Int(w)], w)
            }
        }

        var rank = [Int32](repeating: 0, count: nodeCount)
        for (r, v) in order.enumerated() { rank[Int(v)] = Int32(r) }
        self.nodeCount = nodeCount
        self.rank = rank
        self.nodeAtRank = order
        self.shortcutCount = cost.count - originalArcs
        self.arcCost = cost
        self.arcFirst = first
        self.arcSecond = second
        self.arcOriginal = original

        var uo: [Int32] = [0], uh: [Int32] = [], uc: [Double] = [], ua: [Int32] = []
        var dO: [Int32] = [0], dt: [Int32] = [], dc: [Double] = [], da: [Int32] = []
        for r in 0..<nodeCount {
            let v = Int(order[r])
            for a in upLists[v] {
                uh.append(rank[Int(arcHead[Int(a)])]); uc.append(cost[Int(a)]); ua.append(a)
            }
            uo.append(Int32(uh.count))
            for a in downLists[v] {
                dt.append(rank[Int(arcTail[Int(a)])]); dc.append(cost[Int(a)]); da.append(a)
            }
            dO.append(Int32(dt.count))
        }
        upOffsets = uo; upHeads = uh; upCosts = uc; upArcs = ua
        downOffsets = dO; downTails = dt; downCosts = dc; downArcs = da
    }

    /// Shortest travel costs from several sources to every node (PHAST).
    /// - Parameters:
    ///   - sources: `(original node, initial cost)` pairs; a node's cost is the minimum over them.
    ///   - tree: reused storage; on return `tree.cost[rank]` and `tree.parent[rank]` (the
    ///     hierarchy arc that reached it, -1 at sources and unreached nodes) are filled, by rank.
    ///   - selection: when given (`sweepSelection(reaching:)`), the downward sweep visits only these
    ///     ranks (RPHAST): costs are exact at the targets it was selected for and every node above
    ///     them on a downward path, and not to be read elsewhere.
    func oneToAll(from sources: [(node: Int32, cost: Double)], into tree: inout HierarchyTree, sweeping selection: [Int32]? = nil) {
        let n = nodeCount
        if tree.cost.count != n {
            tree.cost = [Double](repeating: .infinity, count: n)
            tree.parent = [Int32](repeating: -1, count: n)
        } else {
            tree.cost.withUnsafeMutableBufferPointer { $0.update(repeating: .infinity) }
            tree.parent.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
        }
        var heap = MinHeap()
        for s in sources {
            let r = Int(rank[Int(s.node)])
            if s.cost < tree.cost[r] { tree.cost[r] = s.cost; tree.parent[r] = -1; heap.push(s.cost, Int32(r)) }
        }
        tree.cost.withUnsafeMutableBufferPointer { cost in
            tree.parent.withUnsafeMutableBufferPointer { parent in
                // Upward Dijkstra.
                while let (d, x) = heap.pop() {
                    let v = Int(x)
                    if d > cost[v] { continue }
                    for s in Int(upOffsets[v])..<Int(upOffsets[v + 1]) {
                        let w = Int(upHeads[s])
                        let nd = d + upCosts[s]
                        if nd < cost[w] { cost[w] = nd; parent[w] = upArcs[s]; heap.push(nd, Int32(w)) }
                    }
                }
                // Downward sweep, highest rank first.
                downOffsets.withUnsafeBufferPointer { offsets in
                    downTails.withUnsafeBufferPointer { tails in
                        downCosts.withUnsafeBufferPointer { costs in
                            func settle(_ v: Int) {
                                var best = cost[v], via: Int32 = -1
                                for s in Int(offsets[v])..<Int(offsets[v + 1]) {
                                    let c = cost[Int(tails[s])] + costs[s]
                                    if c < best { best = c; via = Int32(s) }
                                }
                                if via >= 0 { cost[v] = best; parent[v] = downArcs[Int(via)] }
                            }
                            if let selection {
                                for v in selection { settle(Int(v)) }
                            } else {
                                var v = n - 1
                                while v >= 0 { settle(v); v -= 1 }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The ranks a one-to-many search must sweep downward to know its costs at `targets` (search
    /// nodes), highest first: the targets and every node above them on a downward path, RPHAST's
    /// target selection (Delling, Goldberg, Nowatzyk, Werneck 2011). A search sweeping only these
    /// costs what the targets' part of the hierarchy holds, not the whole city's.
    public func sweepSelection(reaching targets: [Int32]) -> [Int32] {
        var marked = [Bool](repeating: false, count: nodeCount)
        var stack: [Int32] = [], selection: [Int32] = []
        for t in targets where t >= 0 && Int(t) < nodeCount {
            let r = rank[Int(t)]
            if !marked[Int(r)] { marked[Int(r)] = true; stack.append(r) }
        }
        while let r = stack.popLast() {
            selection.append(r)
            for s in Int(downOffsets[Int(r)])..<Int(downOffsets[Int(r) + 1]) {
                let u = downTails[s]
                if !marked[Int(u)] { marked[Int(u)] = true; stack.append(u) }
            }
        }
        selection.sort(by: >)
        return selection
    }

    /// The original arcs of hierarchy arc `arc`, in travel order, appended to `out`.
    func unpack(_ arc: Int32, into out: inout [Int32]) {
        var stack: [Int32] = [arc]
        while let a = stack.popLast() {
            let i = Int(a)
            if arcOriginal[i] >= 0 { out.append(arcOriginal[i]); continue }
            stack.append(arcSecond[i])
            stack.append(arcFirst[i])
        }
    }

    /// Tail (as a rank) of hierarchy arc `arc`, following first halves down to an original arc.
    func tailRank(of arc: Int32, tails: [Int32]) -> Int32 {
        var a = Int(arc)
        while arcOriginal[a] < 0 { a = Int(arcFirst[a]) }
        return rank[Int(tails[Int(arcOriginal[a])])]
    }
}

/// Costs and parent arcs of a one-to-all search in a `ContractionHierarchy`, indexed by rank.
struct HierarchyTree: Sendable {
    var cost: [Double] = []
    var parent: [Int32] = []
}
