import Foundation
import GeoCore
import TwinStore

/// One entity or observation as `$filter`, `$orderby` and rendering see it: its own
/// properties as JSON and the ids of its to-one navigation targets.
struct STARow: Sendable {
    var kind: SensingKind
    var id: Int64
    var json: [String: JSONValue]
    var toOne: [String: Int64]
    /// Outgoing to-many links (a Thing's Locations), for navigation.
    var toMany: [String: [Int64]]

    init(_ e: SensingEntity) {
        kind = e.kind
        id = e.id
        json = e.body
        toOne = [:]
        toMany = [:]
        for (name, (_, many)) in SensingNavigation.outgoing[e.kind] ?? [:] where !name.hasPrefix("_") {
            if many { toMany[name] = e.links[name] ?? [] } else if let t = e.link(name) { toOne[name] = t }
        }
    }

    /// An observation read with `fields` (`ObservationFields`): members not read are left out
    /// (rendering writes a `resultTime` left out as null).
    init(_ o: SensingObservation) { self.init(o, fields: .all) }

    init(_ o: SensingObservation, fields: ObservationFields) {
        kind = .observation
        id = o.id
        var j = [String: JSONValue](minimumCapacity: 4)
        if fields.contains(.phenomenonEnd) { j["phenomenonTime"] = .string(SensingTime.format(o.phenomenonStart, o.phenomenonEnd)) }
        if fields.contains(.resultTime) { j["resultTime"] = o.resultTime.map { .string(SensingTime.format($0)) } ?? .null }
        if fields.contains(.result) { j["result"] = o.result }
        if let q = o.resultQuality { j["resultQuality"] = q }
        if let v = o.validStart { j["validTime"] = .string(SensingTime.format(v, o.validEnd)) }
        if let p = o.parameters { j["parameters"] = p }
        json = j
        toOne = ["Datastream": o.datastream]
        if let f = o.featureOfInterest { toOne["FeatureOfInterest"] = f }
        toMany = [:]
    }
}

/// Answers SensorThings reads: resolves a path, selects (`$filter`, with the observation
/// table's index doing datastream and phenomenonTime ranges), orders, pages, expands and renders.
struct STAReader: Sendable {
    let store: any SensingStore
    /// `http://host:port/sta/v1.1`
    let root: String
    let now = SensingTime.now

    /// Observations a `$filter` the index cannot answer may scan in memory; a wider selection
    /// is refused with a 400 asking to narrow it by Datastream and phenomenonTime.
    static let memoryFilterLimit = 200_000

    // MARK: Paths

    func resolve(_ path: STAPath) async throws -> (STANode, ref: Bool) {
        var segments = path.segments
        var ref = false
        if segments.last == .ref { ref = true; segments.removeLast() }
        guard let first = segments.first else { throw Problem(.notFound, "no entity set named") }
        var node: STANode
        switch first {
        case .name(let set):
            guard let kind = SensingKind(entitySet: set) else { throw Problem(.notFound, "no entity set '\(set)'") }
            node = .collection(kind, kind == .observation ? .observations(ObservationRange()) : .all)
        case .entity(let set, let id):
            guard let kind = SensingKind(entitySet: set) else { throw Problem(.notFound, "no entity set '\(set)'") }
            try await requireExists(kind, id)
            node = .entity(kind, id)
        default:
            throw Problem(.notFound, "a path starts with an entity set")
        }
        for segment in segments.dropFirst() {
            switch (node, segment) {
            case (.entity(let kind, let id), .name(let name)):
                if let (target, many) = SensingNavigation.properties(of: kind)[name] {
                    if many {
                        node = .collection(target, try await source(from: kind, id, name))
                    } else {
                        guard let t = try await row(kind, id)?.toOne[name] else { throw Problem(.notFound, "\(kind.entitySet)(\(id)) has no \(name)") }
                        node = .entity(target, t)
                    }
                } else if STAProperties.of[kind]?.contains(name) == true || name == "id" {
                    node = .property(kind, id, name, raw: false)
                } else {
                    throw Problem(.notFound, "\(kind.rawValue) has no property or navigation property '\(name)'")
                }
            case (.collection(let kind, let source), .entity(let set, let id)):
                guard SensingKind(entitySet: set) == kind else { throw Problem(.notFound, "'\(set)' is not this collection") }
                guard try await contains(source, kind, id) else { throw Problem(.notFound, "no \(kind.rawValue) \(id) here") }
                node = .entity(kind, id)
            case (.entity(let kind, let parent), .entity(let name, let id)):
                guard let nav = SensingNavigation.properties(of: kind)[name], nav.1 else {
                    throw Problem(.notFound, "\(kind.rawValue) has no collection '\(name)'")
                }
                let target = nav.0
                guard try await contains(try await source(from: kind, parent, name), target, id) else {
                    throw Problem(.notFound, "no \(target.rawValue) \(id) in \(kind.entitySet)(\(parent))/\(name)")
                }
                node = .entity(target, id)
            case (.property(let kind, let id, let name, false), .value):
                node = .property(kind, id, name, raw: true)
            default:
                throw Problem(.notFound, "no resource at this path")
            }
        }
        return (node, ref)
    }

