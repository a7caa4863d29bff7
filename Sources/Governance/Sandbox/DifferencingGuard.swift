import Foundation

/// Remembers the group counts a department was answered per layer and request shape, to refuse
/// a differencing attack where it is cheap to see: two answers that differ only by filter, whose
/// counts for some group both answered differ by fewer than k (the difference would isolate
/// those rows: "all residents" minus "all residents but address X").
actor DifferencingGuard {
    private struct Answer {
        var filter: String
        var counts: [String: Int]
    }

    /// Answers remembered per (caller, layer, shape): the newest, at most this many.
    let depth: Int
    private var answers: [String: [Answer]] = [:]

    init(depth: Int = 64) { self.depth = depth }

    /// The earlier filter and group whose count differs from `counts` by 1…k−1, if any.
    /// Groups suppressed (count < k) in either answer are not compared: their counts were never given.
    func conflict(key: String, filter: String, counts: [String: Int], k: Int) -> (filter: String, group: String, difference: Int)? {
        for earlier in answers[key, default: []].reversed() where earlier.filter != filter {
            for (group, a) in earlier.counts.sorted(by: { $0.key < $1.key }) where a >= k {
                let b = counts[group] ?? 0
                guard b >= k else { continue }
                let d = abs(a - b)
                if d > 0 && d < k { return (earlier.filter, group, d) }
            }
        }
        return nil
    }

    /// Remembers an answer given.
    func record(key: String, filter: String, counts: [String: Int]) {
        var list = answers[key, default: []]
        list.removeAll { $0.filter == filter }
        list.append(Answer(filter: filter, counts: counts))
        if list.count > depth { list.removeFirst(list.count - depth) }
        answers[key] = list
    }
}
