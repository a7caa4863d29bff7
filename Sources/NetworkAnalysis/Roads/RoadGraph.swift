import GeoCore

/// The directed road graph of one `RoadNetwork` for one `TravelProfile`, with its contraction
/// hierarchy: the object every routing query runs on.
///
/// Each piece gives up to two arcs (along and against its digitised direction; a one-way piece
/// only the first when the profile honours one-way rules) costing `length / speed` seconds.
/// Queries start and end at `EdgePosition`s, paying the partial cost of the first and last piece.
/// Turn restrictions split the junctions they apply at (see `init(network:profile:restrictions:)`).
///
/// **Closures** (flooded or blocked roads, and roads slowed by shallower water) are a query-time
/// argument, not a rebuild: with no closures a query uses the hierarchy (PHAST); with closures it
/// falls back to a plain Dijkstra on the original arcs that skips closed pieces and multiplies a
/// slowed piece's cost by its factor (partial first and last pieces alike). A hierarchy cannot drop arcs without
/// re-contraction, and a flood changes by the minute, so the exact fallback (a few ms on a
/// district) beats rebuilding. **Road edits** rebuild the graph (`rebuilt(lines:)`), which the
/// store adapter calls when the change feed shows the roads layer changed.
public struct RoadGraph: Sendable {
    /// Topology and geometry.
    public let network: RoadNetwork
    /// The traveller.
    public let profile: TravelProfile
    /// Preprocessing for fast queries.
    public let hierarchy: ContractionHierarchy

    let arcTail: [Int32]
    let arcHead: [Int32]
    let arcPiece: [Int32]
    let arcForward: [Bool]
    /// Seconds.
    let arcCost: [Double]
    /// Base arc along / against each piece's digitised direction, or -1 when not allowed (its copies
    /// leaving junction copies are in `arcVariants`).
    let forwardArc: [Int32]
    let backwardArc: [Int32]
    let outgoing: CompactGraph
    /// The network node of each junction copy (search node `network.nodes.count + k`).
    let junctionCopies: [Int32]
    /// Copies of a base arc leaving junction copies (only arcs that have any).
    let arcVariants: [Int32: [Int32]]
    /// The search nodes copying each restricted junction (only junctions that have any).
    let nodeCopies: [Int32: [Int32]]
    /// The turn restrictions the graph was built with (kept for rebuilds).
    public let restrictions: [TurnRestriction]
    /// Restrictions that could not be matched to the roads, with the reason.
    public let unresolvedRestrictions: [UnresolvedTurnRestriction]

    /// Builds the graph and its hierarchy (seconds for a district; O(n log n)-ish in practice).
    ///
    /// **Turn restrictions** (honoured when `profile.honoursTurnRestrictions`) are built in by
    /// node splitting: each arc entering a junction with a forbidden turn gets its own copy of the
    /// junction node, whose outgoing arcs are the junction's minus the forbidden ones. Copies sit
    /// at the junction's position and map back to it, so the hierarchy and every query run
    /// unchanged; a junction's travel time is the minimum over its copies. Restrictions that
    /// cannot be matched to the roads are listed in `unresolvedRestrictions`, not thrown: one bad
    /// survey record must not stop routing.
    public init(network: RoadNetwork, profile: TravelProfile, restrictions: [TurnRestriction] = []) {
        var tails: [Int32] = [], heads: [Int32] = [], piece: [Int32] = [], forward: [Bool] = [], cost: [Double] = []
        var fwd = [Int32](repeating: -1, count: network.pieces.count)
        var bwd = fwd
        for (i, p) in network.pieces.enumerated() {
            let line = network.lines[Int(p.line)]
            let speed = (profile.fixedSpeedKmh ?? line.speedKmh) / 3.6
            let seconds = p.length / speed
            fwd[i] = Int32(tails.count)
            tails.append(p.from); heads.append(p.to); piece.append(Int32(i)); forward.append(true); cost.append(seconds)
            if !(line.oneway && profile.honoursOneway) {
                bwd[i] = Int32(tails.count)
                tails.append(p.to); heads.append(p.from); piece.append(Int32(i)); forward.append(false); cost.append(seconds)
            }
        }
        let n = network.nodes.count
        var copies: [Int32] = []
        var variants: [Int32: [Int32]] = [:]
        var unresolved: [UnresolvedTurnRestriction] = []
        if !restrictions.isEmpty {
            let base = CompactGraph(nodeCount: n, tails: tails, heads: heads)
            let resolved = Self.resolve(restrictions, network: network, tails: tails, heads: heads,
                                        pieceOf: piece, forward: forward, outgoing: base)
            unresolved = resolved.unresolved
            if profile.honoursTurnRestrictions {
                let restricted = resolved.forbidden.keys.sorted()
                let junction = restricted.map { heads[Int($0)] }
                for (k, a) in restricted.enumerated() {
                    copies.append(junction[k])
                    heads[Int(a)] = Int32(n + k)
                }
                for (k, a) in restricted.enumerated() {
                    let banned = resolved.forbidden[a] ?? []
                    for slot in base.slots(leaving: Int(junction[k])) {
                        let b = Int(base.arcIDs[slot])
                        if banned.contains(Int32(b)) { continue }
                        variants[Int32(b), default: []].append(Int32(tails.count))
                        tails.append(Int32(n + k)); heads.append(heads[b]); piece.append(piece[b])
                        forward.append(forward[b]); cost.append(cost[b])
                    }
                }
            }
        }
        self.network = network
        self.profile = profile
        self.restrictions = restrictions
        self.unresolvedRestrictions = unresolved
        arcTail = tails; arcHead = heads; arcPiece = piece; arcForward = forward; arcCost = cost
        forwardArc = fwd; backwardArc = bwd
        junctionCopies = copies
        arcVariants = variants
        var copiesOf: [Int32: [Int32]] = [:]
        for (k, v) in copies.enumerated() { copiesOf[v, default: []].append(Int32(n + k)) }
        nodeCopies = copiesOf
        outgoing = CompactGraph(nodeCount: n + copies.count, tails: tails, heads: heads)
        hierarchy = ContractionHierarchy(nodeCount: n + copies.count, tails: tails, heads: heads, costs: cost)
    }

