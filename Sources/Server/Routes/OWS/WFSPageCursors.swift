import Foundation
import TwinStore

/// Where the pages of recent GetFeature requests ended, so that the next page (`STARTINDEX`
/// where the last one stopped, as GDAL and QGIS page) continues from the store's keyset cursor
/// instead of reading and skipping every feature before it: a layer read in pages of 100 costs
/// each page, not each page plus all the pages before. A cursor is kept per layer, query and
/// caller; the oldest go first beyond `capacity`. A cursor whose features changed still
/// continues after the last feature returned, as OGC API Features' `next` links do.
final class WFSPageCursors: @unchecked Sendable {
    struct Key: Hashable {
        let layer: String
        let query: FeatureQuery
        let caller: String
        let index: Int
    }

    private let lock = NSLock()
    private var cursors: [Key: PageCursor] = [:]
    private var order: [Key] = []
    let capacity: Int

    init(capacity: Int = 512) { self.capacity = capacity }

    func cursor(_ key: Key) -> PageCursor? {
        lock.withLock { cursors[key] }
    }

    func remember(_ cursor: PageCursor, _ key: Key) {
        lock.withLock {
            if cursors.updateValue(cursor, forKey: key) == nil { order.append(key) }
            if order.count > capacity {
                let gone = order.removeFirst(order.count - capacity)
                for k in gone { cursors[k] = nil }
            }
        }
    }
}

private extension Array {
    /// Removes and returns the first `n` elements.
    mutating func removeFirst(_ n: Int) -> [Element] {
        let head = Array(prefix(n))
        removeSubrange(0..<n)
        return head
    }
}
