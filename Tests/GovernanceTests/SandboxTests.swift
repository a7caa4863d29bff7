import Foundation
import GeoCore
@testable import Governance
import QueryLanguage
import TestSupport
import Testing
import TwinStore

/// Issue 54 §6 and issue 78 §1, 2, 19: the sandbox on the district's negative-listed population
/// (实有人口, 公安局's, which other departments may not read row by row) and its masked water
/// accounts: aggregates that equal the sums over the rows, small groups suppressed and the groups
/// that would give them away by subtraction with them, isolating queries refused across every
/// grouping and filter (the disclosure ledger in the store), everything audited.
@Suite("The sandbox's aggregate queries", .serialized)
struct SandboxTests {
    static let civil = Caller.department(name: "民政局", role: .viewer, user: "王分析")
    static let police = Caller.department(name: "公安局", role: .editor)
    static let district = Task { try await GovernanceDistrict.store("sandbox") }
    static let layer = "population_by_address"

    /// Every row of population_by_address, read as the administrator (the reference).
    static func rows(_ store: SpatiaLiteStore) async throws -> [Feature] {
        var out: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(limit: 5000), by: .admin) { out.append(f) }
        return out
    }

    @Test("aggregates by division and grid equal the sums over the rows; groups under k are suppressed, with others until they hold k together; never a row")
    func aggregates() async throws {
        let store = try await Self.district.value.0
        let sandbox = Sandbox(store: store)
        #expect(try await store.layerDefinition(Self.layer, for: Self.civil) == nil)
        let rows = try await Self.rows(store)
        let truth = try await Truth(store: store, rows: rows)
        let residents = rows.compactMap { $0.properties["residents"]?.doubleValue }

        let request = AggregateRequest(measures: [.init(.count), .init(.sum, "residents"), .init(.mean, "elderly")], grouping: .adminDivision(level: nil))
        let byDivision = try await sandbox.aggregate(layer: Self.layer, request, by: Self.civil)
        #expect(byDivision.total.count == rows.count)
        #expect(byDivision.total.values["sum(residents)"] == residents.reduce(0, +))
        #expect(byDivision.groups.count > 1)
        try truth.check(byDivision, k: byDivision.k)

        // 50 m cells: the reference counts each row in its cell of the city's metric CRS.
        let grid = try await sandbox.aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.count), .init(.max, "residents")], grouping: .grid(cellSize: 50)),
                                               by: Self.civil)
        let cells = try truth.cells(rows, size: 50)
        #expect(grid.total.count == rows.count && grid.total.values["max(residents)"] == residents.max())
        #expect(Set(grid.groups.map(\.key)) == Set(cells.keys))
        for g in grid.groups {
            let n = try #require(cells[g.key]?.count)
            if n < grid.k { #expect(g.suppressed && g.suppressedBecause == "fewer than 5 records", "cell \(g.key) holds \(n)") }
            if !g.suppressed { #expect(g.count == n) }
            if case .polygon = g.geometry {} else { Issue.record("cell \(g.key) has no outline") }
        }
        #expect(grid.groups.contains(where: \.suppressed) && grid.groups.contains { !$0.suppressed })
        try truth.check(grid, k: grid.k)
        // Every released figure of both answers, and every difference of two, is about 0 or at least k rows.
        try truth.checkPairs([byDivision, grid], k: grid.k)
    }

    @Test("a filter on the key or a masked attribute, a selection under k, a narrowing difference and a near-complement are refused and audited")
    func refusals() async throws {
        let store = try await Self.district.value.0
        let sandbox = Sandbox(store: store)
        let rows = try await Self.rows(store)
        func refused(_ layer: String, _ request: AggregateRequest, by caller: Caller = Self.civil) async -> StoreError? {
            await #expect(throws: StoreError.self) { try await sandbox.aggregate(layer: layer, request, by: caller) }
        }
        let code = try #require(rows.first?.properties["address_code"]?.stringValue)
        #expect(await refused(Self.layer, AggregateRequest(measures: [.init(.sum, "residents")], filter: "address_code = '\(code)'"))?.code == .forbidden)
        #expect(await refused("water_connections", AggregateRequest(measures: [.init(.count)], filter: "account_holder LIKE '张%'"))?.code == .forbidden)

        // The households at one address point: a box around it selects 1…4 rows.
        let (point, households) = try #require(Truth.buildings(rows).filter { (1...4).contains($0.1) }.min { $0.0.x < $1.0.x })
        let box = Truth.box(around: point)
        let tiny = await refused(Self.layer, AggregateRequest(measures: [.init(.count)], filter: "S_INTERSECTS(geometry, \(box))"))
        #expect(tiny?.code == .forbidden && tiny?.message.contains("fewer than 5") == true)
        // All, then all but those few: the difference would be the few.
        let all = try await sandbox.aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.count)]), by: Self.civil)
        #expect(all.total.count == rows.count)
        let rest = "NOT S_INTERSECTS(geometry, \(box))"
        let narrowed = await refused(Self.layer, AggregateRequest(measures: [.init(.count)], filter: rest))
        #expect(narrowed?.code == .forbidden && narrowed?.message.contains("differs by \(households)") == true)
        // Another department asking the narrowed query alone is refused too: the layer's whole is
        // known to everyone (any department may ask it), so all but a few rows would give the few.
        let other = await refused(Self.layer, AggregateRequest(measures: [.init(.count)], filter: rest), by: .department(name: "卫生健康局", role: .viewer))
        #expect(other?.code == .forbidden && other?.message.contains("the layer's whole") == true)
        #expect(await #expect(throws: StoreError.self) { try await sandbox.aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.count)]), by: .anonymous) }?.code == .unauthenticated)

        // The owner reads every query in the layer's audit log: who, what, answered or refused.
        let acts = try await store.auditLog(layer: Self.layer, after: 0, limit: 100_000, by: Self.police).filter { !$0.kind.changesData }
        let civilActs = acts.filter { $0.department == "民政局" && $0.featureID.contains("S_INTERSECTS") }
        #expect(civilActs.map(\.kind) == [.refused, .refused])
        #expect(acts.contains { $0.department == "卫生健康局" && $0.kind == .refused && $0.featureID == "sandbox: count where \(rest)" })
        #expect(try await store.auditLog(layer: "water_connections", after: 0, limit: 100_000, by: .admin).contains { $0.kind == .refused && $0.department == "民政局" })
    }

    @Test("a differencing pair is refused across groupings and cell sizes, and after a restart (the ledger is in the store)")
    func acrossShapes() async throws {
        let store = try await Self.district.value.0
        let rows = try await Self.rows(store)
        let health = Caller.department(name: "卫生健康局", role: .viewer, user: "差分")
        // A block of the district with a building of 1…4 households inside it.
        let (point, households) = try #require(Truth.buildings(rows).filter { (1...4).contains($0.1) }.max { $0.0.x < $1.0.x })
        let block = Truth.rectangle(point.x - 0.004, point.y - 0.004, point.x + 0.004, point.y + 0.004)
        let with = try await Sandbox(store: store).aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.count), .init(.sum, "residents")],
                                                                                                  filter: "S_INTERSECTS(geometry, \(block))"), by: health)
        #expect((with.total.count ?? 0) > 2 * with.k)
        // The same block without the building, asked as one grid cell of 9,999 m by a server started afresh.
        let without = AggregateRequest(measures: [.init(.count), .init(.sum, "residents")], grouping: .grid(cellSize: 9999),
                                       filter: "S_INTERSECTS(geometry, \(block)) AND NOT S_INTERSECTS(geometry, \(Truth.box(around: point)))")
        let refusal = await #expect(throws: StoreError.self) { try await Sandbox(store: store).aggregate(layer: Self.layer, without, by: health) }
        #expect(refusal?.code == .forbidden && refusal?.message.contains("differs by \(households)") == true)
        // And under a grid of 50 m: the cell holding the building, with and without it, is not given both ways.
        let grid50 = try await Sandbox(store: store).aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.count)], grouping: .grid(cellSize: 50),
                                                                                                    filter: "S_INTERSECTS(geometry, \(block))"), by: health)
        let truth = try await Truth(store: store, rows: rows)
        try truth.checkPairs([with, grid50], k: with.k)
    }

    @Test("a tracker (a small set padded with a large known one) is refused in either order")
    func tracker() async throws {
        let store = try await Self.district.value.0
        let rows = try await Self.rows(store)
        let sandbox = Sandbox(store: store)
        let buildings = Truth.buildings(rows)
        let (point, households) = try #require(buildings.filter { (1...4).contains($0.1) }.sorted { $0.0.x < $1.0.x }.dropFirst(3).first)
        // The padding: the western half of the district, not holding the small building.
        let xs = rows.compactMap { Truth.position($0)?.x }.sorted()
        let middle = xs[xs.count / 2]
        let west = point.x < middle ? Truth.rectangle(middle, 30, 115, 31) : Truth.rectangle(114, 30, middle, 31)
        let padding = "S_INTERSECTS(geometry, \(west))"
        let padded = "S_INTERSECTS(geometry, \(west)) OR S_INTERSECTS(geometry, \(Truth.box(around: point)))"
        for (i, order) in [[padding, padded], [padded, padding]].enumerated() {
            let spy = Caller.department(name: "追踪测试\(i)", role: .viewer)
            let first = try await sandbox.aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.sum, "elderly")], filter: order[0]), by: spy)
            #expect((first.total.count ?? 0) > 100)
            let second = await #expect(throws: StoreError.self) {
                try await sandbox.aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.sum, "elderly")], grouping: .grid(cellSize: 5000), filter: order[1]), by: spy)
            }
            #expect(second?.code == .forbidden && second?.message.contains("differs by \(households)") == true, "order \(i)")
        }
    }

    @Test("10,000 and more random query pairs of one department: no released figure, nor the difference of any two, is about 1…k−1 rows")
    func randomPairs() async throws {
        let store = try await Self.district.value.0
        let rows = try await Self.rows(store)
        let truth = try await Truth(store: store, rows: rows)
        let sandbox = Sandbox(store: store)
        let spy = Caller.department(name: "随机测试局", role: .viewer)
        var rng = SplitMix64(seed: 78)
        let points = rows.compactMap(Truth.position)
        let (minX, maxX) = (points.map(\.x).min()!, points.map(\.x).max()!), (minY, maxY) = (points.map(\.y).min()!, points.map(\.y).max()!)
        func box() -> String {
            let w = (maxX - minX) * rng.uniform(0.05, 0.7), h = (maxY - minY) * rng.uniform(0.05, 0.7)
            let x = rng.uniform(minX - w / 2, maxX - w / 2), y = rng.uniform(minY - h / 2, maxY - h / 2)
            return "S_INTERSECTS(geometry, \(Truth.rectangle(x, y, x + w, y + h)))"
        }
        // Half the queries attack: an earlier answered selection less, or plus, the households of one
        // building (differencing), or all but one building (the complement); the rest explore.
        var answered: [String] = []
        let small = Truth.buildings(rows).filter { (1...4).contains($0.1) }.compactMap { b in points.first { $0.x == b.0.x && $0.y == b.0.y } }
        func building() -> String { "S_INTERSECTS(geometry, \(Truth.box(around: rng.pick(points))))" }
        func filter() -> String? {
            switch rng.integer(0...9) {
            case 0: return nil
            case 1: return box()
            case 2: return "\(box()) AND residents >= \(rng.integer(2...4))"
            case 3: return "NOT \(box())"
            case 4: return rng.chance(0.5) ? "elderly > 0" : "NOT \(building())"
            case 5: return "children = 0 AND \(box())"
            default:
                // A building of 1…4 households inside the earlier selection (to take away) or outside it (to add).
                guard !answered.isEmpty, let earlier = Optional(rng.pick(answered)), let inside = try? Set(truth.selected(earlier).compactMap(Truth.position)) else { return box() }
                let take = rng.chance(0.5)
                let candidates = small.filter { inside.contains($0) == take }
                guard !candidates.isEmpty else { return box() }
                let b = "S_INTERSECTS(geometry, \(Truth.box(around: rng.pick(candidates))))"
                return take ? "(\(earlier)) AND NOT \(b)" : "(\(earlier)) OR \(b)"
            }
        }
        let groupings: [AggregateRequest.Grouping] = [.none, .grid(cellSize: 50), .grid(cellSize: 137), .grid(cellSize: 250), .grid(cellSize: 500),
                                                      .grid(cellSize: 1000), .grid(cellSize: 9999), .adminDivision(level: nil)]
        var answers: [SandboxAnswer] = [], refused = 0
        for _ in 0..<1000 where answers.count < 150 {
            let request = AggregateRequest(measures: [.init(.count), .init(.sum, "residents"), .init(.sum, "elderly")],
                                           grouping: groupings[rng.integer(0...(groupings.count - 1))], filter: filter())
            do {
                answers.append(try await sandbox.aggregate(layer: Self.layer, request, by: spy))
                if let f = request.filter { answered.append(f) }
            } catch let e as StoreError where e.code == .forbidden {
                refused += 1
            }
        }
        #expect(answers.count == 150 && refused > 40, "answered \(answers.count), refused \(refused)")
        for a in answers { try truth.check(a, k: a.k) }
        let figures = try truth.checkPairs(answers, k: answers[0].k)
        #expect(answers.count * (answers.count - 1) / 2 >= 10_000 && figures > 10_000, "\(answers.count) answers, \(figures) pairs of released sets")
    }

    @Test("the fire brigade's pre-plan gets households and people per building as the owner granted, under k suppressed, in the same ledger")
    func processGrant() async throws {
        let store = try await Self.district.value.0
        let rows = try await Self.rows(store)
        let sandbox = Sandbox(store: store)
        let brigade = Caller.department(name: "消防救援大队", role: .viewer, user: "指挥中心")
        let measures: [AggregateRequest.Measure] = [.init(.count), .init(.sum, "residents"), .init(.sum, "elderly"), .init(.sum, "children")]
        var byBuilding: [String: [Feature]] = [:]
        for try await b in store.stream(layer: "buildings", FeatureQuery(limit: 5000), by: .admin) {
            guard let code = b.properties["address_code"]?.stringValue, !code.isEmpty else { continue }
            byBuilding[code] = rows.filter { ($0.properties["address_code"]?.stringValue ?? "").hasPrefix(code) }
        }
        func households(_ code: String) -> FilterExpression { .like(.property("address_code"), pattern: code + "%", caseInsensitive: false) }
        // A building of at least 8 households, some of one resident: the brigade's query of the building
        // less those (by an attribute) would differ from the pre-plan's figures by 1…4 households.
        let big = try #require(byBuilding.filter { b in
            let singles = b.value.filter { ($0.properties["residents"]?.doubleValue ?? 0) < 2 }.count
            return b.value.count >= 10 && (1...4).contains(singles)
        }.min { $0.key < $1.key })
        let small = try #require(byBuilding.filter { (1...4).contains($0.value.count) }.min { $0.key < $1.key })

        let given = try #require(try await sandbox.aggregate(layer: Self.layer, measures, selection: households(big.key), subject: "building \(big.key)",
                                                              process: "fire-pre-plan", by: brigade))
        #expect(!given.suppressed && given.count == big.value.count)
        #expect(given.values["sum(residents)"] == big.value.compactMap { $0.properties["residents"]?.doubleValue }.reduce(0, +))
        let withheld = try #require(try await sandbox.aggregate(layer: Self.layer, measures, selection: households(small.key), subject: "building \(small.key)",
                                                                 process: "fire-pre-plan", by: brigade))
        #expect(withheld.suppressed && withheld.count == nil && withheld.values.values.allSatisfy { $0 == nil })
        // No grant: another department, or another process.
        #expect(try await sandbox.aggregate(layer: Self.layer, measures, selection: households(big.key), subject: "x", process: "fire-pre-plan", by: Self.civil) == nil)
        #expect(try await sandbox.aggregate(layer: Self.layer, measures, selection: households(big.key), subject: "x", process: "route", by: brigade) == nil)
        // The brigade's own sandbox query may not take the pre-plan's building less a few households.
        let building = try #require(Truth.position(big.value[0]))
        let refusal = await #expect(throws: StoreError.self) {
            try await sandbox.aggregate(layer: Self.layer, AggregateRequest(measures: [.init(.count)],
                                                                           filter: "S_INTERSECTS(geometry, \(Truth.box(around: building))) AND residents >= 2"), by: brigade)
        }
        #expect(refusal?.code == .forbidden && refusal?.message.contains("earlier answer") == true)
        let acts = try await store.auditLog(layer: Self.layer, after: 0, limit: 100_000, by: Self.police).filter { $0.department == "消防救援大队" }
        #expect(acts.contains { $0.kind == .access && $0.featureID.hasPrefix("fire-pre-plan: count, sum(residents)") })
    }
}

