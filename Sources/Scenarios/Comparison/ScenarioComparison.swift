import Flood
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The per-object differences between two finished scenarios, `a` (the reference) and `b`,
/// computed from the result layers each run wrote: for a flood scenario the depth on every road
/// (`_roads`), the buildings whose ground floor floods (`_buildings`) and the emergency resources
/// the flood cuts off (`_cutoff`); for a signal scenario the control delay per intersection
/// (`_intersections`); for a parking scenario the search time per lot (`_parking`).
///
/// Each changed object is one feature of the diff layer (`kind`, `object_id`, `a`, `b`,
/// `difference`, `change`); the summary table has one row per measure with both values and the
/// difference b − a.
public struct ScenarioComparison: Sendable {
    /// One row of the summary table.
    public struct Row: Sendable, Equatable {
        public var measure: String
        public var unit: String
        public var a: Double
        public var b: Double
        public var difference: Double { b - a }

        public var json: JSONValue {
            func r(_ v: Double) -> JSONValue { .number((v * 1000).rounded() / 1000) }
            return ["measure": .string(measure), "unit": .string(unit), "a": r(a), "b": r(b), "difference": r(difference)]
        }
    }

    /// Depth change on a road below this (m) counts as unchanged.
    public static let depthTolerance = 0.01
    /// A road is flooded above this depth (m; the road rule of flood.md §1.1).
    public static let roadThreshold = FloodResultLayers.roadThreshold

    public var a: Scenario
    public var b: Scenario
    /// The diff layer's features.
    public var features: [Feature] = []
    public var rows: [Row] = []
    /// Count of changed objects per `kind/change`, e.g. `road/no longer flooded`.
    public var changeCounts: [String: Int] = [:]
    /// The conditions the runs differ in (`ScenarioRunConditions`): empty unless the caller
    /// compared them anyway, and then the table is not the plan's effect and says so.
    public var conditionDifferences: [ScenarioRunConditions.Difference] = []

    /// The diff layer id of a pair: `diff_<a>_<b>` (ids with `_`), each id cut to 20 characters when both do not fit in 48.
    public static func layerID(a: Scenario, b: Scenario) -> String {
        let plain = "diff_\(a.layerStem.dropFirst(9))_\(b.layerStem.dropFirst(9))"
        if LayerDefinition.isSafeIdentifier(plain) { return plain }
        // Scenario ids are at most 25 characters, so the two ids, each shortened, still name the pair.
        return "diff_\(a.layerStem.dropFirst(9).prefix(20))_\(b.layerStem.dropFirst(9).prefix(20))"

    }

    /// Checks that `a` and `b` compare: both finished, of one kind and one district, and run
    /// under the same conditions (`ScenarioRunConditions`) unless `acceptingDifferentConditions`.
    /// - Returns: the conditions they differ in (empty unless accepted).
    /// - Throws: `ScenarioError` `.scenarioNotFinished` naming `a` or `b` for a scenario without
    ///   a finished run, `.invalidScenario` naming `b` for scenarios of another kind or district,
    ///   or run under other conditions (naming each, with both values).
    public static func check(_ a: Scenario, _ b: Scenario, acceptingDifferentConditions: Bool = false) throws -> [ScenarioRunConditions.Difference] {
        for (field, s) in [("a", a), ("b", b)] where s.status != .successful {
            throw ScenarioError(.scenarioNotFinished,
                                "scenario '\(s.id)' has no finished run (status \(s.status.rawValue)): run it first (POST /scenarios/\(s.id)/run)", field: field)
        }
        guard a.kind == b.kind else {
            throw ScenarioError(.invalidScenario, "scenario '\(b.id)' is a \(b.kind) scenario and '\(a.id)' a \(a.kind) one: only scenarios of one kind compare", field: "b")
        }
        guard a.district == b.district else {
            throw ScenarioError(.invalidScenario, "scenario '\(b.id)' covers district \(b.district) and '\(a.id)' district \(a.district): only scenarios of one district compare",
                                field: "b")
        }
        let differences = ScenarioRunConditions.differences(a, b)
        if !differences.isEmpty && !acceptingDifferentConditions {
            throw ScenarioError(.invalidScenario,
                                "scenario '\(b.id)' ran under other conditions than '\(a.id)': \(differences.map(\.text).joined(separator: ", ")). "
                                + "A difference between runs of other storms, resolutions or times is not the effect of the plan: run both under the same conditions, "
                                + "or compare anyway with acceptDifferentConditions (the result then lists these differences and is marked not comparable)",
                                field: "b")
        }
        return differences
    }

