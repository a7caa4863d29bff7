import Foundation
import GeoCore
import Testing
import TwinStore

/// Property-based agreement: a seeded random history of writes applied to SpatiaLite and
/// PostGIS, then random queries, counts, as-of reads, diffs, histories, the change feed and
/// the audit log must give identical results (ids, properties and geometries exactly).
@Suite("SpatiaLite and PostGIS agree on random writes and queries", .dropsTestSchemas)
struct BackendAgreementTests {
    static let seeds: [UInt64] = Array(1...20)

    static let parcelsJSON = """
        {"id": "parcels", "title": {"zh": "地块", "en": "Parcels"}, "category": "规划管控",
         "owner": "自然资源局", "format": "vector", "updateFrequency": "daily",
         "sharing": {"type": "open", "method": "api", "requirements": "无"},
         "geometryType": "Geometry", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {
            "name": {"type": "string"}, "count": {"type": ["integer", "null"]}, "value": {"type": ["number", "null"]},
            "flag": {"type": "boolean"}, "when": {"type": "string", "format": "date-time"},
            "contact": {"type": "string"}, "keeper": {"type": "string"}},
           "required": ["name"]},
         "sensitive": [{"attribute": "contact", "mask": "partial", "visibleTo": []},
                       {"attribute": "keeper", "mask": "redact", "visibleTo": []}]}
        """

    static let editor = Caller.department(name: "自然资源局", role: .editor, user: "王工")