    func requireExists(_ kind: SensingKind, _ id: Int64) async throws {
        guard try await row(kind, id) != nil else { throw Problem(.notFound, "no \(kind.rawValue) with @iot.id \(id)") }
    }

    func row(_ kind: SensingKind, _ id: Int64) async throws -> STARow? {
        if kind == .observation { return try await store.observation(id: id).map(STARow.init) }
        return try await store.sensingEntity(kind, id: id).map(STARow.init)
    }

    /// The source of the to-many navigation property `name` of entity `kind(id)`.
    func source(from kind: SensingKind, _ id: Int64, _ name: String) async throws -> STASource {
        if name == "Observations" {
            return .observations(kind == .datastream ? ObservationRange(datastream: id) : ObservationRange(featureOfInterest: id))
        }
        if let (_, back) = SensingNavigation.incoming[kind]?[name] { return .linked(SensingLink(back, id)) }
        guard let r = try await row(kind, id) else { throw Problem(.notFound, "no \(kind.rawValue) with @iot.id \(id)") }
        return .ids(r.toMany[name] ?? [], holder: (kind, id, name))
    }

    func contains(_ source: STASource, _ kind: SensingKind, _ id: Int64) async throws -> Bool {
        switch source {
        case .all: return try await row(kind, id) != nil
        case .ids(let ids, _): return ids.contains(id)
        case .linked(let link): return try await store.sensingEntity(kind, id: id)?.links[link.name]?.contains(link.id) == true
        case .observations(var range):
            range.ids = [id]
            return try await store.observationCount(range) == 1
        }
    }

    // MARK: Selection

    /// One page of a collection: the rows, whether more follow, and the total when `$count`.
    func select(_ kind: SensingKind, _ source: STASource, _ options: STAQueryOptions) async throws -> (rows: [STARow], more: Bool, count: Int?) {
        let size = options.pageSize
        if case .observations(let base) = source {
            return try await selectObservations(base, options, size: size)
        }
        let entities: [SensingEntity] = switch source {
        case .all: try await store.sensingEntities(kind, linkedBy: nil)
        case .linked(let link): try await store.sensingEntities(kind, linkedBy: link)
        case .ids(let ids, _): try await store.sensingEntities(kind, ids: ids)
        case .observations: []
        }
        return try await page(entities.map(STARow.init), options, size: size)
    }

    private func page(_ all: [STARow], _ options: STAQueryOptions, size: Int) async throws -> (rows: [STARow], more: Bool, count: Int?) {
        var rows = all
        let cache = STARowCache(reader: self)
        let paths = (options.filter?.paths ?? []) + options.orderBy.flatMap(\.0.paths)
        try await cache.preload(rows, paths: paths)
        if let filter = options.filter {
            rows = try rows.filter { r in try SensingFilterEvaluator.matches(filter, now: now) { try cache.value(r, $0) } }
        }
        if !options.orderBy.isEmpty {
            let keys = try rows.map { r in try options.orderBy.map { try SensingFilterEvaluator.evaluate($0.0, now: now) { try cache.value(r, $0) } } }
            let order = rows.indices.sorted { a, b in
                for (i, o) in options.orderBy.enumerated() {
                    let c = Self.compare(keys[a][i], keys[b][i])
                    if c != 0 { return o.descending ? c > 0 : c < 0 }
                }
                return rows[a].id < rows[b].id
            }
            rows = order.map { rows[$0] }
        }
        let total = rows.count
        let start = min(options.skip, total)
        let end = min(start + size, total)
        // `$top=0` asks for the count alone: no next page to follow.
        return (Array(rows[start..<end]), size > 0 && end < total, options.count ? total : nil)
    }