    /// Compares the result layers of `a` and `b` as `caller` reads them (after `check`).
    /// - Parameter acceptingDifferentConditions: compare runs of other conditions anyway; the
    ///   summary then lists them (`conditionsDiffer`) and says the table is not the plan's effect.
    /// - Throws: as `check`.
    public static func compare(_ a: Scenario, _ b: Scenario, store: any FeatureStore, by caller: Caller,
                               acceptingDifferentConditions: Bool = false) async throws -> ScenarioComparison {
        let differences = try check(a, b, acceptingDifferentConditions: acceptingDifferentConditions)
        var c = ScenarioComparison(a: a, b: b)
        c.conditionDifferences = differences
        switch a.kind {
        case "signal":
            try await c.compareIntersections(store: store, by: caller)
        case "parking":
            try await c.compareParking(store: store, by: caller)
        default:
            try await c.compareRoads(store: store, by: caller)
            try await c.compareSets(kind: "building", suffix: "buildings", measure: "flooded buildings", value: "water_above_floor_m", store: store, by: caller)
            try await c.compareSets(kind: "resource", suffix: "cutoff", measure: "cut-off emergency resources", value: "road_max_depth_m",
                                    only: { $0.properties["kind"]?.stringValue == "resource" }, store: store, by: caller)
        }
        return c
    }

    static func features(_ layer: String, store: any FeatureStore, by caller: Caller) async throws -> [String: Feature] {
        guard try await store.layerDefinition(layer, for: caller) != nil else {
            throw ScenarioError(.missingLayer, "result layer '\(layer)' is missing or not readable by the caller")
        }
        var out: [String: Feature] = [:]
        for try await f in store.stream(layer: layer, FeatureQuery(limit: 5000), by: caller) {
            out[f.id.map { "\($0)" } ?? ""] = f
        }
        return out
    }

    mutating func add(kind: String, id: String, geometry: Geometry?, a: Double?, b: Double?, change: String, name: String) {
        func v(_ x: Double?) -> JSONValue { x.map { .number(($0 * 1000).rounded() / 1000) } ?? .null }
        features.append(Feature(id: .string("\(kind)/\(id)"), geometry: geometry, properties: [
            "kind": .string(kind), "object_id": .string(id), "name": .string(name), "a": v(a), "b": v(b),
            "difference": (a != nil || b != nil) ? v((b ?? 0) - (a ?? 0)) : .null, "change": .string(change),
        ]))
        changeCounts["\(kind)/\(change)", default: 0] += 1
    }

    /// Road depth: every road of either run; flooded above `roadThreshold`.
    mutating func compareRoads(store: any FeatureStore, by caller: Caller) async throws {
        let ra = try await Self.features(a.layerStem + "_roads", store: store, by: caller)
        let rb = try await Self.features(b.layerStem + "_roads", store: store, by: caller)
        func depth(_ f: Feature?) -> Double? { f?.properties["max_depth_m"]?.doubleValue }
        var floodedA = 0.0, floodedB = 0.0, kmA = 0.0, kmB = 0.0
        for id in Set(ra.keys).union(rb.keys).sorted() {
            let fa = ra[id], fb = rb[id]
            let da = depth(fa), db = depth(fb)
            let wetA = (da ?? 0) > Self.roadThreshold, wetB = (db ?? 0) > Self.roadThreshold
            let km = try (fb ?? fa)?.geometry.map { try Self.lengthKilometres($0) } ?? 0
            if wetA { floodedA += 1; kmA += km }
            if wetB { floodedB += 1; kmB += km }
            let change: String
            switch (wetA, wetB) {
            case (false, true): change = "newly flooded"
            case (true, false): change = "no longer flooded"
            default:
                let d = (db ?? 0) - (da ?? 0)
                guard abs(d) >= Self.depthTolerance else { continue }
                change = d > 0 ? "deeper" : "shallower"
            }
            add(kind: "road", id: id, geometry: (fb ?? fa)?.geometry, a: da, b: db, change: change,
                name: (fb ?? fa)?.properties["name"]?.stringValue ?? "")
        }
        rows.append(Row(measure: "flooded roads (> 0.15 m)", unit: "roads", a: floodedA, b: floodedB))
        rows.append(Row(measure: "flooded road length", unit: "km", a: kmA, b: kmB))
        let maxA = ra.values.compactMap(depth).max() ?? 0, maxB = rb.values.compactMap(depth).max() ?? 0
        rows.append(Row(measure: "deepest water on a road", unit: "m", a: maxA, b: maxB))
    }

