/// A binary min-heap of `(key, item)` pairs: the priority queue of every Dijkstra-style search in
/// this module (road routing, contraction, utility traces).
///
/// There is no decrease-key: a search pushes an item again with its smaller key and skips stale
/// entries when they surface (`key > best[item]`). That "lazy deletion" is simpler and, for road
/// and pipe graphs with small degrees, faster than an indexed heap. Push and pop cost O(log n).
/// `removeAll` keeps the storage so one heap can serve many searches without reallocating.
public struct MinHeap: Sendable {
    @usableFromInline var keys: [Double] = []
    @usableFromInline var items: [Int32] = []

    /// An empty heap.
    public init() {}

    /// Number of entries, stale ones included.
    @inlinable public var count: Int { keys.count }
    /// Whether no entry is left.
    @inlinable public var isEmpty: Bool { keys.isEmpty }
    /// The smallest key, or `nil` when empty.
    @inlinable public var minimumKey: Double? { keys.first }

    /// Empties the heap, keeping its capacity.
    @inlinable public mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
    }

    /// Adds `item` with priority `key` (smaller comes first).
    @inlinable public mutating func push(_ key: Double, _ item: Int32) {
        keys.append(key)
        items.append(item)
        var child = keys.count - 1
        while child > 0 {
            let parent = (child - 1) >> 1
            if keys[parent] <= key { break }
            keys[child] = keys[parent]
            items[child] = items[parent]
            child = parent
        }
        keys[child] = key
        items[child] = item
    }

    /// Removes and returns the entry with the smallest key, or `nil` when empty.
    @inlinable public mutating func pop() -> (key: Double, item: Int32)? {
        guard let top = keys.first else { return nil }
        let topItem = items[0]
        let lastKey = keys.removeLast()
        let lastItem = items.removeLast()
        let n = keys.count
        if n > 0 {
            var parent = 0
            while true {
                var child = 2 * parent + 1
                if child >= n { break }
                if child + 1 < n && keys[child + 1] < keys[child] { child += 1 }
                if lastKey <= keys[child] { break }
                keys[parent] = keys[child]
                items[parent] = items[child]
                parent = child
            }
            keys[parent] = lastKey
            items[parent] = lastItem
        }
        return (top, topItem)
    }
}