    /// Nulls first, then by value; values that do not compare keep their order.
    static func compare(_ a: SensingValue, _ b: SensingValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: return SensingFilterEvaluator.order(a, b) ?? 0
        }
    }

    private func selectObservations(_ base: ObservationRange, _ options: STAQueryOptions, size: Int) async throws -> (rows: [STARow], more: Bool, count: Int?) {
        if let page = try await indexedObservations(base, options, size: size) {
            return (page.observations.map { STARow($0, fields: page.fields) }, page.more, page.count)
        }
        var range = base
        var residual = [SensingFilter]()
        for c in options.filter?.conjuncts ?? [] where !Self.pushDown(c, into: &range) { residual.append(c) }
        let n = try await store.observationCount(range)
        guard n <= Self.memoryFilterLimit else {
            throw Problem(.invalidFilter, "parameter '$filter': this selection holds \(n) observations and the filter needs them all in memory (at most \(Self.memoryFilterLimit)); narrow it by Datastream and phenomenonTime",
                          parameter: "$filter")
        }
        range.limit = max(n, 1)
        range.offset = 0
        let all = try await store.observations(range).map(STARow.init)
        var rest = options
        rest.filter = residual.isEmpty ? nil : residual.dropFirst().reduce(residual[0]) { .binary("and", $0, $1) }
        return try await page(all, rest, size: size)
    }

    /// One page of observations when the store's index answers the whole `$filter` and
    /// `$orderby` (one range read, only the members the response shows: `fields`); `nil` when
    /// part of the filter or order must be evaluated in memory.
    func indexedObservations(_ base: ObservationRange, _ options: STAQueryOptions, size: Int) async throws
        -> (observations: [SensingObservation], fields: ObservationFields, more: Bool, count: Int?)? {
        var range = base
        for c in options.filter?.conjuncts ?? [] where !Self.pushDown(c, into: &range) { return nil }
        var order = ObservationRange.Order.id
        var descending = false
        if let first = options.orderBy.first {
            guard options.orderBy.count == 1, case .path(let p) = first.0 else { return nil }
            if p == ["phenomenonTime"] { order = .phenomenonTime } else if p == ["id"] || p == ["@iot.id"] { order = .id } else { return nil }
            descending = first.descending
        }
        range.order = order
        range.descending = descending
        range.limit = size + 1
        range.offset = options.skip
        range.fields = Self.observationFields(options)
        var list = try await store.observations(range)
        let more = size > 0 && list.count > size
        if list.count > size { list.removeLast() }
        let count = options.count ? try await store.observationCount(range) : nil
        return (list, range.fields, more, count)
    }

    /// What of each observation a response with `options` shows: `$select`'s members (and the
    /// FeatureOfInterest for its link or `$expand`); everything without `$select`.
    static func observationFields(_ options: STAQueryOptions) -> ObservationFields {
        guard let select = options.select else { return .all }
        var fields: ObservationFields = []
        for name in select {
            switch name {
            case "id", "@iot.id", "@iot.selfLink", "Datastream", "Datastream/id": break
            case "phenomenonTime": fields.insert(.phenomenonEnd)
            case "resultTime": fields.insert(.resultTime)
            case "result": fields.insert(.result)
            case "resultQuality": fields.insert(.resultQuality)
            case "validTime": fields.insert(.validTime)
            case "parameters": fields.insert(.parameters)
            case "FeatureOfInterest", "FeatureOfInterest/id": fields.insert(.featureOfInterest)
            default: return .all
            }
        }
        if options.expand.contains(where: { $0.path.first == "FeatureOfInterest" }) { fields.insert(.featureOfInterest) }
        return fields
    }

    /// Moves a conjunct the index answers into `range`: `phenomenonTime` against a date-time
    /// literal, `Datastream/id eq n`. `false` leaves it for the in-memory filter.
    static func pushDown(_ c: SensingFilter, into range: inout ObservationRange) -> Bool {
        guard case .binary(var op, var l, var r) = c else { return false }
        if case .literal = l, case .path = r {
            swap(&l, &r)
            op = ["gt": "lt", "ge": "le", "lt": "gt", "le": "ge"][op] ?? op
        }
        guard case .path(let p) = l, case .literal(let v) = r else { return false }
        if p == ["phenomenonTime"], case .time(let t) = v {
            // Interval observations compare by their start, as the in-memory filter does.
            switch op {
            case "ge": range.from = max(range.from ?? .min, t)
            case "gt": range.from = max(range.from ?? .min, t + 1)
            case "lt": range.to = min(range.to ?? .max, t)
            case "le": range.to = min(range.to ?? .max, t + 1)
            case "eq":
                range.from = max(range.from ?? .min, t)
                range.to = min(range.to ?? .max, t + 1)
            default: return false
            }
            return true
        }
        if (p == ["Datastream", "id"] || p == ["Datastream", "@iot.id"]), op == "eq", case .number(let n) = v, n == n.rounded() {
            if let d = range.datastream, d != Int64(n) { range.ids = [] }
            range.datastream = Int64(n)
            return true
        }
        return false
    }

    // MARK: Rendering

    func selfLink(_ kind: SensingKind, _ id: Int64) -> String { "\(root)/\(kind.entitySet)(\(id))" }

    /// The JSON of one row with `$select` and `$expand` applied.
    func render(_ row: STARow, _ options: STAQueryOptions) async throws -> [String: JSONValue] {
        var out = [String: JSONValue]()
        let chosen: Set<String>? = options.select.map { Set($0) }
        func wanted(_ name: String) -> Bool { chosen == nil || chosen!.contains(name) }
        if wanted("@iot.id") || wanted("id") { out["@iot.id"] = .integer(row.id) }
        if chosen == nil || chosen!.contains("@iot.selfLink") { out["@iot.selfLink"] = .string(selfLink(row.kind, row.id)) }
        for name in STAProperties.of[row.kind] ?? [] where wanted(name) {
            if let v = row.json[name] { out[name] = v } else if row.kind == .observation, name == "resultTime" { out[name] = .null }
        }
        for (name, _) in SensingNavigation.properties(of: row.kind) where chosen == nil || chosen!.contains(name) {
            if row.kind == .observation, name == "FeatureOfInterest", row.toOne[name] == nil { continue }
            out["\(name)@iot.navigationLink"] = .string("\(selfLink(row.kind, row.id))/\(name)")
        }
        for item in options.expand {
            let name = item.path[0]
            guard let (target, many) = SensingNavigation.properties(of: row.kind)[name] else {
                throw Problem(.invalidParameter, "parameter '$expand': \(row.kind.rawValue) has no navigation property '\(name)'", parameter: "$expand")
            }
            var nested = item.options
            if item.path.count > 1 {
                let rest = STAExpand(path: Array(item.path.dropFirst()), options: item.options)
                nested = STAQueryOptions()
                nested.expand = [rest]
            }
            if many {
                let src = try await source(from: row.kind, row.id, name)
                let (rows, more, count) = try await select(target, src, nested)
                var values = [JSONValue]()
                for r in rows { values.append(.object(try await render(r, nested))) }
                out[name] = .array(values)
                if let count { out["\(name)@iot.count"] = .integer(Int64(count)) }
                if more {
                    let query = Self.queryString(nested, skip: nested.skip + rows.count)
                    out["\(name)@iot.nextLink"] = .string("\(selfLink(row.kind, row.id))/\(name)\(query)")
                }
            } else if let t = row.toOne[name], let r = try await self.row(target, t) {
                out[name] = .object(try await render(r, nested))
            }
        }
        return out
    }

    /// The query string that asks for the page after this one.
    static func queryString(_ o: STAQueryOptions, skip: Int, original: QueryParameters? = nil) -> String {
        if let original { return original.encoded(replacing: ["$skip": String(skip), "$top": String(o.pageSize)]) }
        let kept = o.given.filter { $0.0 != "$top" && $0.0 != "$skip" } + [("$top", String(o.pageSize)), ("$skip", String(skip))]
        return "?" + kept.map { QueryParameters.escape($0.0) + "=" + QueryParameters.escape($0.1) }.joined(separator: "&")
    }
}