    /// Splits `lines` and builds the graph.
    /// - Throws: `GeometryError` naming the bad line (see `RoadNetwork.init(lines:)`).
    public init(lines: [RoadLine], profile: TravelProfile, restrictions: [TurnRestriction] = []) throws {
        self.init(network: try RoadNetwork(lines: lines), profile: profile, restrictions: restrictions)
    }

    /// A new graph for changed roads, same profile and turn restrictions: the rebuild entry point
    /// for road edits.
    public func rebuilt(lines: [RoadLine]) throws -> RoadGraph {
        try RoadGraph(lines: lines, profile: profile, restrictions: restrictions)
    }

    /// A new graph for changed roads and/or turn restrictions, same profile.
    public func rebuilt(lines: [RoadLine], restrictions: [TurnRestriction]) throws -> RoadGraph {
        try RoadGraph(lines: lines, profile: profile, restrictions: restrictions)
    }

    /// Number of search nodes: the network's nodes plus one copy per restricted junction approach.
    var graphNodeCount: Int { network.nodes.count + junctionCopies.count }

    /// The network node a search node stands for.
    @inline(__always) func networkNode(_ node: Int32) -> Int32 {
        let n = network.nodes.count
        return Int(node) < n ? node : junctionCopies[Int(node) - n]
    }

    /// Number of directed arcs.
    public var arcCount: Int { arcCost.count }

    /// The open road position nearest to `point` (metres), or `nil` when every piece near it is
    /// closed or the network is empty.
    public func snap(_ point: Position, avoiding closures: RoadClosures = .none) -> EdgePosition? {
        if closures.isEmpty { return network.snap(point) }
        for k in [8, 64, network.pieces.count] {
            if let p = network.snapCandidates(point, k: k).first(where: { !closures.contains($0.piece) }) { return p }
        }
        return nil
    }

    // MARK: Partial costs at edge positions

    /// Fraction of piece `piece` between offsets `a` and `b` metres.
    func fraction(_ piece: Int, _ a: Double, _ b: Double) -> Double {
        let len = network.pieces[piece].length
        return len > 0 ? max(0, b - a) / len : 0
    }

    /// Metres from a piece's end within which a road position stands on the end's node: the
    /// precision to which `RoadNetwork` matches vertices into nodes.
    static let nodeMetres = 0.001

    /// The network node `position` stands on (within `nodeMetres` of its piece's end), if any.
    func node(at position: EdgePosition) -> Int32? {
        let piece = network.pieces[position.piece]
        if position.offset <= Self.nodeMetres { return piece.from }
        if piece.length - position.offset <= Self.nodeMetres { return piece.to }
        return nil
    }

    /// Where a search from `origins` (alternative starts, see `RoadAccess`) starts: an origin on
    /// a junction starts at the junction node at 0 s (every road leaving it may be taken, and
    /// the junction itself is reached); every origin also starts along its piece in each
    /// direction the piece allows, paying the partial cost to the piece's end.
    func seeds(from origins: [EdgePosition], closures: RoadClosures) -> [Seed] {
        var seeds: [Seed] = []
        for (i, origin) in origins.enumerated() {
            let p = origin.piece, piece = network.pieces[p]
            guard !closures.contains(p) else { continue }
            if let v = node(at: origin) { seeds.append(Seed(node: v, cost: 0, forward: true, origin: i, atNode: true)) }
            let slow = closures.factor(p)
            if forwardArc[p] >= 0 {
                seeds.append(Seed(node: arcHead[Int(forwardArc[p])], cost: arcCost[Int(forwardArc[p])] * slow * fraction(p, origin.offset, piece.length),
                                  forward: true, origin: i, atNode: false))
            }
            if backwardArc[p] >= 0 {
                seeds.append(Seed(node: arcHead[Int(backwardArc[p])], cost: arcCost[Int(backwardArc[p])] * slow * fraction(p, 0, origin.offset),
                                  forward: false, origin: i, atNode: false))
            }
        }
        return seeds
    }

