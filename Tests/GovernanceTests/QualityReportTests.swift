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
        var real = Self.realFindings
        real["fire_lanes", default: [:]][.rules] = try await Self.substandardLanes(store)
        #expect(real["fire_lanes"]?[.rules]?.isEmpty == false, "the generator draws lanes 3–6 m wide and 3.6–5 m clear high")
        var clean: [String: QualityReport] = [:]
        for info in try await store.layers(for: .admin) {
            let report = try await inspector.report(layer: info.definition.id, by: .admin)
            clean[report.collection] = report
            for check in report.checks {
                let expected = real[report.collection]?[check.check] ?? []
                #expect(check.findings.map(\.id).sorted() == expected.sorted(), "\(report.collection) \(check.check.rawValue): \(check.findings)")
            }
        }
        #expect(clean["fire_lanes"]?.checks.map(\.check).contains(.rules) == true)
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

    /// The fire lanes the generator really draws below GB 50016-2014 §7.1.8's 4.0 m: a lane's id once
    /// for a width below 4 m and once for a clear height below 4 m (read here from the stored values).
    static func substandardLanes(_ store: SpatiaLiteStore) async throws -> [String] {
        var ids: [String] = []
        for f in try await store.query(layer: "fire_lanes", FeatureQuery(limit: 5000), by: .admin).features {
            let id = f.id.map { "\($0)" } ?? ""
            if try #require(f.properties["width_m"]?.doubleValue) < 4 { ids.append(id) }
            if try #require(f.properties["clear_height_m"]?.doubleValue) < 4 { ids.append(id) }
        }
        return ids
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
        let h = try await first("hydrants", 7)
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
        // GB 50974 and GB 50016 rules of the fire layers (`quality.rules`), and their tightened ranges
        // and code lists: a hydrant without its pressure class, a lane of 3.2 m recorded as a fire
        // lane and one of 45 m, a 48 m high-rise without a fire elevator and one of 300 floors, a
        // fire water tank without a capacity, a violation 已处理 without its closing time, a 十小场所
        // of 450 m², a key unit of risk class 四级, an old compound built in 2015.
        try await GovernanceDistrict.sqlite(path, "UPDATE f_hydrants SET props = json_remove(props, '$.pressure_class') WHERE fid = '\(id(h[6]))' AND valid_to IS NULL")
        let lanes = try await first("fire_lanes", 100).filter {
            ($0.properties["width_m"]?.doubleValue ?? 0) >= 4 && ($0.properties["clear_height_m"]?.doubleValue ?? 0) >= 4
        }
        try #require(lanes.count >= 2)
        try await set("fire_lanes", id(lanes[0]), "width_m", "3.2")
        try await set("fire_lanes", id(lanes[1]), "width_m", "45")
        let highRises = try await first("high_rise_residences", 100).filter { ($0.properties["height_m"]?.doubleValue ?? 0) > 33 }
        try #require(highRises.count >= 2)
        try await set("high_rise_residences", id(highRises[0]), "fire_elevator", "json('false')")
        try await set("high_rise_residences", id(highRises[1]), "floors", "300")
        let tank = try #require(try await first("fire_water_sources", 100).first { $0.properties["kind"] == "消防水池" })
        try await set("fire_water_sources", id(tank), "capacity_m3", "json('null')")
        let closed = try #require(try await first("fire_lane_violations", 200).first { $0.properties["status"] == "已处理" })
        try await set("fire_lane_violations", id(closed), "closed_at", "json('null')")
        let venue = try await first("small_venues", 1)[0]
        try await set("small_venues", id(venue), "floor_area_m2", "450")
        let unit = try await first("fire_key_units", 1)[0]
        try await set("fire_key_units", id(unit), "risk_class", "'四级'")
        let compound = try await first("old_residential_compounds", 1)[0]
        try await set("old_residential_compounds", id(compound), "built_year", "2015")
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
                         .duplicateGeometries: "SEED-HY-TWIN", .outsideExtent: "SEED-HY-BEIJING", .freshness: "*", .rules: id(h[6])],
            "fire_lanes": [.rules: id(lanes[0]), .valueRange: id(lanes[1])],
            "high_rise_residences": [.rules: id(highRises[0]), .valueRange: id(highRises[1])],
            "fire_water_sources": [.rules: id(tank)],
            "fire_lane_violations": [.rules: id(closed)],
            "small_venues": [.valueRange: id(venue)],
            "fire_key_units": [.codeList: id(unit)],
            "old_residential_compounds": [.valueRange: id(compound)],
            "buildings": [.geometryValidity: "SEED-BLD-BOWTIE"],
            "addresses": [.duplicateKeys: "SEED-ADDR"],
            "drainage_pipes": [.danglingEnds: "SEED-YS-DANGLING", .disconnectedParts: "SEED-YS-ISLAND", .flowAgainstInverts: id(flipped)],
            "drainage_manholes": [:],
        ]
    }
}