/// The reference: which rows each group of an answer holds, computed from the owner's rows by the
/// filters and groupings the tests send (boxes and comparisons), independently of the sandbox.
struct Truth {
    let rows: [Feature]
    /// Each row's number, by feature id.
    let index: [String: Int]
    let toMetric: CoordinateTransformer
    let divisions: [(key: String, shape: PreparedGeometry)]

    init(store: SpatiaLiteStore, rows: [Feature]) async throws {
        self.rows = rows
        index = Dictionary(uniqueKeysWithValues: rows.enumerated().compactMap { i, f in f.id.map { ("\($0)", i) } })
        toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: try #require(try await CityRecord.metricCRS(of: store)))
        var all: [(Feature, String?)] = []
        for try await f in store.stream(layer: "admin_divisions", FeatureQuery(limit: 1000), by: .admin) { all.append((f, f.properties["level"]?.stringValue)) }
        let levels = Dictionary(grouping: all, by: { $0.1 ?? "" })
        let finest = levels.max { $0.value.count < $1.value.count || ($0.value.count == $1.value.count && $0.key > $1.key) }?.value ?? []
        divisions = try finest.compactMap { f, _ in try f.geometry.map { (f.properties["code"]?.stringValue ?? "?", try PreparedGeometry($0)) } }
    }

