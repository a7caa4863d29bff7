import Foundation
import Testing
import TwinStore

/// Issue 78 §1–2: the sandbox's releases kept in the store, per department and layer, read by size
/// and recorded only at the head read, so two servers deciding at once cannot both pass unseen.
@Suite("The disclosure ledger of sandbox releases", .dropsTestSchemas)
struct DisclosureLedgerTests {
    static let day: TimeInterval = 86_400

    @Test("releases are read back by size range, per department and layer, within the window; a stale head records nothing",
          arguments: StoreBackend.available)
    func ledger(_ backend: StoreBackend) async throws {
        let store = try #require(try await backend.makeStore() as? any DisclosureLedger)
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let a = ReleasedSet(members: [5, 1, 3, 3, 9, 7], releasedAt: now, label: "a: five records")
        let b = ReleasedSet(members: Array(100..<140), releasedAt: now, label: "b: forty records")
        #expect(a.members == [1, 3, 5, 7, 9])

        let empty = try await store.releases(requester: "民政局", layer: "population", since: now - Self.day, sizes: [1...1_000])
        #expect(empty.head == 0 && empty.sets.isEmpty)
        #expect(try await store.recordReleases([a, b], requester: "民政局", layer: "population", expecting: 0, pruneBefore: now - 365 * Self.day))
        // Recording again at the head already passed writes nothing: the other decider must read again.
        #expect(try await !store.recordReleases([a], requester: "民政局", layer: "population", expecting: 0, pruneBefore: now - 365 * Self.day))

        let small = try await store.releases(requester: "民政局", layer: "population", since: now - Self.day, sizes: [1...9, 3...6])
        #expect(small.head == 1 && small.sets.map(\.members) == [a.members] && small.sets.first?.label == a.label)
        let both = try await store.releases(requester: "民政局", layer: "population", since: now - Self.day, sizes: [4...6, 36...44])
        #expect(Set(both.sets.map(\.size)) == [5, 40])
        // Another department's and another layer's ledgers are their own.
        #expect(try await store.releases(requester: "卫生健康局", layer: "population", since: now - Self.day, sizes: [1...100]).sets.isEmpty)
        #expect(try await store.releases(requester: "民政局", layer: "water", since: now - Self.day, sizes: [1...100]).sets.isEmpty)
        // Outside the window a release is not read, and the next record prunes it.
        #expect(try await store.releases(requester: "民政局", layer: "population", since: now + 1, sizes: [1...100]).sets.isEmpty)
        let later = ReleasedSet(members: [42, 43, 44, 45, 46], releasedAt: now + 400 * Self.day, label: "later")
        #expect(try await store.recordReleases([later], requester: "民政局", layer: "population", expecting: 1, pruneBefore: now + 35 * Self.day))
        let kept = try await store.releases(requester: "民政局", layer: "population", since: .distantPast, sizes: [1...100])
        #expect(kept.head == 2 && kept.sets.map(\.label) == ["later"])
    }

    @Test("the symmetric difference of two releases, counted no further than needed")
    func difference() {
        #expect(ReleasedSet.symmetricDifference([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], limit: 5) == 0)
        #expect(ReleasedSet.symmetricDifference([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5], limit: 5) == 1)
        #expect(ReleasedSet.symmetricDifference([1, 2, 3, 4, 9], [1, 2, 3, 4, 5], limit: 5) == 2)
        #expect(ReleasedSet.symmetricDifference([1, 2], Array(1...40), limit: 5) == 5)
        #expect(ReleasedSet.symmetricDifference(Array(1...40), Array(3...42), limit: 5) == 4)
        #expect(ReleasedSet.symmetricDifference(Array(1...40), Array(11...50), limit: 5) == 5)
    }
}
