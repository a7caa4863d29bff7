import Foundation
import GeoCore
import Testing
import TwinStore

/// Issue 54 §6: a sandbox query answered or refused is an entry of the layer's audit log, in the
/// one chain, on both backends, and changes nothing: not the change feed, not the layer's last change.
@Suite("Audited acts that change no feature", .dropsTestSchemas)
struct AccessJournalTests {
    @Test("an access and a refusal are audit entries of the layer for its owner, chained, outside the change feed",
          arguments: StoreBackend.available)
    func accessEntries(_ backend: StoreBackend) async throws {
        let store = try await backend.makeStore()
        let journal = try #require(store as? any AccessJournal)
        try await store.insert(layer: "shelters", features: [Fixtures.shelter("s1", 114.36, 30.55, name: "东湖")], by: Fixtures.emergency, at: nil)
        let feedBefore = try await store.latestChange()
        let lastChangeBefore = try await store.layers(for: .admin).first { $0.definition.id == "shelters" }?.lastChange
        let chainBefore = try await ManagedRasterStoreTests.chain(store).entries

        let analyst = Caller.department(name: "民政局", role: .viewer, user: "王分析")
        try await journal.recordAccess(layer: "shelters", subject: "sandbox: count by grid 500 m", detail: "shelters\ncount", kind: .access, by: analyst)
        try await journal.recordAccess(layer: "shelters", subject: "sandbox: count where id = 's1'", detail: "shelters\nid", kind: .refused, by: analyst)
        let refused = await #expect(throws: StoreError.self) {
            try await journal.recordAccess(layer: "shelters", subject: "x", detail: "x", kind: .update, by: analyst)
        }
        #expect(refused?.code == .invalidFeature)

        let entries = try await store.auditLog(layer: "shelters", after: 0, limit: 100, by: Fixtures.emergency)
        let acts = entries.filter { !$0.kind.changesData }
        #expect(acts.map(\.kind) == [.access, .refused])
        #expect(acts.map(\.featureID) == ["sandbox: count by grid 500 m", "sandbox: count where id = 's1'"])
        #expect(acts.allSatisfy { $0.department == "民政局" && $0.actor == "王分析" && $0.role == "viewer" })
        let chain = try await ManagedRasterStoreTests.chain(store)
        #expect(chain.entries == chainBefore + 2 && chain.firstBreak == nil)
        // Nothing changed: no change event, the same last change of the layer.
        #expect(try await store.changes(since: feedBefore, limit: 10, by: .admin).isEmpty)
        #expect(try await store.layers(for: .admin).first { $0.definition.id == "shelters" }?.lastChange == lastChangeBefore)
    }
}