    static func position(_ f: Feature) -> Position? {
        if case .point(let p)? = f.geometry { return p.position } else { return nil }
    }

    /// Each building's address point and its households.
    static func buildings(_ rows: [Feature]) -> [(Position, Int)] {
        Dictionary(grouping: rows.compactMap { position($0).map { Position(x: $0.x, y: $0.y) } }, by: { $0 }).map { ($0.key, $0.value.count) }
    }

    static func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> String {
        "POLYGON((\(x0) \(y0), \(x1) \(y0), \(x1) \(y1), \(x0) \(y1), \(x0) \(y0)))"
    }

    static func box(around p: Position) -> String { rectangle(p.x - 1e-7, p.y - 1e-7, p.x + 1e-7, p.y + 1e-7) }

    /// Rows by 50 m (or `size`) cell key.
    func cells(_ rows: [Feature], size: Double) throws -> [String: [Feature]] {
        var out: [String: [Feature]] = [:]
        for row in rows {
            guard let p = Self.position(row) else { continue }
            let m = try toMetric.transform(p)
            out["\(Int((m.x / size).rounded(.down)))_\(Int((m.y / size).rounded(.down)))", default: []].append(row)
        }
        return out
    }

    /// The rows a CQL2 filter of the tests' forms selects, evaluated with the store's own parser
    /// over the rows in memory (points, boxes, comparisons).
    func selected(_ filter: String?) throws -> [Feature] {
        guard let filter else { return rows }
        let expression = try CQL2.parseText(filter, queryables: nil, filterCRS: nil)
        return try rows.filter { try Self.evaluate(expression, $0) }
    }

