import Foundation
import GeoCore
import Testing
import TwinStore

/// Issue 54 §1: a co-built layer (消防救援一张图's water sources, built by the fire brigade and the
/// water authority): each feature records the department that created it; a department's editors
/// write only their own, the owner's all; a forged ownership is refused and audited; a transfer is
/// the owner's act, audited as such. On both backends.
@Suite("Co-built layers", .dropsTestSchemas)
struct CoBuiltLayerTests {
    static let fire = Caller.department(name: "消防救援大队", role: .editor, user: "赵队")
    static let water = Caller.department(name: "水务和湖泊局", role: .editor, user: "钱工")
    static let police = Caller.department(name: "公安局", role: .editor)

    static let sourcesJSON = """
        {"id": "water_sources", "title": {"zh": "消防水源", "en": "Fire water sources"}, "category": "公共专题",
         "owner": "消防救援大队", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "shared", "method": "api", "requirements": "消防、供水部门共享"},
         "coBuilt": ["水务和湖泊局"], "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"name": {"type": "string"}, "status": {"type": "string", "enum": ["完好", "待维修"]}},
                    "required": ["name"]}}
        """

    static func source(_ id: String, _ name: String, status: String = "完好", department: String? = nil) -> Feature {
        var p: [String: JSONValue] = ["name": .string(name), "status": .string(status)]
        if let department { p[CoBuilding.property] = .string(department) }
        return Feature(id: .string(id), geometry: .point(x: 114.84, y: 30.84), properties: p)
    }

    func department(_ store: any FeatureStore, _ id: String) async throws -> String? {
        try await store.feature(layer: "water_sources", id: id, by: .admin)?.properties[CoBuilding.property]?.stringValue
    }

    @Test("each department writes its own features, the owner all; forged ownership refused and audited; transfer audited",
          arguments: StoreBackend.available)
    func ownership(_ backend: StoreBackend) async throws {
        let definition = try Fixtures.definition(Self.sourcesJSON)
        #expect(definition.coBuilt == CoBuilding(contributors: ["水务和湖泊局"]))
        #expect(try Fixtures.definition(String(data: JSONEncoder().encode(definition), encoding: .utf8)!) == definition)
        let store = try await backend.makeStore(layers: [definition])

        try await store.insert(layer: "water_sources", features: [Self.source("hy1", "消火栓1")], by: Self.fire, at: nil)
        try await store.insert(layer: "water_sources", features: [Self.source("qs1", "取水码头")], by: Self.water, at: nil)
        #expect(try await department(store, "hy1") == "消防救援大队")
        #expect(try await department(store, "qs1") == "水务和湖泊局")

        // Its own: written; another's: refused, and nothing changes.
        try await store.upsert(layer: "water_sources", features: [Self.source("qs1", "取水码头", status: "待维修")], by: Self.water, at: nil)
        #expect(try await department(store, "qs1") == "水务和湖泊局")
        for attempt in [{ try await store.upsert(layer: "water_sources", features: [Self.source("hy1", "消火栓1", status: "待维修")], by: Self.water, at: nil) },
                        { try await store.delete(layer: "water_sources", ids: ["hy1"], by: Self.water, at: nil) }] {
            let e = await #expect(throws: StoreError.self) { try await attempt() }
            #expect(e?.code == .forbidden && e?.message.contains("belongs to 消防救援大队") == true)
        }
        #expect(try await store.feature(layer: "water_sources", id: "hy1", by: .admin)?.properties["status"] == "完好")
        let outsider = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "water_sources", features: [Self.source("x1", "外部")], by: Self.police, at: nil)
        }
        #expect(outsider?.code == .forbidden)

        // Forged ownership: in a new feature, and as a change of its own feature's department.
        let forgedNew = await #expect(throws: StoreError.self) {
            try await store.insert(layer: "water_sources", features: [Self.source("qs2", "取水点2", department: "消防救援大队")], by: Self.water, at: nil)
        }
        #expect(forgedNew?.code == .forbidden && forgedNew?.field == CoBuilding.property)
        let forgedChange = await #expect(throws: StoreError.self) {
            try await store.upsert(layer: "water_sources", features: [Self.source("qs1", "取水码头", department: "消防救援大队")], by: Self.water, at: nil)
        }
        #expect(forgedChange?.code == .forbidden && forgedChange?.field == CoBuilding.property)
        #expect(try await store.feature(layer: "water_sources", id: "qs2", by: .admin) == nil)

        // The owner edits the water authority's feature (its department stays) and transfers another.
        try await store.upsert(layer: "water_sources", features: [Self.source("qs1", "取水码头（东）")], by: Self.fire, at: nil)
        #expect(try await department(store, "qs1") == "水务和湖泊局")
        try await store.insert(layer: "water_sources", features: [Self.source("qs3", "取水点3")], by: Self.water, at: nil)
        try await store.upsert(layer: "water_sources", features: [Self.source("qs3", "取水点3", department: "消防救援大队")], by: Self.fire, at: nil)
        #expect(try await department(store, "qs3") == "消防救援大队")
        let history = try await store.history(layer: "water_sources", featureID: "qs3", by: .admin)
        #expect(history.map { $0.feature.properties[CoBuilding.property]?.stringValue } == ["水务和湖泊局", "消防救援大队"])

        let audit = try await store.auditLog(layer: "water_sources", after: 0, limit: 100, by: Self.fire)
        #expect(audit.filter { $0.kind == .refused }.map(\.department) == ["水务和湖泊局", "水务和湖泊局"])
        #expect(audit.filter { $0.kind == .refused }.map(\.featureID) == ["refused write of qs2: forged owner_department", "refused write of qs1: forged owner_department"])
        #expect(audit.filter { $0.kind == .transfer }.map { [$0.featureID, $0.department ?? ""] } == [["qs3", "消防救援大队"]])
        #expect(try await ManagedRasterStoreTests.chain(store).firstBreak == nil)
        // The transfer is a change subscribers see; the refusals are not.
        let events = try await store.changes(since: 0, limit: 100, by: .admin).filter { $0.layer == "water_sources" }
        #expect(events.map(\.kind) == [.insert, .insert, .update, .update, .insert, .transfer])
    }
}