    @Test(arguments: seeds)
    func randomHistoriesReadTheSameFromBothBackends(seed: UInt64) async throws {
        guard StoreBackend.available.contains(.postGIS) else { return }
        let def = try Fixtures.definition(Self.parcelsJSON)
        let a = try await StoreBackend.spatiaLite.makeStore(layers: [def])
        let b = try await StoreBackend.postGIS.makeStore(layers: [def])
        var g = Generator(seed: seed)
        var live = [String]()
        var instants = [Fixtures.t0.addingTimeInterval(-1)]
        var nextID = 0

        // Writes: each batch at a later instant; some batches are meant to fail.
        for step in 0..<12 {
            let at = Fixtures.t0.addingTimeInterval(Double(step) * 3_600)
            instants += [at, at.addingTimeInterval(1_800)]
            let op: String
            let ra: Result<Void, StoreError>, rb: Result<Void, StoreError>
            switch g.int(0..<10) {
            case 0..<4:
                var fs = (0..<g.int(1..<6)).map { _ -> Feature in nextID += 1; return g.feature("p\(nextID)") }
                if !live.isEmpty, g.int(0..<5) == 0 { fs.append(g.feature(g.pick(live))) }  // a duplicate: the batch fails
                op = "insert \(fs.map { $0.id?.description ?? "" })"
                ra = await run { try await a.insert(layer: "parcels", features: fs, by: Self.editor, at: at) }
                rb = await run { try await b.insert(layer: "parcels", features: fs, by: Self.editor, at: at) }
            case 4..<8:
                var fs = [Feature]()
                for _ in 0..<g.int(1..<5) {
                    if !live.isEmpty, g.bool() {
                        fs.append(g.feature(g.pick(live)))
                    } else {
                        nextID += 1
                        fs.append(g.feature("p\(nextID)"))
                    }
                }
                if let first = fs.first, g.int(0..<3) == 0 { fs.append(first) }  // unchanged repeat in one batch
                op = "upsert \(fs.map { $0.id?.description ?? "" })"
                ra = await run { try await a.upsert(layer: "parcels", features: fs, by: Self.editor, at: at) }
                rb = await run { try await b.upsert(layer: "parcels", features: fs, by: Self.editor, at: at) }
            default:
                var ids = live.isEmpty ? [] : (0..<g.int(1..<3)).map { _ in g.pick(live) }
                if g.int(0..<5) == 0 { ids.append("missing") }
                op = "delete \(ids)"
                ra = await run { try await a.delete(layer: "parcels", ids: ids, by: Self.editor, at: at) }
                rb = await run { try await b.delete(layer: "parcels", ids: ids, by: Self.editor, at: at) }
            }
            #expect(Self.code(ra) == Self.code(rb), "seed \(seed) step \(step): \(op): \(ra) vs \(rb)")
            live = Fixtures.ids(try await Fixtures.allPages(a, "parcels", FeatureQuery(limit: 1000), by: .admin))
        }

        // Reads.
        for q in 0..<25 {
            let caller: Caller = g.bool() ? .admin : .anonymous
            let query = g.query(asOf: g.int(0..<3) == 0 ? g.pick(instants) : nil)
            let what = "seed \(seed) query \(q) \(caller): \(query)"
            let fa = await run { try await Fixtures.allPages(a, "parcels", query, by: caller) }
            let fb = await run { try await Fixtures.allPages(b, "parcels", query, by: caller) }
            #expect(Self.same(fa, fb), "\(what)")
            if case .success(let xs) = fa, case .success(let ys) = fb, xs != ys {
                Issue.record("\(what)\n spatialite: \(xs.map { "\($0.id?.description ?? "") \($0.properties)" })\n postgis: \(ys.map { "\($0.id?.description ?? "") \($0.properties)" })")
            }
            let ca = await run { try await a.count(layer: "parcels", query, by: caller) }
            let cb = await run { try await b.count(layer: "parcels", query, by: caller) }
            #expect(Self.same(ca, cb), "count: \(what)")
        }
        for _ in 0..<6 {
            let (from, to) = (g.pick(instants), g.pick(instants))
            let caller: Caller = g.bool() ? .admin : .anonymous
            let da = try await a.diff(layer: "parcels", from: from, to: to, by: caller)
            let db = try await b.diff(layer: "parcels", from: from, to: to, by: caller)
            #expect(da == db, "seed \(seed) diff \(from)…\(to) \(caller)")
        }
        for id in ["p1", "p2", "p3", "missing"] + live.prefix(3) {
            for caller in [Caller.admin, .anonymous] {
                let ha = try await a.history(layer: "parcels", featureID: id, by: caller)
                let hb = try await b.history(layer: "parcels", featureID: id, by: caller)
                #expect(ha == hb, "seed \(seed) history \(id) \(caller)")
                let ca = try await a.feature(layer: "parcels", id: id, by: caller)
                let cb = try await b.feature(layer: "parcels", id: id, by: caller)
                #expect(ca == cb, "seed \(seed) feature \(id) \(caller)")
            }
        }
        #expect(try await a.changes(since: 0, limit: 10_000, by: .admin) == b.changes(since: 0, limit: 10_000, by: .admin),
                "seed \(seed) change feed")
        #expect(try await a.auditLog(layer: "parcels", after: 0, limit: 10_000, by: .admin)
                == b.auditLog(layer: "parcels", after: 0, limit: 10_000, by: .admin), "seed \(seed) audit log")
        let sa = try #require(a as? SpatiaLiteStore), sb = try #require(b as? PostGISStore)
        #expect(try await sa.verifyAuditChain(by: .admin))
        #expect(try await sb.verifyAuditChain(by: .admin))
        try await sb.dropSchema()
    }

    private func run<T>(_ body: () async throws -> T) async -> Result<T, StoreError> {
        do { return .success(try await body()) } catch let e as StoreError { return .failure(e) } catch {
            return .failure(StoreError(.backend, "\(error)"))
        }
    }

    static func code<T>(_ r: Result<T, StoreError>) -> String {
        switch r {
        case .success: "ok"
        case .failure(let e): e.code.rawValue + " " + (e.feature ?? "") + " " + (e.field ?? "")
        }
    }

    static func same<T: Equatable>(_ a: Result<T, StoreError>, _ b: Result<T, StoreError>) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x == y
        case (.failure(let x), .failure(let y)): x.code == y.code && x.field == y.field
        default: false
        }
    }
}

/// Random histories from GeoCore's `SplitMix64`: the same seed gives the same history on every platform.
struct Generator {
    private var random: SplitMix64
    /// Seeds a million steps apart, so their sequences never overlap within a test.
    init(seed: UInt64) { random = SplitMix64(seed: seed &* 1_000_003 &* 0x9E37_79B9_7F4A_7C15) }

    mutating func next() -> UInt64 { random.next() }

    mutating func int(_ r: Range<Int>) -> Int { r.lowerBound + Int(next() % UInt64(r.count)) }
    mutating func bool() -> Bool { next() & 1 == 1 }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func pick<T>(_ xs: [T]) -> T { xs[int(0..<xs.count)] }

    static let names = ["东湖", "沙湖公园", "Wuhan Park", "wuhan park", "WUHAN", "Ärzte", "ärzte", "straße", "🏞️ 湿地",
                        "a_b", "a%b", "O'Brien", "\"quoted\"", "tab\tline", "", "z", "Z", "黄鹤楼 Yellow Crane"]

    /// A lon/lat in Hubei (108.4–116.1 E, 29.0–33.3 N) with full double precision.
    mutating func position() -> Position { Position(108.4 + unit() * 7.7, 29.0 + unit() * 4.3) }

