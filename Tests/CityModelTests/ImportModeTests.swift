import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import CityModel

/// Issue 14 §7: importing the same file twice must not double a layer; replace and upsert
/// are one transaction each; Shapefile-cut field names can be mapped.
@Suite("Import modes and field maps", .temporaryDirectories)
struct ImportModeTests {
    static func importHydrants(_ store: SpatiaLiteStore, _ file: URL, mode: ImportMode,
                               map: FieldMap = FieldMap()) async throws -> ImportSummary {
        var source = FieldMappedSource(try GeoJSONSource(file: file), map: map, keepsIDProperty: false)
        return try await LayerImport.run(&source, into: try ImportFixtures.layer("hydrants"), store: store, mode: mode)
    }

    static func count(_ store: SpatiaLiteStore) async throws -> Int {
        try await store.count(layer: "hydrants", FeatureQuery(), by: .admin)
    }

    static func write(_ features: [Feature]) throws -> URL {
        let file = try TemporaryDirectory.forTestCase("hydrants").appending("hydrants.geojson")
        try GeoJSON.encode(FeatureCollection(features)).write(to: file)
        return file
    }

    static func hydrant(_ id: String?, main: String, status: String = "完好", x: Double = 114.8) -> Feature {
        Feature(id: id.map { .string($0) }, geometry: .point(x: x, y: 30.84),
                properties: ["main": .string(main), "kind": "地上式", "outlet_mm": 100, "status": .string(status), "road": "齐安大道"])
    }