    /// A result layer listing the objects that are hit (flooded buildings, cut-off resources):
    /// hit in one run and not the other, or hit in both with a different `value`.
    mutating func compareSets(kind: String, suffix: String, measure: String, value: String,
                              only keep: (Feature) -> Bool = { _ in true }, store: any FeatureStore, by caller: Caller) async throws {
        let sa = try await Self.features("\(a.layerStem)_\(suffix)", store: store, by: caller).filter { keep($0.value) }
        let sb = try await Self.features("\(b.layerStem)_\(suffix)", store: store, by: caller).filter { keep($0.value) }
        for id in Set(sa.keys).union(sb.keys).sorted() {
            let fa = sa[id], fb = sb[id]
            let va = fa?.properties[value]?.doubleValue, vb = fb?.properties[value]?.doubleValue
            let change: String
            switch (fa != nil, fb != nil) {
            case (false, true): change = kind == "building" ? "newly flooded" : "newly cut off"
            case (true, false): change = kind == "building" ? "no longer flooded" : "no longer cut off"
            default:
                guard let va, let vb, abs(vb - va) >= Self.depthTolerance else { continue }
                change = vb > va ? "deeper" : "shallower"
            }
            add(kind: kind, id: id, geometry: (fb ?? fa)?.geometry, a: va, b: vb, change: change,
                name: (fb ?? fa)?.properties["name"]?.stringValue ?? "")
        }
        rows.append(Row(measure: measure, unit: kind == "building" ? "buildings" : "resources", a: Double(sa.count), b: Double(sb.count)))
    }

    /// Objects of a per-object result layer (`_intersections`, `_parking`) whose `value` differs
    /// by at least `tolerance`, or that one run has and the other not (`added`, `removed`).
    /// - Returns: both runs' features by id, for the summary rows.
    mutating func compareValues(kind: String, suffix: String, value: String, tolerance: Double,
                                changes: (more: String, less: String, added: String, removed: String),
                                store: any FeatureStore, by caller: Caller) async throws -> (a: [String: Feature], b: [String: Feature]) {
        let fa = try await Self.features("\(a.layerStem)_\(suffix)", store: store, by: caller)
        let fb = try await Self.features("\(b.layerStem)_\(suffix)", store: store, by: caller)
        for id in Set(fa.keys).union(fb.keys).sorted() {
            let va = fa[id]?.properties[value]?.doubleValue, vb = fb[id]?.properties[value]?.doubleValue
            let change: String
            switch (fa[id] != nil, fb[id] != nil) {
            case (false, true): change = changes.added
            case (true, false): change = changes.removed
            default:
                guard let va, let vb, abs(vb - va) >= tolerance else { continue }
                change = vb > va ? changes.more : changes.less
            }
            let f = fb[id] ?? fa[id]
            add(kind: kind, id: id, geometry: f?.geometry, a: va, b: vb, change: change, name: f?.properties["name"]?.stringValue ?? "")
        }
        return (fa, fb)
    }

    /// A delay below this (s/veh) counts as unchanged at an intersection.
    public static let delayTolerance = 0.5
    /// A mean search time below this (s) counts as unchanged at a lot.
    public static let searchTolerance = 1.0

    /// Delay per intersection (`_intersections`: HCM 2000 control delay, s/veh) and the
    /// flow-weighted mean, vehicle-hours of delay and intersections at LOS E or F.
    mutating func compareIntersections(store: any FeatureStore, by caller: Caller) async throws {
        let (fa, fb) = try await compareValues(kind: "intersection", suffix: "intersections", value: "delay_s", tolerance: Self.delayTolerance,
                                               changes: ("more delay", "less delay", "added", "removed"), store: store, by: caller)
        func totals(_ fs: [String: Feature]) -> (mean: Double, hours: Double, poor: Double) {
            var flow = 0.0, delayFlow = 0.0, poor = 0.0
            for (_, f) in fs.sorted(by: { $0.key < $1.key }) {  // one order: the same sums on every run
                let q = f.properties["flow_veh_h"]?.doubleValue ?? 0, d = f.properties["delay_s"]?.doubleValue ?? 0
                flow += q
                delayFlow += q * d
                if ["E", "F"].contains(f.properties["los"]?.stringValue ?? "") { poor += 1 }
            }
            return (flow > 0 ? delayFlow / flow : 0, delayFlow / 3600, poor)
        }
        let ta = totals(fa), tb = totals(fb)
        rows.append(Row(measure: "mean control delay (flow-weighted)", unit: "s/veh", a: ta.mean, b: tb.mean))
        rows.append(Row(measure: "delay in the period's design hour", unit: "veh·h", a: ta.hours, b: tb.hours))
        rows.append(Row(measure: "intersections at LOS E or F", unit: "intersections", a: ta.poor, b: tb.poor))
    }

