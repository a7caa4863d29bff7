import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
@testable import Geocoding

/// The geocoder's records in columns (issue 57: the address index is bounded, not 1.5 KB an address):
/// every record reads back exactly as given, in any input order, and the index is small.
@Suite("Address index columns", .temporaryDirectories)
struct AddressTableTests {
    static func districtRecords() throws -> [AddressRecord] {
        try generatedDistrict()[layer: "addresses"].map(AddressRecord.init(feature:))
    }

    @Test("every record reads back field for field: codes, parents, names, full addresses, former names, points, retired ones")
    func roundTrip() throws {
        var records = try Self.districtRecords()
        // Full addresses the tree cannot derive, former names, and a retired record, besides the sample's own.
        records[5].fullAddress = "湖北省武汉市" + records[5].fullAddress
        records[7].formerNames = ["旧名一", "旧名二"]
        records[9].inUse = false
        let geocoder = try AddressGeocoder(records: records)
        #expect(geocoder.count == records.count)
        #expect(Array(geocoder.records) == records)
        for r in records.prefix(200) { #expect(geocoder.record(code: r.code) == r) }
        #expect(geocoder.record(code: "no such code") == nil)
    }

    @Test("children listed before their parents are linked, and every answer is the same as in tree order")
    func anyOrder() throws {
        let records = try Self.districtRecords()
        var shuffled = records
        var rng = SplitMix64(seed: 57)
        shuffled.shuffle(using: &rng)
        let ordered = try AddressGeocoder(records: records), mixed = try AddressGeocoder(records: shuffled)
        #expect(Set(mixed.records) == Set(records))
        for r in records.filter({ $0.inUse }).prefix(400) {
            let a = ordered.geocode(r.fullAddress), b = mixed.geocode(r.fullAddress)
            #expect(a?.code == b?.code && a?.level == b?.level && a?.confidence == b?.confidence, "\(r.fullAddress)")
            #expect(a?.record == b?.record)
        }
    }

    @Test("the index takes under 200 bytes an address (an array of records took about 1.5 KB)")
    func small() throws {
        let geocoder = try districtGeocoder.get()
        let perRecord = Double(geocoder.memoryBytes) / Double(geocoder.count)
        #expect(perRecord < 200, "\(perRecord) bytes an address")
    }

    @Test("an index larger than its bound is not built, and the refusal names the option")
    func bounded() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["addresses"], in: .forTestCase("address-bound"))
        let small = AddressGeocoders()
        small.setMemoryLimit(64 << 10)
        let error = await #expect(throws: ScenarioError.self) { _ = try await small.geocoder(for: store, by: .admin) }
        #expect(error?.message.contains("--address-index-memory") == true, "\(String(describing: error))")
        let enough = AddressGeocoders()
        enough.setMemoryLimit(AddressGeocoders.defaultMemoryLimit)
        #expect(try await enough.geocoder(for: store, by: .admin).count > 0)
    }
}
