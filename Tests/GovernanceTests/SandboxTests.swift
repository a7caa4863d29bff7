import Foundation
import GeoCore
@testable import Governance
import TestSupport
import Testing
import TwinStore

/// Issue 54 §6: the sandbox on the district's negative-listed population (实有人口, 公安局's, which
/// 民政局 may not read row by row) and its masked water accounts: aggregates that equal the sums
/// over the rows, small groups suppressed, isolating queries refused, everything audited.
@Suite("The sandbox's aggregate queries", .serialized)
struct SandboxTests {
    static let civil = Caller.department(name: "民政局", role: .viewer, user: "王分析")
    static let police = Caller.department(name: "公安局", role: .editor)
    static let district = Task { try await GovernanceDistrict.store("sandbox").0 }

    /// Every row of population_by_address, read as the administrator (the reference).
    static func rows(_ store: SpatiaLiteStore) async throws -> [Feature] {
        var out: [Feature] = []
        for try await f in store.stream(layer: "population_by_address", FeatureQuery(limit: 5000), by: .admin) { out.append(f) }
        return out
    }

    @Test("aggregates by division and grid equal the sums over the rows; groups under k are suppressed; never a row")
    func aggregates() async throws {
        let store = try await Self.district.value
        let sandbox = Sandbox(store: store)
        #expect(try await store.layerDefinition("population_by_address", for: Self.civil) == nil)
        let rows = try await Self.rows(store)
        let residents = rows.compactMap { $0.properties["residents"]?.doubleValue }

        let request = AggregateRequest(measures: [.init(.count), .init(.sum, "residents"), .init(.mean, "elderly")], grouping: .adminDivision(level: nil))
        let byDivision = try await sandbox.aggregate(layer: "population_by_address", request, by: Self.civil)
        #expect(byDivision.total.count == rows.count)
        #expect(byDivision.total.values["sum(residents)"] == residents.reduce(0, +))
        #expect(byDivision.groups.count > 1)
        // The answered groups' counts and sums add up to the whole, less what was suppressed.
        let answered = byDivision.groups.filter { !$0.suppressed }
        let suppressed = rows.count - answered.reduce(0) { $0 + ($1.count ?? 0) }
        #expect(byDivision.groups.filter(\.suppressed).allSatisfy { $0.count == nil && $0.values.values.allSatisfy { $0 == nil } })
        #expect(suppressed >= 0 && suppressed < byDivision.k * max(1, byDivision.suppressedGroups))

        // 50 m cells: the reference counts each row in its cell of the city's metric CRS.
        let grid = try await sandbox.aggregate(layer: "population_by_address",
                                               AggregateRequest(measures: [.init(.count), .init(.max, "residents")], grouping: .grid(cellSize: 50)),
                                               by: Self.civil)
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: try #require(try await CityRecord.metricCRS(of: store)))
        var cells: [String: Int] = [:]
        for row in rows {
            guard case .point(let p)? = row.geometry, let position = p.position else { continue }
            let m = try toMetric.transform(position)
            cells["\(Int((m.x / 50).rounded(.down)))_\(Int((m.y / 50).rounded(.down)))", default: 0] += 1
        }
        #expect(grid.total.count == rows.count && grid.total.values["max(residents)"] == residents.max())
        #expect(Set(grid.groups.map(\.key)) == Set(cells.keys))
        for g in grid.groups {
            let n = try #require(cells[g.key])
            #expect(g.suppressed == (n < grid.k) && g.count == (n < grid.k ? nil : n), "cell \(g.key) holds \(n)")
            if case .polygon = g.geometry {} else { Issue.record("cell \(g.key) has no outline") }
        }
        #expect(grid.groups.contains(where: \.suppressed) && grid.groups.contains { !$0.suppressed })
    }

    @Test("a filter on the key or a masked attribute, a selection under k and a narrowing difference are refused and audited")
    func refusals() async throws {
        let store = try await Self.district.value
        let sandbox = Sandbox(store: store)
        let rows = try await Self.rows(store)
        func refused(_ layer: String, _ request: AggregateRequest) async -> StoreError? {
            await #expect(throws: StoreError.self) { try await sandbox.aggregate(layer: layer, request, by: Self.civil) }
        }
        let code = try #require(rows.first?.properties["address_code"]?.stringValue)
        #expect(await refused("population_by_address", AggregateRequest(measures: [.init(.sum, "residents")], filter: "address_code = '\(code)'"))?.code == .forbidden)
        #expect(await refused("water_connections", AggregateRequest(measures: [.init(.count)], filter: "account_holder LIKE '张%'"))?.code == .forbidden)

        // The households at one address point: a box around it selects 1…4 rows.
        let byPoint = Dictionary(grouping: rows.compactMap { r -> Position? in
            if case .point(let p)? = r.geometry { return p.position } else { return nil }
        }, by: { $0 })
        let (point, households) = try #require(byPoint.map { ($0.key, $0.value.count) }.filter { (1...4).contains($0.1) }.min { $0.0.x < $1.0.x })
        let e = 1e-7
        let box = "POLYGON((\(point.x - e) \(point.y - e), \(point.x + e) \(point.y - e), \(point.x + e) \(point.y + e), \(point.x - e) \(point.y + e), \(point.x - e) \(point.y - e)))"
        let tiny = await refused("population_by_address", AggregateRequest(measures: [.init(.count)], filter: "S_INTERSECTS(geometry, \(box))"))
        #expect(tiny?.code == .forbidden && tiny?.message.contains("fewer than 5") == true)
        // All, then all but those few: the difference would be the few.
        let all = try await sandbox.aggregate(layer: "population_by_address", AggregateRequest(measures: [.init(.count)]), by: Self.civil)
        #expect(all.total.count == rows.count)
        let rest = "NOT S_INTERSECTS(geometry, \(box))"
        let narrowed = await refused("population_by_address", AggregateRequest(measures: [.init(.count)], filter: rest))
        #expect(narrowed?.code == .forbidden && narrowed?.message.contains("differs by \(households)") == true)
        // Another department asking the narrowed query alone is answered: the guard is per department.
        let other = try await sandbox.aggregate(layer: "population_by_address", AggregateRequest(measures: [.init(.count)], filter: rest),
                                                by: .department(name: "卫生健康局", role: .viewer))
        #expect(other.total.count == rows.count - households)
        #expect(await #expect(throws: StoreError.self) { try await sandbox.aggregate(layer: "population_by_address", AggregateRequest(measures: [.init(.count)]), by: .anonymous) }?.code == .unauthenticated)

        // The owner reads every query in the layer's audit log: who, what, answered or refused.
        let acts = try await store.auditLog(layer: "population_by_address", after: 0, limit: 100_000, by: Self.police).filter { !$0.kind.changesData }
        let civilActs = acts.filter { $0.department == "民政局" && $0.featureID.contains("S_INTERSECTS") }
        #expect(civilActs.map(\.kind) == [.refused, .refused])
        #expect(acts.contains { $0.department == "卫生健康局" && $0.kind == .access && $0.featureID == "sandbox: count where \(rest)" })
        #expect(try await store.auditLog(layer: "water_connections", after: 0, limit: 100_000, by: .admin).contains { $0.kind == .refused && $0.department == "民政局" })
    }
}
