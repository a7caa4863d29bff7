import Foundation
import GeoCore
import TwinStore

/// The sandbox (数据可用不可见): a department runs approved aggregate queries on a layer it may
/// not read row by row, and gets aggregates, never rows.
///
/// - Who: any department or the admin (not anonymous callers), on a layer whose sharing method is
///   `sandbox` (population by address, water and gas accounts) or that it may read anyway.
/// - What comes back: count, sum, mean, min and max per group (`AggregateRequest`); a group with
///   fewer than `k` features (default 5) is suppressed: neither its count nor its values are given.
/// - What is refused (403): a filter on the feature id, the layer's key (`quality.key`) or a masked
///   attribute; a selection of 1…k−1 features (it would isolate them); and a query whose group
///   counts differ from an earlier answer to the same department, differing only by filter, by
///   1…k−1 in a group both answered (differencing, `DifferencingGuard`).
/// - Every query answered or refused is one audit entry in the layer's log (`AccessJournal`):
///   kind `access` or `refused`, the caller, and the query in words.
public struct Sandbox: Sendable {
    public let store: any FeatureStore
    /// Groups with fewer features are suppressed (k-anonymity threshold).
    public let k: Int
    /// The layer of administrative divisions.
    public var divisionsLayer = "admin_divisions"
    private let differencing: DifferencingGuard

    public static let defaultK = 5

    public init(store: any FeatureStore, k: Int = Sandbox.defaultK) {
        self.store = store
        self.k = max(2, k)
        self.differencing = DifferencingGuard()
    }

    /// Answers `request` on `layer` for `caller`, auditing it.
    /// - Throws: `StoreError` `.unauthenticated` (anonymous), `.layerNotFound`, `.forbidden` (a
    ///   layer not offered through the sandbox, or a query refused as isolating), `.invalidQuery`.
    public func aggregate(layer: String, _ request: AggregateRequest, by caller: Caller) async throws -> SandboxAnswer {
        if case .anonymous = caller {
            throw StoreError(.unauthenticated, "the sandbox answers departments: send a bearer token", layer: layer)
        }
        guard let journal = store as? any AccessJournal else {
            throw StoreError(.forbidden, "this store keeps no audit of sandbox queries, so it answers none", layer: layer)
        }
        guard let definition = try await store.layerDefinition(layer, for: .admin) else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        let offered = definition.sharing.method == "sandbox" || AccessPolicy.canRead(definition, caller)
        guard offered else {
            if let refusal = AccessPolicy.readRefusal(definition, caller, reading: "it") { throw refusal }
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        let filter = try check(request, definition)
        let detail = Self.detail(request, layer: layer)
        func refuse(_ why: String) async throws -> Never {
            try await journal.recordAccess(layer: layer, subject: request.subject, detail: detail, kind: .refused, by: caller)
            throw StoreError(.forbidden, "sandbox query refused: \(why)", layer: layer)
        }
        if let isolating = isolatingProperty(filter, definition) {
            try await refuse("the filter reads \(isolating), which singles out rows; filter on other attributes or on an area")
        }
        let grouping = try await SandboxGrouping.make(request.grouping, store: store, divisionsLayer: divisionsLayer)
        var buckets: [String: SandboxStatistics] = [:]
        var total = SandboxStatistics(request.measures)
        let needed = Array(Set(request.measures.compactMap(\.property)))
        for try await f in store.stream(layer: layer, FeatureQuery(filter: filter, properties: needed, limit: 5000), by: .admin) {
            let key = try grouping.key(of: f)
            buckets[key, default: SandboxStatistics(request.measures)].add(f)
            total.add(f)
        }
        if total.count > 0 && total.count < k {
            try await refuse("the selection holds fewer than \(k) features, so any aggregate of it describes individual rows")
        }
        let counts = buckets.mapValues(\.count).merging(["*": total.count]) { a, _ in a }
        let memory = "\(caller.departmentName ?? caller.author)|\(layer)|\(request.shape)"
        if let c = await differencing.conflict(key: memory, filter: request.filter ?? "", counts: counts, k: k) {
            let group = c.group == "*" ? "the whole selection" : "group \(c.group)"
            try await refuse("its count for \(group) differs by \(c.difference) from an earlier answer to this department (filter \(c.filter.isEmpty ? "none" : "'\(c.filter)'")): the difference would isolate fewer than \(k) rows")
        }
        await differencing.record(key: memory, filter: request.filter ?? "", counts: counts)
        try await journal.recordAccess(layer: layer, subject: request.subject, detail: detail, kind: .access, by: caller)
        let groups = try buckets.keys.sorted().map { key -> SandboxGroup in
            let (name, outline) = try grouping.describe(key)
            return buckets[key]!.group(key: key, name: name, geometry: outline, k: k)
        }
        return SandboxAnswer(collection: layer, k: k, request: request, groups: groups,
                             total: total.group(key: "all", name: nil, geometry: nil, k: k))
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
    static func detail(_ request: AggregateRequest, layer: String) -> String {
        "\(layer)\n\(request.subject)\n\(request.shape)"
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

    func group(key: String, name: String?, geometry: Geometry?, k: Int) -> SandboxGroup {
        let suppressed = count < k
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
        return SandboxGroup(key: key, name: name, geometry: geometry, count: suppressed ? nil : count, values: values, suppressed: suppressed)
    }
}