    /// Parking search time per lot (`_parking`: mean search time of the drivers who parked there),
    /// the mean over all parked drivers, and the drivers parked and turned away.
    mutating func compareParking(store: any FeatureStore, by caller: Caller) async throws {
        let (fa, fb) = try await compareValues(kind: "lot", suffix: "parking", value: "mean_search_s", tolerance: Self.searchTolerance,
                                               changes: ("longer search", "shorter search", "opened", "closed"), store: store, by: caller)
        func totals(_ fs: [String: Feature]) -> (mean: Double, parked: Double) {
            var parked = 0.0, search = 0.0
            for (_, f) in fs.sorted(by: { $0.key < $1.key }) {  // one order: the same sums on every run
                let n = f.properties["parked"]?.doubleValue ?? 0
                parked += n
                search += n * (f.properties["mean_search_s"]?.doubleValue ?? 0)
            }
            return (parked > 0 ? search / parked : 0, parked)
        }
        let ta = totals(fa), tb = totals(fb)
        rows.append(Row(measure: "mean parking search time", unit: "s", a: ta.mean, b: tb.mean))
        rows.append(Row(measure: "drivers parked", unit: "drivers", a: ta.parked, b: tb.parked))
        func rejected(_ s: Scenario) -> Double { s.result?.objectValue?["summary"]?.objectValue?["rejected"]?.doubleValue ?? 0 }
        rows.append(Row(measure: "drivers turned away", unit: "drivers", a: rejected(a), b: rejected(b)))
    }

    /// Geodesic length of a lon/lat line in km.
    static func lengthKilometres(_ g: Geometry) throws -> Double {
        try g.geodesicLength() / 1000
    }

    /// The summary document: both scenarios, the table, the changed-object counts, and whether
    /// the runs share their conditions (`sameConditions`); when they do not, the conditions they
    /// differ in (`conditionsDiffer`) and a `note` that the table is not the plan's effect.
    public var summary: JSONValue {
        var o: [String: JSONValue] = [
            "a": .string(a.id), "b": .string(b.id), "kind": .string(a.kind), "district": .string(a.district),
            "table": .array(rows.map(\.json)),
            "changedObjects": .object(changeCounts.mapValues { .integer(Int64($0)) }),
            "sameConditions": .bool(conditionDifferences.isEmpty),
        ]
        if !conditionDifferences.isEmpty {
            o["conditionsDiffer"] = .array(conditionDifferences.map(\.json))
            o["note"] = .string("NOT COMPARABLE as a plan's effect: the runs differ in "
                                + conditionDifferences.map(\.condition).joined(separator: ", ") + "; the differences are those of the conditions as much as of the plan")
        }
        return .object(o)
    }

    /// The diff layer's definition: a what-if of both scenarios (`LayerConditions`, the title
    /// marked), with `sharing` (`ScenarioCatalog.sharing(from:)`: shared only while both are published).
    public func definition(id: String, sharing: SharingPolicy = ScenarioCatalog.draftSharing) throws -> LayerDefinition {
        let conditions = LayerConditions(kind: .scenario, scenarios: [a.id, b.id])
        let title = conditions.marked(LayerTitle(
            zh: "情景对比：\(b.title) 相对 \(a.title)" + (conditionDifferences.isEmpty ? "" : "（运行条件不同，非方案效果）"),
            en: "Scenario comparison: \(b.id) against \(a.id)" + (conditionDifferences.isEmpty ? "" : " (runs under different conditions: not the plan's effect)")))
        return try LayerDefinition(json: [
            "id": .string(id), "title": ["zh": .string(title.zh), "en": .string(title.en)],
            "category": "公共专题", "owner": .string(ScenarioCatalog.owner), "format": "vector", "updateFrequency": "per comparison",
            "sharing": ["type": .string(sharing.type.rawValue), "method": .string(sharing.method), "requirements": .string(sharing.requirements)],
            "conditions": conditions.json,
            "negativeList": false, "geometryType": "Geometry", "storageCRS": "EPSG:4490",
            "schema": [
                "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "properties": [
                    "kind": ["type": "string", "title": "对象类型", "enum": ["road", "building", "resource", "intersection", "lot"]],
                    "object_id": ["type": "string", "title": "对象编号"], "name": ["type": ["string", "null"], "title": "名称"],
                    "a": ["type": ["number", "null"], "title": "情景A值"], "b": ["type": ["number", "null"], "title": "情景B值"],
                    "difference": ["type": ["number", "null"], "title": "差值 B−A"], "change": ["type": "string", "title": "变化"],
                ],
            ],
            "sensitive": [],
        ])
    }

    /// Writes the diff layer (`layerID(a:b:)`) in one transaction and returns its id.
    public func write(to store: any FeatureStore, by caller: Caller) async throws -> String {
        let id = Self.layerID(a: a, b: b)
        try await store.createLayer(try definition(id: id, sharing: try await ScenarioCatalog(store: store).sharing(from: [a.id, b.id])))
        try await store.replace(layer: id, with: features, by: caller, at: nil)
        return id
    }
}
