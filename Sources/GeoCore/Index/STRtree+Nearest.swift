extension STRtree {
    /// The `k` elements nearest to `position`, nearest first, with their distances.
    ///
    /// Best-first search (Hjaltason & Samet): nodes and items are taken from a priority queue
    /// ordered by the planar distance from `position` to their envelopes; an item's exact
    /// distance comes from `distance` and it is returned only once nothing left in the queue can
    /// be nearer, so the answer is exact, not approximate.
    ///
    /// - Parameters:
    ///   - k: how many elements to return (fewer when the tree holds fewer; none when `k <= 0`).
    ///   - distance: the exact distance from `position` to an element, in CRS units. It must be
    ///     at least the planar distance from `position` to the element's envelope (true of the
    ///     Euclidean distance to any geometry inside the envelope). Elements for which it
    ///     returns NaN are skipped.
    /// - Returns: pairs sorted by distance; equal distances keep the order in which the items
    ///   were given to the tree.
    public func nearest(to position: Position, k: Int = 1,
                        distance: (Element) throws -> Double) rethrows -> [(element: Element, distance: Double)] {
        let point = Envelope(minX: position.x, minY: position.y, maxX: position.x, maxY: position.y)
        return try nearest(to: point, k: k, distance: distance)
    }

    /// The `k` elements nearest to `envelope` (for example another feature's bounding box),
    /// nearest first. As `nearest(to: Position, …)`, with the envelope-to-envelope distance as
    /// the lower bound that `distance` must respect.
    public func nearest(to envelope: Envelope, k: Int = 1,
                        distance: (Element) throws -> Double) rethrows -> [(element: Element, distance: Double)] {
        guard k > 0, let root = nodes.indices.last else { return [] }
        func bound(_ e: Envelope) -> Double {
            let d = e.distanceSquared(to: envelope).squareRoot()
            return d.isNaN ? 0 : d   // an infinite envelope: no useful bound
        }
        var results: [(element: Element, distance: Double)] = []
        results.reserveCapacity(Swift.min(k, count))
        var queue = BestFirstQueue()
        queue.push(.init(key: bound(nodes[root].envelope), kind: .node, index: root, order: 0))
        while let entry = queue.pop() {
            switch entry.kind {
            case .node:
                let node = nodes[entry.index]
                let children = node.first..<(node.first + node.count)
                if entry.index < leafNodeCount {
                    for item in children {
                        queue.push(.init(key: bound(itemEnvelopes[item]), kind: .item, index: item,
                                         order: inputIndices[item]))
                    }
                } else {
                    for child in children {
                        queue.push(.init(key: bound(nodes[child].envelope), kind: .node, index: child, order: child))
                    }
                }
            case .item:
                let d = try distance(elements[entry.index])
                guard !d.isNaN else { continue }
                queue.push(.init(key: d, kind: .measuredItem, index: entry.index, order: entry.order))
            case .measuredItem:
                results.append((elements[entry.index], entry.key))
                if results.count == k { return results }
            }
        }
        return results
    }
}

/// The min-priority queue of the best-first nearest-neighbour search: a binary heap ordered by
/// distance, then kind (nodes and unmeasured items before measured ones, so every item at a tied
/// distance is measured before any of them is returned), then input order.
struct BestFirstQueue {
    enum Kind: UInt8, Comparable {
        case node, item, measuredItem
        static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    struct Entry {
        /// Envelope distance (lower bound) for nodes and items; exact distance once measured.
        var key: Double
        var kind: Kind
        var index: Int
        var order: Int

        @inline(__always)
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            if a.key != b.key { return a.key < b.key }
            if a.kind != b.kind { return a.kind < b.kind }
            return a.order < b.order
        }
    }

    private var heap: [Entry] = []

    mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Entry.precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var best = parent
                if left < heap.count && Entry.precedes(heap[left], heap[best]) { best = left }
                if right < heap.count && Entry.precedes(heap[right], heap[best]) { best = right }
                if best == parent { break }
                heap.swapAt(parent, best)
                parent = best
            }
        }
        return top
    }
}
