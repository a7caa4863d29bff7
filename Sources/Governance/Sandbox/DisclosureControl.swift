import Foundation
import TwinStore

/// Decides what of one sandbox answer may be released to a department: which groups are
/// suppressed, and which sets of records the department learns aggregates of (for the ledger).
///
/// The rules, in the order applied (Hundepool et al., *Statistical Disclosure Control*, 2012,
/// ch. 5 on tables, and the query-set-size and overlap controls of interactive query systems):
///
/// 1. **Threshold (primary suppression)**: a group of fewer than k records is suppressed.
/// 2. **Query-set size and overlap**: every set of records released (the selection, a group, and
///    what the answer's figures give by subtraction: the suppressed groups together and the shown
///    groups together) must differ by 0 or at least k records from every set released to the same
///    department on the layer before (`DisclosureLedger`, across every grouping, cell size and
///    filter) and from the layer's whole (whose total is public knowledge). A selection that does
///    not is refused; a group that does not is suppressed.
/// 3. **Secondary suppression**: the suppressed groups together must hold 0 or at least k records
///    (total − Σ shown would give them otherwise), and what they and the shown groups come to must
///    pass rule 2: the smallest shown group is suppressed as well until they do.
///
/// So no released figure, and no difference of two released figures, is about 1…k−1 records.
struct DisclosureControl {
    let k: Int
    /// The layer's records now (its whole, known to everyone).
    let universe: Int
    /// Earlier releases to the department; nil when the caller may read the rows anyway (no ledger).
    let earlier: LedgerView?

    /// One group of the answer: its key and its records' hashes (sorted, distinct).
    struct Group {
        var key: String
        var members: [UInt64]
    }

    /// Why a group's figures are not given.
    enum Suppression: String, Sendable, Hashable {
        /// Fewer than k records.
        case threshold
        /// Its records differ by 1…k−1 from a set released before to the department.
        case overlap
        /// Suppressed with others so that no suppressed group is the difference of released figures.
        case secondary

        /// The reason in words, as an answer gives it.
        func reason(k: Int) -> String {
            switch self {
            case .threshold: "fewer than \(k) records"
            case .overlap: "its records differ by 1…\(k - 1) from a set released to this department before"
            case .secondary: "suppressed with the others so that no suppressed group is the difference of released figures"
            }
        }
    }

    enum Outcome {
        /// Refused whole: the selection itself would isolate records.
        case refused(String)
        /// The groups suppressed (by key) and the sets released.
        case released(suppressed: [String: Suppression], sets: [(label: String, members: [UInt64])])
    }

    /// The decision for a selection (`selection`, all of `groups` together) answered as `groups`.
    func decide(selection: [UInt64], groups: [Group], labelled label: (String?) -> String) async throws -> Outcome {
        if let c = try await conflict(selection) {
            return .refused("its selection differs by \(c.difference) from \(c.with): the difference would isolate fewer than \(k) records")
        }
        var suppressed: [String: Suppression] = [:]
        for g in groups where g.members.count < k { suppressed[g.key] = .threshold }
        for g in groups where suppressed[g.key] == nil {
            if try await conflict(g.members) != nil { suppressed[g.key] = .overlap }
        }
        let all = Set(selection)
        while true {
            let hidden = groups.filter { suppressed[$0.key] != nil }.flatMap(\.members).sorted()
            let hiddenSet = Set(hidden)
            let shown = hidden.isEmpty ? selection : selection.filter { !hiddenSet.contains($0) }
            var uncovered = (1..<k).contains(hidden.count)
            if !uncovered, !hidden.isEmpty, hidden.count < all.count, try await conflict(hidden) != nil { uncovered = true }
            if !uncovered, !shown.isEmpty, shown.count < all.count, try await conflict(shown) != nil { uncovered = true }
            guard uncovered else {
                var sets = [(label: label(nil), members: selection)]
                for g in groups where suppressed[g.key] == nil && g.members.count < all.count { sets.append((label(g.key), g.members)) }
                if !hidden.isEmpty && hidden.count < all.count {
                    sets.append((label(nil) + " (suppressed groups together)", hidden))
                    if groups.filter({ suppressed[$0.key] == nil }).count > 1 { sets.append((label(nil) + " (shown groups together)", shown)) }
                }
                return .released(suppressed: suppressed, sets: sets)
            }
            guard let next = groups.filter({ suppressed[$0.key] == nil }).min(by: { ($0.members.count, $0.key) < ($1.members.count, $1.key) }) else {
                return .released(suppressed: suppressed, sets: [(label(nil), selection)])
            }
            suppressed[next.key] = .secondary
        }
    }

    /// The earlier release (or the layer's whole) that `members` differs from by 1…k−1 records.
    func conflict(_ members: [UInt64]) async throws -> (with: String, difference: Int)? {
        guard let earlier else { return nil }
        let rest = universe - members.count
        if rest > 0 && rest < k { return ("the layer's whole (\(universe) records, whose total is known)", rest) }
        for set in try await earlier.near(members.count) {
            let d = ReleasedSet.symmetricDifference(members, set.members, limit: k)
            if d > 0 && d < k { return ("an earlier answer to this department (\(set.label))", d) }
        }
        return nil
    }
}

/// The ledger's releases to one department on one layer, read by size as a decision needs them
/// (a set can differ by fewer than k records only from sets within k of its size), all at the
/// same head: a decision that reads the ledger at two heads starts again.
final class LedgerView: @unchecked Sendable {
    let ledger: any DisclosureLedger
    let requester: String, layer: String, since: Date, k: Int
    private(set) var head: Int64?
    private var covered: [ClosedRange<Int>] = []
    private var sets: [ReleasedSet] = []

    struct Moved: Error {}

    init(ledger: any DisclosureLedger, requester: String, layer: String, since: Date, k: Int) {
        self.ledger = ledger
        self.requester = requester
        self.layer = layer
        self.since = since
        self.k = k
    }

    /// Reads the sets of the sizes `sizes` may differ from by fewer than k, in one round trip.
    func prefetch(_ sizes: [Int]) async throws {
        try await read(sizes.map { max(1, $0 - k + 1)...($0 + k - 1) })
    }

    /// The releases whose size is within k − 1 of `size`.
    func near(_ size: Int) async throws -> [ReleasedSet] {
        let range = max(1, size - k + 1)...(size + k - 1)
        if !covered.contains(where: { $0.contains(range.lowerBound) && $0.contains(range.upperBound) }) { try await read([range]) }
        return sets.filter { range.contains($0.size) }
    }

    private func read(_ ranges: [ClosedRange<Int>]) async throws {
        let page = try await ledger.releases(requester: requester, layer: layer, since: since, sizes: ranges)
        if let head, head != page.head { throw Moved() }
        head = page.head
        let fresh = page.sets.filter { s in !covered.contains { $0.contains(s.size) } }
        sets += fresh
        covered += ranges
    }
}