    static func evaluate(_ e: FilterExpression, _ f: Feature) throws -> Bool {
        switch e {
        case .and(let parts): return try parts.allSatisfy { try evaluate($0, f) }
        case .or(let parts): return try parts.contains { try evaluate($0, f) }
        case .not(let inner): return try !evaluate(inner, f)
        case .spatial(.intersects, let g):
            guard let p = position(f), let box = g.envelope else { throw HarnessFailure("no point") }
            return p.x >= box.minX && p.x <= box.maxX && p.y >= box.minY && p.y <= box.maxY
        case .comparison(let op, .property(let name), .literal(let v)):
            let a = f.properties[name]?.doubleValue ?? .nan, b = v.doubleValue ?? .nan
            switch op {
            case .equal: return a == b
            case .greater: return a > b
            case .greaterOrEqual: return a >= b
            case .less: return a < b
            case .lessOrEqual: return a <= b
            case .notEqual: return a != b
            }
        default: throw HarnessFailure("the reference does not evaluate \(e)")
        }
    }

    /// The rows of each group of `answer` (by key), from the reference.
    func groups(of answer: SandboxAnswer) throws -> [String: [Feature]] {
        let chosen = try selected(answer.request.filter)
        switch answer.request.grouping {
        case .none: return ["all": chosen]
        case .grid(let size): return try cells(chosen, size: size)
        case .adminDivision:
            var out: [String: [Feature]] = [:]
            for row in chosen {
                guard let p = Self.position(row) else { continue }
                let key = try divisions.first { try $0.shape.covers(.point(Point(p))) }?.key ?? SandboxGrouping.outside
                out[key, default: []].append(row)
            }
            return out
        }
    }

