import CityModel
import Foundation
import GeoCore
import TestSupport
import Testing
import TwinStore
@testable import Geocoding

/// The address index's lifecycle (issue 57): built before the first request, one for every
/// reader who sees the same addresses, and after a change answered by the previous index,
/// marked, while the new one builds; a caller that cannot wait for nothing gets the new one.
@Suite("Address index lifecycle", .temporaryDirectories)
struct AddressIndexTests {
    @Test("built at start and shared by every reader; after a change the previous index answers, marked, until the new one is built")
    func lifecycle() async throws {
        let (store, _, district) = try await EmergencyDistrict.makeStore(["addresses"], in: .forTestCase("address-index"))
        let index = AddressGeocoders()
        let reader = EmergencyDistrict.emergencyBureau
        // As serve does at start: the administrator's view, built before any request.
        _ = try await index.geocoder(for: store, by: .admin)

        // A leaf of the address tree (no record names it as parent), found by its full address.
        let addresses = district[layer: "addresses"]
        let parents = Set(addresses.compactMap { $0.properties["parent_code"]?.stringValue })
        func leaf(_ level: String) -> Feature? {
            addresses.first { f in
                guard let id = f.id?.description else { return false }
                return !parents.contains(id) && f.properties["level"]?.stringValue == level
            }
        }
        let leaf = try #require(leaf("门牌") ?? leaf("楼栋"))
        let code = try #require(leaf.id?.description)
        let text = try #require(leaf.properties["full_address"]?.stringValue)

        // The department shares the administrator's index built at start: nothing to rebuild.
        let first = try await index.lookup(for: store, by: reader, acceptingPrevious: true)
        #expect(!first.rebuilding)
        #expect(first.geocoder.geocode(text)?.code == code)

        // The door plate is removed: the next answer comes from the previous index, marked.
        try await store.delete(layer: AddressGeocoders.layer, ids: [code], by: Caller.admin, at: nil)
        let during = try await index.lookup(for: store, by: reader, acceptingPrevious: true)
        #expect(during.rebuilding)
        #expect(during.geocoder.geocode(text)?.code == code)
        // A caller that waits (the geocoding process) gets the index without it.
        let fresh = try await index.geocoder(for: store, by: reader)
        #expect(fresh.geocode(text)?.code != code)
        let settled = try await index.lookup(for: store, by: reader, acceptingPrevious: true)
        #expect(!settled.rebuilding)
        #expect(settled.geocoder.geocode(text)?.code != code)
    }

    @Test("a caller who may not read the standard addresses gets no index, even once it is built")
    func unreadable() async throws {
        let (store, _, _) = try await EmergencyDistrict.makeStore(["addresses"], in: .forTestCase("address-index"))
        let index = AddressGeocoders()
        _ = try await index.geocoder(for: store, by: .admin)
        await #expect(throws: (any Error).self) {
            _ = try await index.lookup(for: store, by: .anonymous, acceptingPrevious: true)
        }
    }
}
