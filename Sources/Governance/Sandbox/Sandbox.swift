import Foundation
import GeoCore
import TwinStore

/// The sandbox (数据可用不可见): a department runs approved aggregate queries on a layer it may
/// not read row by row, and gets aggregates, never rows.
///
/// - Who: any department or the admin (not anonymous callers), on a layer whose sharing method is
///   `sandbox` (population by address, water and gas accounts) or that it may read anyway; and,
///   inside a process's answer, a department the layer's owner named for that process in the
///   catalogue (`SharingPolicy.aggregateGrants`: the fire brigade's pre-plan).
/// - What comes back: count, sum, mean, min and max per group (`AggregateRequest`), under the
///   disclosure control of `DisclosureControl`: groups of fewer than `k` records suppressed, and
///   further groups suppressed so that no suppressed group is the difference of released figures.
/// - What is refused (403): a filter on the feature id, the layer's key or a masked attribute; a
///   selection of 1…k−1 records; a selection that differs by 1…k−1 records from a set of records
///   whose aggregates the department was given before, in any grouping and with any filter, within
///   `window` (`DisclosureLedger`, kept in the store), or from the layer's whole.
/// - Every query answered or refused is one audit entry in the layer's log (`AccessJournal`):
///   kind `access` or `refused`, the caller, and the query in words.
///
/// The guarantee (docs/capabilities/governance.md): within the window, no released figure and no
/// difference of two released figures (of one answer or of two, of any groupings and filters) to
/// one department is about 1…k−1 of a layer's records. Callers who may read every row and every
/// measured attribute in clear (the owner, the admin) are answered without the ledger.
public struct Sandbox: Sendable {
    public let store: any FeatureStore
    /// Groups with fewer features are suppressed (k-anonymity threshold).
    public let k: Int
    /// The layer of administrative divisions.
    public var divisionsLayer = "admin_divisions"
    /// How long a release is remembered and checked against (the guarantee's window): a year.
    public var window: TimeInterval = 365 * 86_400

    public static let defaultK = 5

    public init(store: any FeatureStore, k: Int = Sandbox.defaultK) {
        self.store = store
        self.k = max(2, k)
    }