    /// A search start: `node` at `cost` seconds, reached from `origins[origin]` along its piece
    /// (`forward`: in the digitised direction), or standing on it (`atNode`).
    struct Seed { var node: Int32; var cost: Double; var forward: Bool; var origin: Int; var atNode: Bool }

    /// How a search reaches a target: directly along an origin's piece, entering the target's
    /// piece through an arc, or standing on a node the search reached.
    /// `via` names the arc (a base arc or a copy leaving a junction copy) that enters the piece;
    /// `node` the search node (a junction or one of its copies) the target stands on.
    enum Arrival: Equatable { case direct(origin: Int, forward: Bool), via(arc: Int32), node(Int32) }

    /// The best arrival at any of `targets` from any of `origins` (alternative ends, see
    /// `RoadAccess`), with the index of the target position reached.
    func arrival(at targets: [EdgePosition], from origins: [EdgePosition], tree: TravelTree,
                 closures: RoadClosures) -> (seconds: Double, how: Arrival, target: Int)? {
        var best: (seconds: Double, how: Arrival, target: Int)?
        for (j, target) in targets.enumerated() {
            guard let a = arrival(at: target, from: origins, tree: tree, closures: closures) else { continue }
            if best == nil || a.seconds < best!.seconds { best = (a.seconds, a.how, j) }
        }
        return best
    }

    /// One origin and one target.
    func arrival(at target: EdgePosition, from origin: EdgePosition, tree: TravelTree,
                 closures: RoadClosures) -> (seconds: Double, how: Arrival)? {
        arrival(at: target, from: [origin], tree: tree, closures: closures)
    }

    /// The search nodes whose travel times `arrival(at:…)` reads for `target`: the node it stands
    /// on and that node's copies, and the tails of the arcs (and their copies) entering its piece.
    /// Keep in step with `arrival(at:from:tree:closures:)`.
    func arrivalNodes(at target: EdgePosition) -> [Int32] {
        var nodes: [Int32] = []
        let q = target.piece
        if let v = node(at: target) {
            nodes.append(v)
            nodes += nodeCopies[v] ?? []
        }
        for base in [forwardArc[q], backwardArc[q]] where base >= 0 {
            nodes.append(arcTail[Int(base)])
            for a in arcVariants[base] ?? [] { nodes.append(arcTail[Int(a)]) }
        }
        return nodes
    }

    /// The ranks a search must sweep to reach `targets` (`ContractionHierarchy.sweepSelection`).
    /// A selection made for a set of targets serves any subset of them: callers that search the
    /// same targets again (a resource layer, the lots of a district) make it once and pass it to
    /// `nearest(from:targets:count:avoiding:withRoutes:sweeping:)`.
    public func sweepSelection(reaching targets: [RoadAccess]) -> [Int32] {
        hierarchy.sweepSelection(reaching: targets.flatMap { $0.positions.flatMap(arrivalNodes(at:)) })
    }

    /// How a search reaches `target`: the best of entering its piece from either end, standing
    /// on a reached node, or travelling directly along an origin's piece.
    func arrival(at target: EdgePosition, from origins: [EdgePosition], tree: TravelTree,
                 closures: RoadClosures) -> (seconds: Double, how: Arrival)? {
        let q = target.piece, piece = network.pieces[q]
        guard !closures.contains(q) else { return nil }
        var best: (Double, Arrival)?
        func consider(_ s: Double, _ how: Arrival) {
            if s.isFinite, best == nil || s < best!.0 { best = (s, how) }
        }
        let slow = closures.factor(q)
        for (i, origin) in origins.enumerated() where origin.piece == q && !closures.contains(q) {
            if forwardArc[q] >= 0, target.offset >= origin.offset {
                consider(arcCost[Int(forwardArc[q])] * slow * fraction(q, origin.offset, target.offset), .direct(origin: i, forward: true))
            }
            if backwardArc[q] >= 0, target.offset <= origin.offset {
                consider(arcCost[Int(backwardArc[q])] * slow * fraction(q, target.offset, origin.offset), .direct(origin: i, forward: false))
            }
        }
        if let v = node(at: target) {
            consider(tree.seconds(to: v, in: self), .node(v))
            for c in nodeCopies[v] ?? [] { consider(tree.seconds(to: c, in: self), .node(c)) }
        }
        /// Entering along base arc `base` or one of its copies leaving junction copies.
        func enter(_ base: Int32, partial: Double) {
            consider(tree.seconds(to: arcTail[Int(base)], in: self) + partial, .via(arc: base))
            guard !arcVariants.isEmpty, let copies = arcVariants[base] else { return }
            for a in copies { consider(tree.seconds(to: arcTail[Int(a)], in: self) + partial, .via(arc: a)) }
        }
        if forwardArc[q] >= 0 { enter(forwardArc[q], partial: arcCost[Int(forwardArc[q])] * slow * fraction(q, 0, target.offset)) }
        if backwardArc[q] >= 0 {
            enter(backwardArc[q], partial: arcCost[Int(backwardArc[q])] * slow * fraction(q, target.offset, piece.length))
        }
        return best.map { (seconds: $0.0, how: $0.1) }
    }

