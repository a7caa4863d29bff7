import Foundation
import GeoCore
@testable import Governance
import TestSupport
import Testing
import TwinStore

/// Issue 54 §5: a layer's quality report finds every defect seeded into a copy of the district, one
/// of each kind, and on the district as generated reports only what is really there.
@Suite("Quality reports of the district's layers")
struct QualityReportTests {
    /// What the generated district really holds, each finding looked at:
    /// - `iot_devices` IOT-JG-03 and IOT-JG-04 sit on the same manholes as IOT-JG-01 and -02: the
    ///   generator gives the pumping stations' inlet manholes a level gauge twice (once as a pump's
    ///   inlet, once as an outfall's last manhole), a duplicate sensor a register should not hold;
    /// - `rescue_teams` RT-04 (地质灾害应急队) is based at the district government, where RT-02
    ///   (街道防汛应急分队) is: two teams at one base, identical points.
    static let realFindings: [String: [QualityCheckKind: [String]]] = [
        "iot_devices": [.duplicateGeometries: ["IOT-JG-03", "IOT-JG-04"]],
        "rescue_teams": [.duplicateGeometries: ["RT-04"]],
    ]

    @Test("every seeded defect is found, and the generated district has only its real findings")
    func seededDefects() async throws {
        let (store, path) = try await GovernanceDistrict.store("quality")
        let inspector = QualityInspector(store: store, findingsCap: 1000)
        var clean: [String: QualityReport] = [:]
        for info in try await store.layers(for: .admin) {
            let report = try await inspector.report(layer: info.definition.id, by: .admin)
            clean[report.collection] = report
            for check in report.checks {
                let expected = Self.realFindings[report.collection]?[check.check] ?? []
                #expect(check.findings.map(\.id) == expected, "\(report.collection) \(check.check.rawValue): \(check.findings)")
            }
        }
        #expect(clean["drainage_pipes"]?.checks.map(\.check) == [.geometryValidity, .completeness, .valueRange, .codeList, .schema,
                                                                 .duplicateGeometries, .danglingEnds, .disconnectedParts,
                                                                 .flowAgainstInverts, .freshness, .outsideExtent])

        let seeded = try await Self.seed(store, path: path)
        let monthLater = Date().addingTimeInterval(32 * 86_400)
        for (layer, kinds) in seeded {
            let report = try await inspector.report(layer: layer, by: .admin, now: layer == "hydrants" ? monthLater : Date())
            let before = try #require(clean[layer])
            for check in report.checks {
                let was = try #require(before.checks.first { $0.check == check.check })
                let expected = kinds[check.check]
                #expect(check.count == was.count + (expected == nil ? 0 : 1), "\(layer) \(check.check.rawValue): \(check.findings)")
                if let expected { #expect(check.findings.contains { $0.id == expected }, "\(layer) \(check.check.rawValue) misses \(expected)") }
            }
        }
        let covered = Set(seeded.values.flatMap(\.keys))
        #expect(covered == Set(QualityCheckKind.allCases), "kinds without a seeded defect: \(Set(QualityCheckKind.allCases).subtracting(covered))")
    }

    /// Seeds one defect of each kind; returns per layer the kind of each defect and the feature it is in.
    static func seed(_ store: SpatiaLiteStore, path: String) async throws -> [String: [QualityCheckKind: String]] {
        func first(_ layer: String, _ n: Int) async throws -> [Feature] {
            try await store.query(layer: layer, FeatureQuery(sortBy: [SortKey("id")], limit: n), by: .admin).features
        }
        func id(_ f: Feature) -> String { f.id.map { "\($0)" } ?? "" }
        func set(_ layer: String, _ fid: String, _ property: String, _ sqlValue: String) async throws {
            try await GovernanceDistrict.sqlite(path, "UPDATE f_\(layer) SET props = json_set(props, '$.\(property)', \(sqlValue)) WHERE fid = '\(fid)' AND valid_to IS NULL")
        }
        // Hydrants: values changed behind the store's back (outside its schema), a blank road, a
        // twin at the same point, one in Beijing; checked a month on, monthly data is stale.
        let h = try await first("hydrants", 6)
        try await set("hydrants", id(h[0]), "outlet_mm", "-5")
        try await set("hydrants", id(h[1]), "status", "'损坏'")
        try await set("hydrants", id(h[2]), "outlet_mm", "'DN100'")
        var blank = h[3]
        blank.properties["road"] = ""
        var twin = h[4]
        twin.id = .string("SEED-HY-TWIN")
        var far = h[5]
        far.id = .string("SEED-HY-BEIJING")
        far.geometry = .point(Point(x: 116.397, y: 39.909))
        try await store.upsert(layer: "hydrants", features: [blank, twin, far], by: .admin, at: nil)
        // A bow-tie building.
        var bowtie = try await first("buildings", 1)[0]
        let c = try #require(bowtie.geometry?.envelope?.center)
        bowtie.id = .string("SEED-BLD-BOWTIE")
        bowtie.geometry = .polygon(Polygon(exterior: [Position(x: c.x, y: c.y), Position(x: c.x + 0.0002, y: c.y + 0.0002),
                                                      Position(x: c.x + 0.0002, y: c.y), Position(x: c.x, y: c.y + 0.0002),
                                                      Position(x: c.x, y: c.y)]))
        try await store.insert(layer: "buildings", features: [bowtie], by: .admin, at: nil)
        // An address repeating another's code.
        var repeated = try await first("addresses", 1)[0]
        repeated.id = .string("SEED-ADDR")
        repeated.geometry = repeated.geometry.map { $0.mapPositions { Position(x: $0.x + 0.0001, y: $0.y) } }
        try await store.insert(layer: "addresses", features: [repeated], by: .admin, at: nil)
        // Drainage: a pipe to a manhole that does not exist, an island of two manholes and a pipe,
        // and a pipe whose survey flow direction was flipped against its falling inverts.
        let pipes = try await first("drainage_pipes", 400)
        let p = pipes[0]
        let start = try #require(NetworkTopology.ends(of: p.geometry)?.first)
        var dangling = p
        dangling.id = .string("SEED-YS-DANGLING")
        dangling.properties["downstream_node"] = "YS-NOWHERE"
        dangling.geometry = .lineString(LineString([start, Position(x: start.x + 0.0003, y: start.y)]))
        let m = try await first("drainage_manholes", 1)[0]
        let mp = try #require(m.geometry?.envelope?.center)
        var m1 = m, m2 = m
        m1.id = .string("SEED-MH-1"); m1.geometry = .point(Point(x: mp.x + 0.01, y: mp.y + 0.01)); m1.properties["invert_elevation_m"] = 10
        m2.id = .string("SEED-MH-2"); m2.geometry = .point(Point(x: mp.x + 0.0105, y: mp.y + 0.01)); m2.properties["invert_elevation_m"] = 9
        try await store.insert(layer: "drainage_manholes", features: [m1, m2], by: .admin, at: nil)
        var island = p
        island.id = .string("SEED-YS-ISLAND")
        island.properties.merge(["upstream_node": "SEED-MH-1", "downstream_node": "SEED-MH-2", "inlet_offset_m": 0, "outlet_offset_m": 0,
                                 "flow_dir": "+"]) { _, new in new }
        island.geometry = .lineString(LineString([Position(x: mp.x + 0.01, y: mp.y + 0.01), Position(x: mp.x + 0.0105, y: mp.y + 0.01)]))
        var flipped = try #require(pipes.first { ($0.properties["slope"]?.doubleValue ?? 0) > 0.002 })
        flipped.properties["flow_dir"] = "-"
        try await store.upsert(layer: "drainage_pipes", features: [dangling, island, flipped], by: .admin, at: nil)
        return [
            "hydrants": [.valueRange: id(h[0]), .codeList: id(h[1]), .schema: id(h[2]), .completeness: id(h[3]),
                         .duplicateGeometries: "SEED-HY-TWIN", .outsideExtent: "SEED-HY-BEIJING", .freshness: "*"],
            "buildings": [.geometryValidity: "SEED-BLD-BOWTIE"],
            "addresses": [.duplicateKeys: "SEED-ADDR"],
            "drainage_pipes": [.danglingEnds: "SEED-YS-DANGLING", .disconnectedParts: "SEED-YS-ISLAND", .flowAgainstInverts: id(flipped)],
            "drainage_manholes": [:],
        ]
    }
}
