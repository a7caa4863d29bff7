import Foundation
import GeoCore
import Testing
@testable import FloodSim

/// A coupled run whose caller gives up (a dismissed `flood-scenario` job) stops at the next
/// exchange and returns nothing. The street and pipes are `CoupledFloodTests`' surcharging plane;
/// with 10 s exchanges over 600 s every exchange is reported, so reports count exchanges.
@Suite("Coupled 1D–2D flood cancellation")
struct CoupledFloodCancellationTests {
    /// Exchanges reported so far, shared with the cancellation check.
    final class ExchangeCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.lock(); count += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    static func run() throws -> CoupledFlood {
        try CoupledFlood(network: CoupledFloodTests.network(inflow: 0.15), surface: CoupledFloodTests.plane(), links: CoupledFloodTests.links,
                         duration: 600, settings: .init(couplingInterval: 10, surface: SurfaceFlowSettings(threads: 1)))
    }

    @Test("cancelled before it starts, a run does no exchange")
    func cancelledBeforeStart() throws {
        let exchanges = ExchangeCount()
        #expect(throws: CancellationError.self) {
            try Self.run().run(isCancelled: { true }) { _ in exchanges.increment() }
        }
        #expect(exchanges.value == 0)
    }

    @Test("cancelled after N exchanges, a run stops at N", arguments: [1, 7])
    func cancelledAfterExchanges(limit: Int) throws {
        let exchanges = ExchangeCount()
        #expect(throws: CancellationError.self) {
            try Self.run().run(isCancelled: { exchanges.value >= limit }) { _ in exchanges.increment() }
        }
        #expect(exchanges.value == limit)
    }

    @Test("a run never cancelled reports every exchange and matches an uncancellable run")
    func notCancelled() throws {
        let exchanges = ExchangeCount()
        let result = try Self.run().run(isCancelled: { false }) { _ in exchanges.increment() }
        #expect(result.intervals == 60 && exchanges.value == 60)
        let plain = try Self.run().run()
        #expect(plain.balance == result.balance)
    }
}