    /// Answers `request` on `layer` for `caller`, auditing it.
    /// - Throws: `StoreError` `.unauthenticated` (anonymous), `.layerNotFound`, `.forbidden` (a
    ///   layer not offered through the sandbox, or a query refused as isolating), `.invalidQuery`.
    public func aggregate(layer: String, _ request: AggregateRequest, by caller: Caller) async throws -> SandboxAnswer {
        if case .anonymous = caller {
            throw StoreError(.unauthenticated, "the sandbox answers departments: send a bearer token", layer: layer)
        }
        let (definition, journal) = try await audited(layer)
        let offered = definition.sharing.method == "sandbox" || AccessPolicy.canRead(definition, caller)
        guard offered else {
            if let refusal = AccessPolicy.readRefusal(definition, caller, reading: "it") { throw refusal }
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        let filter = try check(request, definition)
        let detail = Self.detail(request.subject, layer: layer)
        func refuse(_ why: String) async throws -> Never {
            try await journal.recordAccess(layer: layer, subject: request.subject, detail: detail, kind: .refused, by: caller)
            throw StoreError(.forbidden, "sandbox query refused: \(why)", layer: layer)
        }
        if let isolating = isolatingProperty(filter, definition) {
            try await refuse("the filter reads \(isolating), which singles out rows; filter on other attributes or on an area")
        }
        let grouping = try await SandboxGrouping.make(request.grouping, store: store, divisionsLayer: divisionsLayer)
        switch try await answer(definition, request.measures, filter: filter, grouping: grouping, subject: request.subject, by: caller) {
        case .refused(let why):
            try await refuse(why)
        case .answered(let groups, let total, let k):
            try await journal.recordAccess(layer: layer, subject: request.subject, detail: detail, kind: .access, by: caller)
            return SandboxAnswer(collection: layer, k: k, request: request, groups: groups, total: total)
        }
    }

    /// For process `process`: the aggregates `measures` of the records of `layer` that `selection`
    /// picks (`subject` says which, in words), for a department the layer's owner named for that
    /// process (`SharingPolicy.aggregateGrants`), under the same disclosure control and ledger as
    /// the department's own queries. A selection that may not be released (fewer than k records, or
    /// one that would isolate records with an earlier release) comes back suppressed, with the reason.
    /// - Returns: nil when the owner granted `caller` no aggregates of `layer` in `process`.
    public func aggregate(layer: String, _ measures: [AggregateRequest.Measure], selection: FilterExpression, subject: String,
                          process: String, by caller: Caller) async throws -> SandboxGroup? {
        guard let department = caller.departmentName else { return nil }
        let (definition, journal) = try await audited(layer)
        guard definition.sharing.aggregateGrants.contains(where: { $0.process == process && $0.departments.contains(department) }) else { return nil }
        let subject = "\(process): " + measures.map(\.name).joined(separator: ", ") + " of \(subject)"
        let detail = Self.detail(subject, layer: layer)
        switch try await answer(definition, measures, filter: selection, grouping: SandboxGrouping(kind: .all), subject: subject, by: caller) {
        case .refused(let why):
            try await journal.recordAccess(layer: layer, subject: subject, detail: detail, kind: .refused, by: caller)
            return SandboxStatistics(measures).group(key: "all", name: nil, geometry: nil, k: effectiveK(definition), suppressed: .overlap, because: why)
        case .answered(_, let total, _):
            try await journal.recordAccess(layer: layer, subject: subject, detail: detail, kind: .access, by: caller)
            return total
        }
    }

    /// The layer's definition (read as the administrator) and the store's audit journal.
    private func audited(_ layer: String) async throws -> (LayerDefinition, any AccessJournal) {
        guard let journal = store as? any AccessJournal, store is any DisclosureLedger else {
            throw StoreError(.forbidden, "this store keeps no audit of sandbox queries, so it answers none", layer: layer)
        }
        guard let definition = try await store.layerDefinition(layer, for: .admin) else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        return (definition, journal)
    }

    private enum Answer {
        case refused(String)
        case answered(groups: [SandboxGroup], total: SandboxGroup, k: Int)
    }

    /// The k of `definition`'s aggregates: the owner's (`sharing.k`), raised to this sandbox's.
    public func effectiveK(_ definition: LayerDefinition) -> Int { max(k, definition.sharing.k ?? 0) }

    /// The groups and total of `measures` over the records `filter` selects, as `DisclosureControl`
    /// lets `caller` have them, its releases recorded in the ledger.
    private func answer(_ definition: LayerDefinition, _ measures: [AggregateRequest.Measure], filter: FilterExpression?,
                        grouping: SandboxGrouping, subject: String, by caller: Caller) async throws -> Answer {
        let layer = definition.id
        let k = effectiveK(definition)
        var buckets: [String: SandboxStatistics] = [:]
        var members: [String: [UInt64]] = [:]
        var total = SandboxStatistics(measures)
        let needed = Array(Set(measures.compactMap(\.property)))
        for try await f in store.stream(layer: layer, FeatureQuery(filter: filter, properties: needed, limit: 5000), by: .admin) {
            let key = try grouping.key(of: f)
            buckets[key, default: SandboxStatistics(measures)].add(f)
            members[key, default: []].append(ReleasedSet.memberHash(f.id.map { "\($0)" } ?? ""))
            total.add(f)
        }
        if total.count > 0 && total.count < k {
            return .refused("the selection holds fewer than \(k) features, so any aggregate of it describes individual rows")
        }
        let groups = buckets.keys.sorted().map { DisclosureControl.Group(key: $0, members: ReleasedSet(members: members[$0] ?? [], releasedAt: .distantPast, label: "").members) }
        let selection = ReleasedSet(members: groups.flatMap(\.members), releasedAt: .distantPast, label: "").members
        let ledger = controlled(definition, measures, caller).flatMap { department in (store as? any DisclosureLedger).map { (department, $0) } }
        let universe = ledger == nil ? 0 : try await store.count(layer: layer, FeatureQuery(), by: .admin)
        let label: (String?) -> String = { key in String((subject + " — " + (key.map { "group \($0)" } ?? "whole selection")).prefix(300)) }
        var outcome: DisclosureControl.Outcome?
        for _ in 0..<8 {
            let now = TwinClock.current.now
            let view = ledger.map { LedgerView(ledger: $0.1, requester: $0.0, layer: layer, since: now.addingTimeInterval(-window), k: k) }
            let control = DisclosureControl(k: k, universe: universe, earlier: view)
            do {
                try await view?.prefetch(groups.map(\.members.count) + [selection.count])
                let decided = try await control.decide(selection: selection, groups: groups, labelled: label)
                guard let (department, keeper) = ledger, let view, case .released(_, let sets) = decided else { outcome = decided; break }
                // A set released before, exactly, tells nothing new: the ledger keeps it once (a dashboard asking
                // again), recorded anew once a month so that it stays in the window as long as it is asked.
                var released: [ReleasedSet] = []
                let recent = now.addingTimeInterval(-30 * 86_400)
                for set in sets where try await !view.near(set.members.count).contains(where: { $0.members == set.members && $0.releasedAt > recent }) {
                    released.append(ReleasedSet(members: set.members, releasedAt: now, label: set.label))
                }
                if released.isEmpty {
                    outcome = decided
                    break
                }
                if try await keeper.recordReleases(released, requester: department, layer: layer, expecting: view.head ?? 0,
                                                  pruneBefore: now.addingTimeInterval(-window)) {
                    outcome = decided
                    break
                }
            } catch is LedgerView.Moved {
                continue
            }
        }
        switch outcome {
        case nil:
            throw StoreError(.unavailable, "the sandbox's ledger kept changing under this query (other queries of the same department at once): send it again", layer: layer)
        case .refused(let why)?:
            return .refused(why)
        case .released(let suppressed, _)?:
            let out = try buckets.keys.sorted().map { key -> SandboxGroup in
                let (name, outline) = try grouping.describe(key)
                return buckets[key]!.group(key: key, name: name, geometry: outline, k: k, suppressed: suppressed[key])
            }
            return .answered(groups: out, total: total.group(key: "all", name: nil, geometry: nil, k: k, suppressed: nil), k: k)
        }
    }

    /// The department whose releases the ledger checks, or nil when `caller` may read every row
    /// and the measured attributes in clear anyway (the owner, the admin, a reader of an open layer).
    private func controlled(_ definition: LayerDefinition, _ measures: [AggregateRequest.Measure], _ caller: Caller) -> String? {
        guard let department = caller.departmentName else { return nil }
        let clear = AccessPolicy.canRead(definition, caller) && measures.compactMap(\.property).allSatisfy { p in
            definition.sensitivity(of: p).map { AccessPolicy.seesClearValue(of: $0, in: definition, caller) } ?? true
        }
        return clear ? nil : department
    }

    /// The filter compiled, after checking the measures name numeric properties.
    private func check(_ request: AggregateRequest, _ definition: LayerDefinition) throws -> FilterExpression? {
        for (i, m) in request.measures.enumerated() {
            guard let p = m.property else { continue }
            let field = "$.aggregates[\(i)].property"
            guard definition.schema.properties[p] != nil else {
                throw StoreError(.invalidQuery, "'\(p)' is not an attribute of \(definition.id)", layer: definition.id, field: field)
            }
            let type = definition.schema.scalarType(of: p)
            guard type == .number || type == .integer else {
                throw StoreError(.invalidQuery, "'\(p)' is not numeric, so it has no \(m.statistic.rawValue)", layer: definition.id, field: field)
            }
        }
        guard let text = request.filter else { return nil }
        do {
            return try CQL2.parseText(text, queryables: Queryables(layer: definition), filterCRS: nil)
        } catch {
            throw StoreError(.invalidQuery, "\(error)", layer: definition.id, field: "$.filter")
        }
    }

    /// The property of `filter` that singles out rows: the feature id, the layer's key or a masked attribute.
    private func isolatingProperty(_ filter: FilterExpression?, _ definition: LayerDefinition) -> String? {
        guard let names = filter?.propertyNames else { return nil }
        let key = (try? QualityRules(definition))?.key
        for name in names.sorted() {
            if name == "id" { return "the feature id" }
            if name == key { return "the layer's key \(name)" }
            if definition.sensitivity(of: name) != nil { return "the masked attribute \(name)" }
        }
        return nil
    }

    /// The full text of a query, whose SHA-256 its audit entry records.
    static func detail(_ subject: String, layer: String) -> String {
        "\(layer)\n\(subject)"
    }
}

/// Count, sum, minimum and maximum of each measure's property over the features of one group.
struct SandboxStatistics {
    let measures: [AggregateRequest.Measure]
    private(set) var count = 0
    private var sums: [String: Double] = [:], ns: [String: Int] = [:], mins: [String: Double] = [:], maxs: [String: Double] = [:]