    /// The sets of rows whose figures `answer` gives, as sorted row numbers: the selection, each
    /// shown group, and by subtraction the suppressed groups together and the shown ones together.
    func released(_ answer: SandboxAnswer) throws -> [[Int]] {
        let groups = try groups(of: answer)
        func numbers(_ rows: [Feature]) -> Set<Int> { Set(rows.compactMap { $0.id.flatMap { index["\($0)"] } }) }
        let all = numbers(Array(groups.values.joined()))
        var out = [all]
        var shown = Set<Int>()
        for g in answer.groups where !g.suppressed {
            let ids = numbers(groups[g.key] ?? [])
            out.append(ids)
            shown.formUnion(ids)
        }
        out.append(shown)
        out.append(all.subtracting(shown))
        return out.filter { !$0.isEmpty }.map { $0.sorted() }
    }

    /// How many rows lie in one of two sorted sets and not the other, counted up to `limit`.
    static func difference(_ a: [Int], _ b: [Int], limit: Int) -> Int {
        var i = 0, j = 0, d = 0
        while i < a.count && j < b.count && d < limit {
            if a[i] == b[j] { i += 1; j += 1 } else if a[i] < b[j] { i += 1; d += 1 } else { j += 1; d += 1 }
        }
        return min(limit, d + (a.count - i) + (b.count - j))
    }

