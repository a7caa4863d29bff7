/// A static R-tree packed with the Sort-Tile-Recursive algorithm (Leutenegger et al. 1997), the
/// same index GEOS and shapely build: bulk-loaded once from (envelope, element) pairs and
/// immutable afterwards, so it can be shared freely between threads.
///
/// Layout is flat: items (envelopes and elements) in two arrays in leaf order, nodes in one
/// array level by level (leaves first, root last), each node naming a contiguous range of
/// children. Building costs O(n log n); a window query visits O(log n + hits) nodes.
///
/// Envelopes are in the units of the elements' CRS. Items whose envelope has a NaN coordinate
/// can intersect nothing and are left out of the tree.
public struct STRtree<Element> {
    struct Node {
        var envelope: Envelope
        /// First child: an item index for leaf nodes, a node index otherwise.
        var first: Int
        var count: Int
    }

    /// Item envelopes in leaf order.
    let itemEnvelopes: [Envelope]
    /// Elements in leaf order.
    let elements: [Element]
    /// Position of each item in the sequence the tree was built from (ties in `nearest`).
    let inputIndices: [Int]
    /// All nodes, level by level from the leaves; the root is the last.
    let nodes: [Node]
    /// Nodes `0..<leafNodeCount` are leaves whose children are items.
    let leafNodeCount: Int

    /// Maximum number of children per node.
    public let nodeCapacity: Int

    /// Builds the tree from (envelope, element) pairs.
    /// - Parameter nodeCapacity: children per node (GEOS and shapely use 10); values below 2
    ///   are treated as 2.
    public init<S: Sequence>(_ items: S, nodeCapacity: Int = 10) where S.Element == (Envelope, Element) {
        let capacity = Swift.max(2, nodeCapacity)
        var envelopes: [Envelope] = []
        var elements: [Element] = []
        var inputIndices: [Int] = []
        envelopes.reserveCapacity(items.underestimatedCount)
        elements.reserveCapacity(items.underestimatedCount)
        for (offset, (envelope, element)) in items.enumerated() {
            guard !envelope.minX.isNaN, !envelope.minY.isNaN, !envelope.maxX.isNaN, !envelope.maxY.isNaN else { continue }
            envelopes.append(envelope)
            elements.append(element)
            inputIndices.append(offset)
        }
        self.nodeCapacity = capacity
        guard !envelopes.isEmpty else {
            self.itemEnvelopes = []
            self.elements = []
            self.inputIndices = []
            self.nodes = []
            self.leafNodeCount = 0
            return
        }

        // Leaves: tile the items, then store them in tile order.
        let (order, groups) = STRtree.tile(envelopes, capacity: capacity)
        self.itemEnvelopes = order.map { envelopes[$0] }
        self.elements = order.map { elements[$0] }
        self.inputIndices = order.map { inputIndices[$0] }
        var nodes: [Node] = []
        nodes.reserveCapacity(groups.count + groups.count / (capacity - 1) + 2)
        for group in groups {
            nodes.append(Node(envelope: STRtree.union(itemEnvelopes[group]), first: group.lowerBound, count: group.count))
        }
        self.leafNodeCount = nodes.count

        // Upper levels: tile the level below, reorder it in place, add one parent per tile.
        var levelStart = 0
        while nodes.count - levelStart > 1 {
            let level = Array(nodes[levelStart...])
            let (order, groups) = STRtree.tile(level.map(\.envelope), capacity: capacity)
            for (i, j) in order.enumerated() { nodes[levelStart + i] = level[j] }
            let parentsStart = nodes.count
            for group in groups {
                let children = nodes[(levelStart + group.lowerBound)..<(levelStart + group.upperBound)]
                nodes.append(Node(envelope: STRtree.union(children.lazy.map(\.envelope)),
                                  first: levelStart + group.lowerBound, count: group.count))
            }
            levelStart = parentsStart
        }
        self.nodes = nodes
    }

    /// Builds the tree from elements and a function giving each one's envelope.
    public init<S: Sequence>(_ elements: S, nodeCapacity: Int = 10,
                             envelope: (Element) throws -> Envelope) rethrows where S.Element == Element {
        self.init(try elements.map { (try envelope($0), $0) }, nodeCapacity: nodeCapacity)
    }

    /// Number of items in the tree.
    public var count: Int { elements.count }

    /// Whether the tree holds no items.
    public var isEmpty: Bool { elements.isEmpty }

    /// The envelope of all items, or `nil` for an empty tree.
    public var bounds: Envelope? { nodes.last?.envelope }

    /// The Sort-Tile-Recursive tiling of one level: sort by centre x, cut into ⌈√(n/M)⌉ vertical
    /// slices, sort each slice by centre y and cut it into runs of `capacity`. Returns the new
    /// order (indices into `envelopes`) and the runs as ranges of that order.
    static func tile(_ envelopes: [Envelope], capacity: Int) -> (order: [Int], groups: [Range<Int>]) {
        let n = envelopes.count
        let tileCount = (n + capacity - 1) / capacity
        var slices = Int(Double(tileCount).squareRoot().rounded(.up))
        if slices * slices < tileCount { slices += 1 }   // guard the square root's rounding
        let sliceSize = slices * capacity

        // Centres as sort keys; an infinite envelope's NaN centre sorts as 0.
        func key(_ a: Double, _ b: Double) -> Double {
            let c = a / 2 + b / 2
            return c.isNaN ? 0 : c
        }
        let xs = envelopes.map { key($0.minX, $0.maxX) }
        let ys = envelopes.map { key($0.minY, $0.maxY) }
        var order = Array(0..<n)
        order.sort { xs[$0] != xs[$1] ? xs[$0] < xs[$1] : $0 < $1 }
        var groups: [Range<Int>] = []
        groups.reserveCapacity(tileCount + slices)
        var sliceStart = 0
        while sliceStart < n {
            let sliceEnd = Swift.min(n, sliceStart + sliceSize)
            order[sliceStart..<sliceEnd].sort { ys[$0] != ys[$1] ? ys[$0] < ys[$1] : $0 < $1 }
            var groupStart = sliceStart
            while groupStart < sliceEnd {
                let groupEnd = Swift.min(sliceEnd, groupStart + capacity)
                groups.append(groupStart..<groupEnd)
                groupStart = groupEnd
            }
            sliceStart = sliceEnd
        }
        return (order, groups)
    }

    /// The union of envelopes (none of them NaN).
    static func union<C: Sequence>(_ envelopes: C) -> Envelope where C.Element == Envelope {
        var u = Envelope(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)
        for e in envelopes {
            if e.minX < u.minX { u.minX = e.minX }
            if e.minY < u.minY { u.minY = e.minY }
            if e.maxX > u.maxX { u.maxX = e.maxX }
            if e.maxY > u.maxY { u.maxY = e.maxY }
            // An inverted envelope (min > max) still has to be covered by its parent.
            if e.maxX < u.minX { u.minX = e.maxX }
            if e.maxY < u.minY { u.minY = e.maxY }
            if e.minX > u.maxX { u.maxX = e.minX }
            if e.minY > u.maxY { u.maxY = e.minY }
        }
        return u
    }
}

extension STRtree: Sendable where Element: Sendable {}