    @Test("the default refuses a second import of a file without ids, and names the modes; nothing is written")
    func defaultRefusesDoubling() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        let file = ImportFixtures.url("hydrants.geojson")
        #expect(try await Self.importHydrants(store, file, mode: .new).count == 10)
        let error = await #expect(throws: ImportError.self) { _ = try await Self.importHydrants(store, file, mode: .new) }
        #expect(error?.code == .duplicate)
        #expect(error?.reason.contains("--mode replace") == true)
        #expect(error?.location == "feature 1")
        #expect(try await Self.count(store) == 10)
        // Append adds them all on purpose.
        #expect(try await Self.importHydrants(store, file, mode: .append).count == 10)
        #expect(try await Self.count(store) == 20)
    }

    @Test("an id the layer holds is refused by append and the default, naming it; nothing is written")
    func existingIDRefused() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        try await store.insert(layer: "hydrants", features: [Self.hydrant("H-1", main: "WM-1")], by: .admin, at: nil)
        let file = try Self.write([Self.hydrant("H-2", main: "WM-2"), Self.hydrant("H-1", main: "WM-1", status: "待维修")])
        for mode in [ImportMode.new, .append] {
            let error = await #expect(throws: ImportError.self) { _ = try await Self.importHydrants(store, file, mode: mode) }
            #expect(error?.code == .duplicate)
            #expect(error?.reason.contains("H-1") == true, "\(error?.reason ?? "")")
        }
        #expect(try await Self.count(store) == 1)
        // New ids go in with the default.
        #expect(try await Self.importHydrants(store, try Self.write([Self.hydrant("H-3", main: "WM-3")]), mode: .new).count == 1)
        #expect(try await Self.count(store) == 2)
    }

    @Test("replace makes the file the layer in one transaction: kept ids updated, missing ones ended, new ones added")
    func replace() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        try await store.insert(layer: "hydrants", features: [Self.hydrant("H-1", main: "WM-1"), Self.hydrant("H-2", main: "WM-2")],
                               by: .admin, at: nil)
        let before = try await store.changes(since: 0, limit: 100, by: .admin).count
        let file = try Self.write([Self.hydrant("H-2", main: "WM-2", status: "待维修"), Self.hydrant("H-3", main: "WM-3")])
        #expect(try await Self.importHydrants(store, file, mode: .replace).count == 2)
        let ids = try await store.query(layer: "hydrants", FeatureQuery(), by: .admin).features.compactMap { $0.id?.description }
        #expect(ids.sorted() == ["H-2", "H-3"])
        #expect(try await store.feature(layer: "hydrants", id: "H-2", by: .admin)?.properties["status"] == "待维修")
        // H-1 ended, H-2 updated, H-3 inserted; H-1's history stays.
        #expect(try await store.changes(since: 0, limit: 100, by: .admin).count == before + 3)
        #expect(try await store.history(layer: "hydrants", featureID: "H-1", by: .admin).count == 1)
        // A failing row replaces nothing.
        var bad = Self.hydrant("H-9", main: "WM-9")
        bad.properties["outlet_mm"] = "wide"
        await #expect(throws: ImportError.self) { _ = try await Self.importHydrants(store, try Self.write([bad]), mode: .replace) }
        #expect(try await Self.count(store) == 2)
    }

    @Test("upsert by a key field replaces the matching features (keeping their ids) and adds the rest")
    func upsertByKey() async throws {
        let store = try await ImportFixtures.store(["hydrants"])
        try await store.insert(layer: "hydrants", features: [Self.hydrant("H-1", main: "WM-1"), Self.hydrant("H-2", main: "WM-2")],
                               by: .admin, at: nil)
        let file = try Self.write([Self.hydrant(nil, main: "WM-2", status: "待维修"), Self.hydrant(nil, main: "WM-5")])
        #expect(try await Self.importHydrants(store, file, mode: .upsert(key: "main")).count == 2)
        #expect(try await Self.count(store) == 3)
        #expect(try await store.feature(layer: "hydrants", id: "H-2", by: .admin)?.properties["status"] == "待维修")
        // The same file again changes nothing.
        #expect(try await Self.importHydrants(store, file, mode: .upsert(key: "main")).count == 2)
        #expect(try await Self.count(store) == 3)
        // A key twice in the file, or missing, is refused.
        let twice = try Self.write([Self.hydrant(nil, main: "WM-7"), Self.hydrant(nil, main: "WM-7")])
        let error = await #expect(throws: ImportError.self) { _ = try await Self.importHydrants(store, twice, mode: .upsert(key: "main")) }
        #expect(error?.field == "main")
        #expect(try await Self.count(store) == 3)
        // By id: features without one are refused.
        await #expect(throws: ImportError.self) { _ = try await Self.importHydrants(store, file, mode: .upsert(key: "id")) }
    }

    @Test("a field map renames cut source fields (a DBF's 10 characters) and can set the feature id")
    func fieldMap() async throws {
        let map = try FieldMap(parsing: "outlet_dia=outlet_mm, hydrant_no=id")
        #expect(map.renames == ["outlet_dia": "outlet_mm", "hydrant_no": "id"])
        var f = Self.hydrant(nil, main: "WM-1")
        f.properties["outlet_dia"] = f.properties.removeValue(forKey: "outlet_mm")
        f.properties["hydrant_no"] = "HN-7"
        let store = try await ImportFixtures.store(["hydrants"])
        // Without the map the required field is missing.
        await #expect(throws: ImportError.self) { _ = try await Self.importHydrants(store, try Self.write([f]), mode: .new) }
        #expect(try await Self.importHydrants(store, try Self.write([f]), mode: .new, map: map).count == 1)
        let stored = try #require(try await store.feature(layer: "hydrants", id: "HN-7", by: .admin))
        #expect(stored.properties["outlet_mm"] == 100)
        #expect(stored.properties["outlet_dia"] == nil && stored.properties["hydrant_no"] == nil)
        // Bad maps name the pair; a target the layer lacks names the layer's fields.
        for bad in ["a", "a=", "=b", "a=b,a=c", "a=b,c=b"] {
            #expect(throws: ImportError.self, "\(bad)") { try FieldMap(parsing: bad) }
        }
        let error = #expect(throws: ImportError.self) { try FieldMap(parsing: "x=diameter").check(against: try ImportFixtures.layer("hydrants")) }
        #expect(error?.reason.contains("outlet_mm") == true)
    }

    @Test("--mode and --key parse; --key needs upsert")
    func modeNames() throws {
        #expect(try ImportMode(name: nil, key: nil) == .new)
        #expect(try ImportMode(name: "replace", key: nil) == .replace)
        #expect(try ImportMode(name: "upsert", key: nil) == .upsert(key: "id"))
        #expect(try ImportMode(name: "upsert", key: "main") == .upsert(key: "main"))
        #expect(throws: ImportError.self) { try ImportMode(name: "merge", key: nil) }
        #expect(throws: ImportError.self) { try ImportMode(name: "append", key: "main") }
        #expect(throws: ImportError.self) { try ImportMode(name: nil, key: "main") }
    }
}