    mutating func geometry() -> Geometry {
        let p = position()
        switch int(0..<3) {
        case 0: return .point(x: p.x, y: p.y)
        case 1: return .lineString((0..<int(2..<5)).map { i in Position(p.x + Double(i) * 0.01 * unit(), p.y + 0.01 * unit()) })
        default:
            let w = 0.001 + unit() * 0.05, h = 0.001 + unit() * 0.05
            return .polygon(Envelope(minX: p.x, minY: p.y, maxX: p.x + w, maxY: p.y + h).polygon)
        }
    }

    mutating func feature(_ id: String) -> Feature {
        var p: [String: JSONValue] = ["name": .string(pick(Self.names))]
        switch int(0..<4) {
        case 0: break
        case 1: p["count"] = .null
        default: p["count"] = .integer(Int64(int(-5..<50)))
        }
        switch int(0..<4) {
        case 0: p["value"] = .null
        case 1: p["value"] = .number(Double(int(-1000..<1000)) / 8)
        default: p["value"] = .number(unit() * 1e6 - 5e5)
        }
        if bool() { p["flag"] = .bool(bool()) }
        if bool() { p["when"] = .string(String(format: "2024-%02d-%02dT%02d:00:00Z", int(1..<13), int(1..<29), int(0..<24))) }
        if bool() { p["contact"] = .string("13\(int(100_000_000..<999_999_999))") }
        if bool() { p["keeper"] = .string(pick(["张三", "李四", "Ann"])) }
        return Feature(id: .string(id), geometry: int(0..<10) == 0 ? nil : geometry(), properties: p)
    }

    mutating func box() -> Envelope {
        let p = position()
        return Envelope(minX: p.x - unit() * 3, minY: p.y - unit() * 2, maxX: p.x + unit() * 3, maxY: p.y + unit() * 2)
    }

    mutating func scalar(_ property: String) -> ScalarExpression {
        switch property {
        case "count": .literal(.integer(Int64(int(-5..<50))))
        case "value": .literal(.number(Double(int(-1000..<1000)) / 8))
        case "flag": .literal(.bool(bool()))
        default: .literal(.string(pick(Self.names)))
        }
    }

    mutating func filter(depth: Int = 0) -> FilterExpression {
        let properties = ["name", "count", "value", "flag"]
        switch int(0..<(depth < 2 ? 11 : 8)) {
        case 0:
            let p = pick(properties)
            return .comparison(pick(ComparisonOperator.allCases), .property(p), scalar(p))
        case 1:
            let p = pick(["count", "value"])
            return .between(.property(p), low: scalar(p), high: scalar(p))
        case 2:
            let p = pick(properties)
            return .in(.property(p), (0..<int(0..<4)).map { _ in scalar(p) })
        case 3: return .isNull(.property(pick(properties + ["when", "missing"])))
        case 4: return .like("name", pattern: pick(["%湖%", "Wuhan%", "wuhan%", "%park", "a\\_b", "a\\%b", "_", "%", "ä%", "Ä%", "%Z%"]),
                             caseInsensitive: bool())
        case 5:
            let box = self.box()
            let shape: Geometry = bool() ? .polygon(box.polygon) : .point(x: box.minX, y: box.minY)
            return .spatial(pick([.intersects, .within, .disjoint, .contains]), shape)
        case 6:
            return .comparison(pick([.greater, .less]), .arithmetic(pick(ArithmeticOperator.allCases), "count", .literal(.integer(Int64(int(-2..<3))))),
                               .literal(.number(Double(int(-10..<30)))))
        case 7:
            let d = Fixtures.date(String(format: "2024-%02d-15T12:00:00Z", int(1..<13)))
            return .temporal(pick(TemporalPredicate.allCases), property: "when",
                             pick([.instant(d), .interval(start: d, end: d.addingTimeInterval(86_400 * 60)), .interval(start: nil, end: d)]))
        case 8: return .and((0..<int(0..<3)).map { _ in filter(depth: depth + 1) })
        case 9: return .or((0..<int(0..<3)).map { _ in filter(depth: depth + 1) })
        default: return .not(filter(depth: depth + 1))
        }
    }

    mutating func query(asOf: Date?) -> FeatureQuery {
        var q = FeatureQuery(asOf: asOf, limit: int(1..<8))
        if int(0..<3) == 0 { q.bbox = BoundingBox(box()) }
        if int(0..<4) != 0 { q.filter = filter() }
        q.sortBy = (0..<int(0..<3)).map { _ in SortKey(pick(["name", "count", "value", "flag", "when"]), ascending: bool()) }
        if int(0..<4) == 0 { q.properties = ["name", "contact"] }
        return q
    }
}
