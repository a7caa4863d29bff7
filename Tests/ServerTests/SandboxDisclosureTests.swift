import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Testing
import TwinStore

/// Issue 78 §1, §2 and §19 over HTTP, as the attacks were made: a 应急管理局 viewer on the sample
/// district's population (实有人口, 公安局's, negative-listed) through `POST /collections/{id}/aggregate`,
/// checked against the owner's rows; and the fire brigade's pre-plan with the occupants the owner's
/// catalogue grants it.
@Suite("The sandbox over HTTP: no suppressed group by subtraction, no differencing across shapes, the pre-plan's occupants", .serialized)
struct SandboxDisclosureTests {
    static let layer = "population_by_address"

    /// The owner's rows by 50 m cell of the city's metric CRS (the cells the sandbox's grid names).
    static func cells(_ store: SpatiaLiteStore) async throws -> (rows: [Feature], cells: [String: [Feature]]) {
        var rows: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(limit: 5000), by: .department(name: "公安局", role: .viewer)) { rows.append(f) }
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: try #require(try await CityRecord.metricCRS(of: store)))
        var cells: [String: [Feature]] = [:]
        for row in rows {
            guard case .point(let p)? = row.geometry, let position = p.position else { continue }
            let m = try toMetric.transform(position)
            cells["\(Int((m.x / 50).rounded(.down)))_\(Int((m.y / 50).rounded(.down)))", default: []].append(row)
        }
        return (rows, cells)
    }

    static func residents(_ rows: [Feature]) -> Double { rows.compactMap { $0.properties["residents"]?.doubleValue }.reduce(0, +) }

    /// The square of a 50 m cell, in EPSG:4490, as WKT.
    static func square(_ key: String, _ store: SpatiaLiteStore) async throws -> String {
        let parts = key.split(separator: "_").compactMap { Double($0) }
        let back = try CoordinateTransformer.shared(from: try #require(try await CityRecord.metricCRS(of: store)), to: .cgcs2000)
        // A little inside the cell, so that no point on its edge is counted twice.
        let (x0, y0) = (parts[0] * 50 + 0.01, parts[1] * 50 + 0.01), (x1, y1) = (parts[0] * 50 + 49.99, parts[1] * 50 + 49.99)
        let ring = try [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)].map { try back.transform(Position(x: $0.0, y: $0.1)) }
        return "((" + ring.map { "\($0.x) \($0.y)" }.joined(separator: ", ") + "))"
    }

    @Test("§1: a visible and a suppressed cell in one filter, and the unfiltered grid, give no suppressed cell by subtraction")
    func complement() async throws {
        try await FloodRunLifecycleTests.run { api in
            let duty = api.token("应急管理局", .viewer)
            let (rows, cells) = try await Self.cells(api.store)
            let body: JSONValue = ["aggregates": [["op": "count"], ["op": "sum", "property": "residents"], ["op": "sum", "property": "elderly"]],
                                   "groupBy": "grid", "cellSize": 50]
            // The unfiltered grid: the suppressed cells together are k households or more, and the total less the shown cells is no smaller set.
            let grid = try await api.send(.post, "/collections/\(Self.layer)/aggregate", token: duty, body: body)
            #expect(grid.status == .ok, "\(grid.text)")
            let doc = try grid.json
            let features = doc["features"]?.arrayValue ?? []
            let shown = features.filter { $0["properties"]?["suppressed"] == false }
            let shownCount = shown.compactMap { $0["properties"]?["count"]?.wholeNumber }.reduce(0, +)
            #expect(doc["total"]?["count"]?.wholeNumber == rows.count)
            let remainder = rows.count - shownCount
            #expect(remainder == 0 || remainder >= 5, "total − Σ shown = \(remainder) households")
            for f in shown {
                let key = try #require(f["properties"]?["key"]?.stringValue)
                #expect(f["properties"]?["count"]?.wholeNumber == cells[key]?.count)
            }

            // A visible cell A and a suppressed cell B in one MULTIPOLYGON (the attack): the answer may
            // not give A's figures beside the total, nor the total at all if A was given before.
            let visible = shown.compactMap { $0["properties"]?["key"]?.stringValue }.filter { (cells[$0]?.count ?? 0) >= 5 }
            let hidden = cells.filter { (1...4).contains($0.value.count) }.map(\.key).sorted()
            var tried = 0
            for (a, b) in zip(visible.sorted().prefix(6), hidden.prefix(6)) {
                tried += 1
                let filter = "S_INTERSECTS(geometry, MULTIPOLYGON(\(try await Self.square(a, api.store)), \(try await Self.square(b, api.store))))"
                var attack = body.objectValue ?? [:]
                attack["filter"] = .string(filter)
                let r = try await api.send(.post, "/collections/\(Self.layer)/aggregate", token: duty, body: .object(attack))
                if r.status == .forbidden { continue }  // refused whole: A was given before, so A ∪ B would give B
                #expect(r.status == .ok, "\(r.text)")
                let answer = try r.json
                guard let total = answer["total"]?["sum(residents)"]?.doubleValue else { continue }
                let groupA = (answer["features"]?.arrayValue ?? []).first { $0["properties"]?["key"]?.stringValue == a }
                if let aResidents = groupA?["properties"]?["sum(residents)"]?.doubleValue {
                    #expect(total - aResidents != Self.residents(cells[b] ?? []), "cell \(b)'s residents by subtraction")
                }
            }
            #expect(tried > 0)
        }
    }

    @Test("§2: the same filter with and without one household is refused under any grouping, in either order")
    func differencing() async throws {
        try await FloodRunLifecycleTests.run { api in
            let duty = api.token("应急管理局", .viewer)
            let (rows, _) = try await Self.cells(api.store)
            // A household's address point and a block around it.
            let byPoint = Dictionary(grouping: rows) { (r: Feature) -> String in
                if case .point(let p)? = r.geometry, let q = p.position { return "\(q.x) \(q.y)" } else { return "" }
            }
            let (point, households) = try #require(byPoint.filter { (1...4).contains($0.value.count) }.map { ($0.key, $0.value.count) }.min { $0.0 < $1.0 })
            let xy = point.split(separator: " ").compactMap { Double($0) }
            let e = 1e-7, d = 0.004
            let box = "POLYGON((\(xy[0] - e) \(xy[1] - e), \(xy[0] + e) \(xy[1] - e), \(xy[0] + e) \(xy[1] + e), \(xy[0] - e) \(xy[1] + e), \(xy[0] - e) \(xy[1] - e)))"
            let block = "POLYGON((\(xy[0] - d) \(xy[1] - d), \(xy[0] + d) \(xy[1] - d), \(xy[0] + d) \(xy[1] + d), \(xy[0] - d) \(xy[1] + d), \(xy[0] - d) \(xy[1] - d)))"
            let with = "S_INTERSECTS(geometry, \(block))", without = "S_INTERSECTS(geometry, \(block)) AND NOT S_INTERSECTS(geometry, \(box))"
            let measures: JSONValue = [["op": "count"], ["op": "sum", "property": "residents"], ["op": "sum", "property": "elderly"]]
            let first = try await api.send(.post, "/collections/\(Self.layer)/aggregate", token: duty,
                                           body: ["aggregates": measures, "groupBy": "none", "filter": .string(with)])
            #expect(first.status == .ok, "\(first.text)")
            for (groupBy, cellSize) in [("grid", 9999.0), ("grid", 5000.0), ("none", 0)] {
                var b: [String: JSONValue] = ["aggregates": measures, "groupBy": .string(groupBy), "filter": .string(without)]
                if cellSize > 0 { b["cellSize"] = .number(cellSize) }
                let r = try await api.send(.post, "/collections/\(Self.layer)/aggregate", token: duty, body: .object(b))
                try expectProblem(r, status: 403, type: "forbidden")
                #expect(try r.json["detail"]?.stringValue?.contains("differs by \(households)") == true, "\(groupBy) \(cellSize)")
            }
            // The other order, by another department: the narrower first, then the wider under a grid.
            let health = api.token("卫生健康局", .viewer)
            let narrow = try await api.send(.post, "/collections/\(Self.layer)/aggregate", token: health,
                                            body: ["aggregates": measures, "filter": .string(without)])
            #expect(narrow.status == .ok)
            let wide = try await api.send(.post, "/collections/\(Self.layer)/aggregate", token: health,
                                          body: ["aggregates": measures, "groupBy": "grid", "cellSize": 9999, "filter": .string(with)])
            try expectProblem(wide, status: 403, type: "forbidden")
        }
    }

    @Test("§19: the brigade's pre-plan shows households and people per building as the owner granted; under k suppressed; others withheld")
    func prePlanOccupants() async throws {
        try await FloodRunLifecycleTests.run { api in
            let brigade = api.token("消防救援大队", .viewer)
            let police = api.token("公安局", .viewer)
            let (rows, _) = try await Self.cells(api.store)
            var buildings: [(id: String, code: String, households: [Feature])] = []
            for try await b in api.store.stream(layer: "buildings", FeatureQuery(limit: 5000), by: .admin) {
                guard let code = b.properties["address_code"]?.stringValue, !code.isEmpty, let id = b.id else { continue }
                buildings.append(("\(id)", code, rows.filter { ($0.properties["address_code"]?.stringValue ?? "").hasPrefix(code) }))
            }
            let big = try #require(buildings.filter { $0.households.count >= 5 }.min { $0.id < $1.id })
            let small = try #require(buildings.filter { (1...4).contains($0.households.count) }.min { $0.id < $1.id })
            let bigCode = big.code
            func occupants(_ building: String, _ token: String) async throws -> JSONValue? {
                let r = try await api.send(.post, "/processes/fire-pre-plan/execution", token: token, body: ["inputs": ["building": .string(building)]])
                #expect(r.status == .ok, "\(r.text)")
                return try r.json["occupants"]
            }
            let given = try #require(try await occupants(big.id, brigade))
            #expect(given["households"]?.wholeNumber == big.households.count)
            #expect(given["residents"]?.doubleValue == Self.residents(big.households))
            #expect(given["elderly"]?.doubleValue == big.households.compactMap { $0.properties["elderly"]?.doubleValue }.reduce(0, +))
            #expect(given["aggregated"] == true && given["k"]?.wholeNumber == 5)
            let withheld = try #require(try await occupants(small.id, brigade))
            #expect(withheld["suppressed"] == true && withheld["households"] == nil && withheld["residents"] == nil)
            // The owner reads the rows themselves; a department without the owner's grant gets nothing.
            #expect(try await occupants(small.id, police)?["households"]?.wholeNumber == small.households.count)
            #expect(try await occupants(big.id, api.token("应急管理局", .viewer))?["withheld"] == true)
            // Each release is in the layer's audit log, for the owner to read.
            let acts = try await api.store.auditLog(layer: Self.layer, after: 0, limit: 1_000_000, by: .department(name: "公安局", role: .viewer))
            #expect(acts.filter { $0.department == "消防救援大队" && $0.kind == .access }.map(\.featureID)
                    == ["fire-pre-plan: count, sum(residents), sum(elderly), sum(children) of the households of building \(big.id) (address \(bigCode)…)"])
            #expect(acts.contains { $0.department == "消防救援大队" && $0.kind == .refused && $0.featureID.contains(small.id) })
        }
    }
}

private extension JSONValue {
    /// A whole number as Int (the answers' counts).
    var wholeNumber: Int? { integerValue.map(Int.init) ?? doubleValue.flatMap { Int(exactly: $0) } }
}