/// Navigation targets `$filter` and `$orderby` paths reach (`Datastream/Thing/name`), loaded
/// before evaluating, so the evaluator itself needs no store access.
final class STARowCache: @unchecked Sendable {
    let reader: STAReader
    private var rows = [SensingKind: [Int64: STARow]]()

    init(reader: STAReader) { self.reader = reader }

    func preload(_ start: [STARow], paths: [[String]]) async throws {
        for path in paths {
            var current = start
            for name in path.dropLast() {
                guard let kind = current.first?.kind, let (target, many) = SensingNavigation.properties(of: kind)[name] else { break }
                guard !many else {
                    throw Problem(.invalidFilter, "parameter '$filter': '\(path.joined(separator: "/"))' crosses the to-many navigation property \(name)",
                                  parameter: "$filter")
                }
                let ids = Array(Set(current.compactMap { $0.toOne[name] })).filter { rows[target]?[$0] == nil }
                if !ids.isEmpty {
                    let loaded: [STARow]
                    if target == .observation {
                        loaded = try await reader.store.observations(ObservationRange(ids: ids, limit: ids.count)).map(STARow.init)
                    } else {
                        loaded = try await reader.store.sensingEntities(target, ids: ids).map(STARow.init)
                    }
                    for r in loaded { rows[target, default: [:]][r.id] = r }
                }
                current = Set(current.compactMap { $0.toOne[name] }).compactMap { rows[target]?[$0] }
            }
        }
    }

    func value(_ row: STARow, _ path: [String]) throws -> SensingValue {
        guard let head = path.first else { return .null }
        if path.count == 1, head == "id" || head == "@iot.id" { return .number(Double(row.id)) }
        if let t = row.toOne[head], let nav = SensingNavigation.properties(of: row.kind)[head], !nav.1 {
            guard let next = rows[nav.0]?[t] else { return .null }
            return try value(next, Array(path.dropFirst()))
        }
        var v = row.json[head]
        for name in path.dropFirst() { v = v?.objectValue?[name] }
        return SensingFilterEvaluator.value(v)
    }
}
