import Foundation
import Testing
import TestSupport

/// `serve`'s heap under requests to PostGIS one after another (issue 57). Each request leases a
/// pool connection and gives it back; postgres-nio used to arm two 30-second timers (keep-alive,
/// idle timeout) every time a connection came back idle and cancel them at the next lease, and a
/// cancelled `Task.sleep` keeps its task and dispatch timer allocated until it would have been due
/// (swiftlang/swift#60441): 30 s of requests' timers stayed in the heap, 40–55 MiB under the load
/// benchmark. The pool now arms only the idle timeout, of 5 s (`PostGISStore.clientConfiguration`).
@Suite("PostGIS pool: a connection given back holds its timer's memory for 5 s at most (issue 57)", .serialized, .temporaryDirectories,
       .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
struct PoolParkingMemoryTests {
    /// Requests before the measure (start-up's lazy work, caches, the pool's connections).
    static let warmUp = 500
    /// Requests measured, at `rate` a second (15 s): with two 30-second timers a park they held
    /// about 1.5 KB each, 4.4 MB; with one of 5 s, 5 s of them (about 0.7 MB) at most.
    static let measured = 3000
    static let rate = 200
    /// What the measured requests may add to `serve`'s anonymous memory.
    static let boundKiB = 2048

    @Test("3,000 page requests one after another (200 a second) add less than 2 MiB to serve's anonymous memory (4.4 MB with two 30 s timers a request)")
    func parkedConnectionsHoldLittle() async throws {
        try await PrivatePostgres.with { pg in
            let server = try await OutageHarness.serve(pg)
            defer { server.kill() }
            let base = try #require(server.baseURL)
            // One curl, one keep-alive connection, the requests one after another: every answer
            // gives the connection back to an idle pool.
            let config = try TemporaryDirectory.forTestCase("pool-parking").url.appendingPathComponent("curl.config")
            func send(_ n: Int) async throws {
                let text = (0..<n).map { i in "url = \"\(base)/collections/shelters/items?limit=\(1 + i % 3)\"\noutput = \"/dev/null\"\n" }.joined()
                try text.write(to: config, atomically: true, encoding: .utf8)
                let curl = try await CommandProcess.run("/usr/bin/curl", ["-s", "--noproxy", "*", "--rate", "\(Self.rate)/s", "-w", "%{http_code}\\n", "--config", config.path],
                                                        within: 600)
                let statuses = curl.output.split(separator: "\n")
                #expect(curl.exitStatus == 0 && statuses.count == n && statuses.allSatisfy { $0 == "200" },
                        "curl exit \(curl.exitStatus), \(statuses.count) answers, \(Set(statuses))")
            }
            try await send(Self.warmUp)
            let before = try Self.anonymousKiB(server.processIdentifier)
            let start = ContinuousClock.now
            try await send(Self.measured)
            let after = try Self.anonymousKiB(server.processIdentifier)
            let seconds = Double((ContinuousClock.now - start).components.seconds)
            #expect(after - before < Self.boundKiB,
                    "\(Self.measured) requests in \(Int(seconds)) s added \(after - before) KiB (\(before) → \(after) KiB anonymous)")
        }
    }

    /// `RssAnon` of process `pid` in KiB: its heap, thread stacks and other anonymous mappings in memory.
    static func anonymousKiB(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw HarnessFailure("no RssAnon in /proc/\(pid)/status")
        }
        return kib
    }
}