    /// Every shown figure equals the reference's; every released set holds 0 or at least k rows.
    func check(_ answer: SandboxAnswer, k: Int) throws {
        let groups = try groups(of: answer)
        #expect(answer.total.count == groups.values.reduce(0) { $0 + $1.count })
        #expect(Set(answer.groups.map(\.key)) == Set(groups.keys))
        for g in answer.groups {
            let rows = groups[g.key] ?? []
            if rows.count < k { #expect(g.suppressed, "group \(g.key) of \(rows.count) rows is shown") }
            if g.suppressed {
                #expect(g.count == nil && g.values.values.allSatisfy { $0 == nil } && g.suppressedBecause != nil)
            } else {
                #expect(g.count == rows.count)
                if let sum = g.values["sum(residents)"] { #expect(sum == rows.compactMap { $0.properties["residents"]?.doubleValue }.reduce(0, +)) }
            }
        }
        for set in try released(answer) { #expect(set.count >= k, "\(answer.request.subject): a released set of \(set.count) rows") }
    }

    /// Every two released sets of `answers` (of one answer or two) differ by 0 or at least k rows,
    /// and none lies within k of the whole layer; the number of pairs of sets so checked. Two sets
    /// whose sizes differ by k or more differ by at least that many rows, so only pairs of sizes
    /// within k are compared row by row.
    @discardableResult
    func checkPairs(_ answers: [SandboxAnswer], k: Int) throws -> Int {
        let sets = try answers.enumerated().flatMap { i, a in try released(a).map { (answer: i, rows: $0) } }.sorted { $0.rows.count < $1.rows.count }
        for (i, a) in sets {
            #expect(rows.count - a.count == 0 || rows.count - a.count >= k, "answer \(i) releases all but \(rows.count - a.count) rows")
        }
        for (x, a) in sets.enumerated() {
            for b in sets[(x + 1)...] {
                if b.rows.count - a.rows.count >= k { break }
                let d = Self.difference(a.rows, b.rows, limit: k)
                if d > 0 && d < k {
                    Issue.record("answers \(a.answer) and \(b.answer) differ by \(d) rows: \(answers[a.answer].request.subject) / \(answers[b.answer].request.subject)")
                    return 0
                }
            }
        }
        return sets.count * (sets.count - 1) / 2
    }
}
