import Foundation
import GeoCore
import Testing
import TwinStore

/// The city's record (issue 52 §4): its metric CRS chosen from where its data lies and kept in the
/// store on both backends, recorded by the admin only and once (`recordIfAbsent`), every write an
/// entry of the one audit chain; a store without a record answers with the zone of its extent.
@Suite("The city's record in the store", .dropsTestSchemas)
struct CityRecordStoreTests {
    @Test("the metric CRS of a store without a record is the zone of its data; recorded once by the admin, kept, one audit entry, chain intact",
          arguments: StoreBackend.available)
    func recordedOnce(_ backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let records = try #require(store as? any CityRecords)
        #expect(try await records.cityRecord() == nil)
        #expect(try await CityRecord.metricCRS(of: store) == nil)
        #expect(try await CityRecord.recordIfAbsent(in: store, name: "empty", by: .admin) == nil)

        // Helsinki's centre, 24.94°E 60.17°N: UTM zone 35N.
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("h1", 24.94, 60.17, name: "Kamppi")], by: Fixtures.emergency, at: nil)
        #expect(try await CityRecord.metricCRS(of: store) == CoordinateReferenceSystem(epsg: 32635))

        let editor = await #expect(throws: StoreError.self) {
            try await records.recordCity(CityRecord(name: "Helsinki", metricCRS: CoordinateReferenceSystem(epsg: 32635), by: Fixtures.emergency),
                                         by: Fixtures.emergency)
        }
        #expect(editor?.code == .forbidden)
        let before = try await ManagedRasterStoreTests.chain(store).entries
        let written = try #require(try await CityRecord.recordIfAbsent(in: store, name: "Helsinki", by: .admin))
        #expect(written.name == "Helsinki" && written.metricCRS == "EPSG:32635" && written.recordedBy == Caller.admin.author)
        #expect(try await records.cityRecord() == written)
        let after = try await ManagedRasterStoreTests.chain(store)
        #expect(after.entries == before + 1 && after.firstBreak == nil)

        // Data added later far away does not move the recorded city into another zone.
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("w1", 114.36, 30.55, name: "东湖")], by: Fixtures.emergency, at: nil)
        #expect(try await CityRecord.recordIfAbsent(in: store, name: "other", by: .admin) == nil)
        #expect(try await CityRecord.metricCRS(of: store) == CoordinateReferenceSystem(epsg: 32635))
        #expect(try await CityRecord.metricCRS(of: store, orZoneOf: [Envelope(minX: 114, minY: 30, maxX: 115, maxY: 31)])
                == CoordinateReferenceSystem(epsg: 32635))
    }

    @Test("a store without a record takes the Gauss–Krüger zone inside China from the extents given, nil without any")
    func zoneOfExtents() async throws {
        let store = try await StoreBackend.spatiaLite.makeStore()
        #expect(try await CityRecord.metricCRS(of: store, orZoneOf: []) == nil)
        let wuhan = Envelope(minX: 114.1, minY: 30.4, maxX: 114.6, maxY: 30.7)
        #expect(try await CityRecord.metricCRS(of: store, orZoneOf: [wuhan]) == CoordinateReferenceSystem.districtMetric)
        let nan = Envelope(minX: .nan, minY: .nan, maxX: .nan, maxY: .nan)
        #expect(try await CityRecord.metricCRS(of: store, orZoneOf: [nan, wuhan]) == CoordinateReferenceSystem.districtMetric)
    }
}