    // MARK: One-to-all searches

    /// Travel times from `origin` to every search node: PHAST on the hierarchy without closures, a plain
    /// Dijkstra skipping closed pieces (and paying slowed ones' factors) otherwise.
    /// `plain` forces the Dijkstra (tests compare both).
    func tree(from origin: EdgePosition, closures: RoadClosures, plain: Bool = false) -> TravelTree {
        tree(from: [origin], closures: closures, plain: plain)
    }

    /// The same from alternative starts (see `RoadAccess`): each node gets the best over them.
    /// With `selection` (`sweepSelection(reaching:)`) only the costs of arrivals at the targets it
    /// was made for, and of their routes, are computed (RPHAST); read no other.
    func tree(from origins: [EdgePosition], closures: RoadClosures, plain: Bool = false, sweeping selection: [Int32]? = nil) -> TravelTree {
        let seeds = seeds(from: origins, closures: closures)
        if closures.isEmpty && !plain {
            var t = HierarchyTree()
            hierarchy.oneToAll(from: seeds.map { ($0.node, $0.cost) }, into: &t, sweeping: selection)
            return TravelTree(seeds: seeds, origins: origins, hierarchy: t, plainCost: [], plainParent: [])
        }
        let n = graphNodeCount
        var cost = [Double](repeating: .infinity, count: n)
        var parent = [Int32](repeating: -1, count: n)
        var heap = MinHeap()
        for s in seeds where s.cost < cost[Int(s.node)] {
            cost[Int(s.node)] = s.cost
            heap.push(s.cost, s.node)
        }
        let slowed = !closures.slowed.isEmpty
        while let (d, x) = heap.pop() {
            let v = Int(x)
            if d > cost[v] { continue }
            for slot in outgoing.slots(leaving: v) {
                let a = Int(outgoing.arcIDs[slot])
                if closures.contains(Int(arcPiece[a])) { continue }
                let w = Int(outgoing.heads[slot])
                let nd = d + (slowed ? arcCost[a] * closures.factor(Int(arcPiece[a])) : arcCost[a])
                if nd < cost[w] { cost[w] = nd; parent[w] = Int32(a); heap.push(nd, Int32(w)) }
            }
        }
        return TravelTree(seeds: seeds, origins: origins, hierarchy: nil, plainCost: cost, plainParent: parent)
    }
}

/// The result of a one-to-all search from an edge position.
struct TravelTree {
    var seeds: [RoadGraph.Seed]
    /// The alternative starts the seeds come from.
    var origins: [EdgePosition]
    var hierarchy: HierarchyTree?
    var plainCost: [Double]
    var plainParent: [Int32]

    /// Seconds from the origin to search node `node` (infinity when unreachable).
    func seconds(to node: Int32, in graph: RoadGraph) -> Double {
        if let h = hierarchy { return h.cost[Int(graph.hierarchy.rank[Int(node)])] }
        return plainCost[Int(node)]
    }

    /// The original arcs from the search's seed to `node`, in travel order, and the seed node.
    func arcs(to node: Int32, in graph: RoadGraph) -> (arcs: [Int32], root: Int32) {
        if let h = hierarchy {
            let ch = graph.hierarchy
            var r = ch.rank[Int(node)]
            var chunks: [[Int32]] = []
            while h.parent[Int(r)] >= 0 {
                let a = h.parent[Int(r)]
                var part: [Int32] = []
                ch.unpack(a, into: &part)
                chunks.append(part)
                r = ch.rank[Int(graph.arcTail[Int(part[0])])]
            }
            return (chunks.reversed().flatMap { $0 }, ch.nodeAtRank[Int(r)])
        }
        var v = node
        var out: [Int32] = []
        while plainParent[Int(v)] >= 0 {
            let a = plainParent[Int(v)]
            out.append(a)
            v = graph.arcTail[Int(a)]
        }
        return (out.reversed(), v)
    }
}