    init(_ measures: [AggregateRequest.Measure]) { self.measures = measures }

    mutating func add(_ f: Feature) {
        count += 1
        for p in Set(measures.compactMap(\.property)) {
            guard let x = f.properties[p]?.doubleValue, x.isFinite else { continue }
            sums[p, default: 0] += x
            ns[p, default: 0] += 1
            mins[p] = Swift.min(mins[p] ?? x, x)
            maxs[p] = Swift.max(maxs[p] ?? x, x)
        }
    }

    /// The group's figures, or none when `suppression` (or fewer than k features) withholds them.
    func group(key: String, name: String?, geometry: Geometry?, k: Int, suppressed suppression: DisclosureControl.Suppression?,
               because reason: String? = nil) -> SandboxGroup {
        let suppression = suppression ?? (count < k ? .threshold : nil)
        let suppressed = suppression != nil
        var values: [String: Double?] = [:]
        for m in measures where m.statistic != .count {
            guard !suppressed, let p = m.property, let n = ns[p], n > 0 else { values[m.name] = .some(nil); continue }
            switch m.statistic {
            case .sum: values[m.name] = sums[p]
            case .mean: values[m.name] = (sums[p] ?? 0) / Double(n)
            case .min: values[m.name] = mins[p]
            case .max: values[m.name] = maxs[p]
            case .count: break
            }
        }
        return SandboxGroup(key: key, name: name, geometry: geometry, count: suppressed ? nil : count, values: values, suppressed: suppressed,
                            suppressedBecause: suppression.map { reason ?? $0.reason(k: k) })
    }
}
