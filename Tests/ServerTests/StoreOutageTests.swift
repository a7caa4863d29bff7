import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `citytwin serve` and `citytwin worker`, run as an orchestrator runs them, while
/// their PostgreSQL is stopped (fast: sessions terminated; immediate: like a crash) and started
/// again (issue 23). The suite's PostgreSQL is its own (data directory and port), so stopping it
/// disturbs no other test. Bounds are client timeouts (`curl -m`, a wait for the process to
/// exit), as an orchestrator's health check and stop have: a server that hangs fails them.
@Suite("Store outage: serve and worker with PostgreSQL stopped and started again", .serialized, .temporaryDirectories,
       .enabled(if: OutageHarness.enabled, "needs PostgreSQL (CITYTWIN_TEST_POSTGRES_URL, as Scripts/test.sh sets)"))
struct StoreOutageTests {
    /// What the commands are given: short waits, so the test is quick; the defaults are longer.
    static let storeTimeout = 2.0
    static let shutdownGrace = 3.0
    /// How long a request may take before the client gives up: the store timeout plus a margin
    /// for a loaded machine (the server must have answered 503 by then).
    static let requestLimit = storeTimeout + 6
    /// `/health` promises an answer within a second; the client allows three.
    static let healthLimit = 3.0
    /// How long the server may take to answer 200 again once PostgreSQL is back: PostgreSQL's own
    /// crash recovery after an immediate stop, then the pool's reconnect. A minute was not enough
    /// with the whole suite on two cores (seen once); the test is that it comes back, not how fast.
    static let recoveryLimit = 180.0
    /// How long a stopped process may take to exit: its grace period plus a margin.
    static let exitLimit = shutdownGrace + 6

    static let area: String = """
        {"inputs": {"layer": "shelters", "area": {"type": "Polygon", "coordinates": [[[114.79, 30.83], [114.82, 30.83], [114.82, 30.86], [114.79, 30.86], [114.79, 30.83]]]}}}
        """

    @Test("serve: /health says degraded within a second, feature, tile and process requests answer 503 with Retry-After, and the server answers again once PostgreSQL is back (fast and immediate stops)")
    func serveThroughOutages() async throws {
        try await PrivatePostgres.with { pg in
            let server = try await OutageHarness.serve(pg)
            defer { server.kill() }
            let items = "/collections/shelters/items?limit=5"
            let tile = "/collections/shelters/tiles/WebMercatorQuad/15/13430/26833"
            #expect(try await server.http(items).status == 200)

            for mode in ["fast", "immediate"] {
                try await pg.stop(mode)
                let health = try #require(try await server.http("/health", within: Self.healthLimit),
                                          "/health did not answer within \(Self.healthLimit) s with PostgreSQL stopped (\(mode))")
                #expect(health.status == 503)
                #expect(health.body.contains("degraded: the store is unreachable"), "\(health.body)")
                #expect(health.headers["retry-after"] == "5")
                for (method, path) in [("GET", items), ("GET", tile), ("POST", "/processes/features-in-area/execution")] {
                    let r = try #require(try await server.http(path, method: method, body: method == "POST" ? Self.area : nil,
                                                              within: Self.requestLimit),
                                         "\(method) \(path) did not answer within \(Self.requestLimit) s with PostgreSQL stopped (\(mode))")
                    #expect(r.status == 503, "\(method) \(path): \(r.status) \(r.body)")
                    #expect(r.headers["retry-after"] == "5", "\(method) \(path)")
                    #expect(r.headers["content-type"] == "application/problem+json", "\(method) \(path)")
                    #expect(r.body.contains("https://citytwin.dev/problems/store-unavailable"), "\(method) \(path): \(r.body)")
                }

                try await pg.start()
                // No restart of the server: it answers normally once PostgreSQL does.
                try await OutageHarness.eventually("/health answers 200 after PostgreSQL is back (\(mode))", within: Self.recoveryLimit) {
                    try await server.http("/health", within: Self.healthLimit)?.status == 200
                }
                #expect(try await server.http(items).status == 200)
                #expect([200, 204].contains(try await server.http(tile).status))  // 204: the layer has no shelters there
            }
        }
    }

    @Test("requests in flight when PostgreSQL restarts (fast, then immediate) answer 200, 201 or 503 within seconds, never hang; every acknowledged write is kept; the server answers again within 5 s of the database")
    func inFlightThroughRestarts() async throws {
        try await PrivatePostgres.with { pg in
            // Scripts/postgis.sh acknowledges commits before their WAL is written (fast tests): an
            // immediate restart would lose the last ones, whatever the server does. Durable here.
            _ = try await psqlValue(pg.url, "ALTER DATABASE citytwin SET synchronous_commit = on")
            let server = try await OutageHarness.serve(pg)
            defer { server.kill() }
            let token = try await OutageHarness.editorToken(pg.url)
            for mode in ["fast", "immediate"] {
                try await Self.inFlightThroughRestart(mode, pg: pg, server: server, token: token)
            }
        }
    }

    static func inFlightThroughRestart(_ mode: String, pg: PrivatePostgres, server: CommandProcess, token: String) async throws {
        let items = "/collections/shelters/items?limit=5"
        let waiting = "/collections/shelters/items?limit=6"
        #expect(try await server.http(items).status == 200)
        // Reads waiting inside PostgreSQL on a lock when the restart comes (in flight for sure),
        // and readers and writers going on through it.
        let lock = try await LayerLock.hold("shelters", in: pg.url)
        defer { lock.abandon() }
        let log = OutageHarness.RequestLog()
        let end = ContinuousClock.now + .seconds(4)
        var dbBack = ContinuousClock.now, restart = 0.0
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask { try await log.send(server, "GET", waiting) }
            }
            try await Task.sleep(for: .milliseconds(500))
            for reader in 0..<3 {
                group.addTask {
                    // At least one request each: on a loaded machine the pause above can outlast `end`.
                    repeat { try await log.send(server, "GET", reader == 0 ? "/collections/shelters/tiles/WebMercatorQuad/15/13430/26833" : items) }
                    while ContinuousClock.now < end
                }
            }
            for writer in 0..<2 {
                group.addTask {
                    var n = 0
                    repeat {
                        n += 1
                        try await log.send(server, "POST", "/collections/shelters/items", id: "restart-\(mode)-\(writer)-\(n)", token: token)
                    } while ContinuousClock.now < end
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let began = ContinuousClock.now
            try await pg.restart(mode)
            dbBack = .now
            restart = (dbBack - began).seconds
            try await group.waitForAll()
        }
        // Back within 5 s of PostgreSQL accepting connections, with no restart of the server.
        let back = try await OutageHarness.firstSuccess(of: items, on: server, within: 5)
        #expect(back, "no 200 for \(items) within 5 s of PostgreSQL accepting connections again (\(mode))")
        let requests = log.all
        #expect(requests.count >= 5)
        for r in requests {
            #expect(r.status.map { [200, 201, 204, 503].contains($0) } == true,
                    "\(r.method) \(r.path): \(r.status.map(String.init) ?? "no answer within \(OutageHarness.RequestLog.limit) s") (\(mode))")
            // Never a hang: answered within the store timeout (+3 s) of its start, or of PostgreSQL
            // accepting connections again (a read waiting inside PostgreSQL ends only when the
            // restart terminates its session; pg_ctl took seconds on a fresh machine).
            #expect(r.seconds > 0, "curl's time for \(r.method) \(r.path) was not read")
            let late = (r.ended - dbBack).seconds
            #expect(r.seconds < StoreOutageTests.storeTimeout + 3 || late < StoreOutageTests.storeTimeout + 3,
                    "\(r.method) \(r.path) took \(r.seconds) s, \(late) s after PostgreSQL was back (restart took \(restart) s, \(mode))")
            if r.status == 503 { #expect(r.retryAfter == "5", "\(r.method) \(r.path): 503 without Retry-After") }
        }
        // Every write the server acknowledged is there; none it refused is half there.
        for r in requests where r.method == "POST" {
            let id = try #require(r.id)
            let stored = try await server.http("/collections/shelters/items/\(id)").status
            if r.status == 201 { #expect(stored == 200, "acknowledged write \(id) lost (\(mode))") }
        }
        // The reads that waited on the lock answered: 503 when the restart cut them off inside
        // PostgreSQL, 200 when one was still waiting for a connection and ran after the restart
        // (the lock went with it). Never a hang, never another status.
        let cut = requests.filter { $0.path == waiting }
        #expect(cut.count == 3)
        for r in cut { #expect(r.status == 503 || r.status == 200, "a read waiting on the lock got \(r.status.map(String.init) ?? "no answer") (\(mode))") }
    }

    @Test("serve exits within its grace period on SIGTERM and SIGINT, with PostgreSQL stopped (fast, immediate) and with it running, a request waiting on the store meanwhile",
          arguments: [(SIGTERM, "immediate"), (SIGINT, "fast"), (SIGTERM, "running")])
    func serveStops(signal: Int32, database: String) async throws {
        try await PrivatePostgres.with { pg in
            let server = try await OutageHarness.serve(pg)
            defer { server.kill() }
            if database != "running" { try await pg.stop(database) }
            // A request in flight when the signal comes (with the database stopped, it waits on the store).
            let waiting = Task { try? await server.http("/collections/shelters/items?limit=5", within: 60) }
            try await Task.sleep(for: .milliseconds(300))
            server.signal(signal)
            let exited = await server.waitForExit(within: Self.exitLimit)
            #expect(exited, "citytwin serve still running \(Self.exitLimit) s after signal \(signal) (PostgreSQL \(database))")
            #expect(server.exitStatus == 0, "\(server.output)")
            waiting.cancel()
        }
    }

    @Test("serve finishes a request in flight when SIGTERM comes, then exits")
    func serveFinishesRequestInFlight() async throws {
        try await PrivatePostgres.with { pg in
            // A statement may wait on the lock longer than the outage tests' 2 s store time limit, and
            // on a loaded machine this test's own pauses stretch past a short grace (its tasks wait
            // for a thread; a full CI run once held it 30 s between the signal and its next look, and
            // the server, rightly, cancelled the request when its 30 s grace ran out): this test is
            // about a request in flight being finished, so both are long. The server still exits as
            // soon as that request ends.
            let server = try await OutageHarness.serve(pg, storeTimeout: 150, grace: 150)
            defer { server.kill() }
            let lock = try await LayerLock.hold("shelters", in: pg.url)
            defer { lock.abandon() }
            // The request waits inside PostgreSQL on the lock when the signal comes.
            let inFlight = Task { try await server.http("/collections/shelters/items?limit=5", within: 160) }
            // Signal only once the request waits on the lock inside PostgreSQL (a fixed pause is not
            // enough on a loaded machine: the signal could come before the request arrives).
            try await OutageHarness.eventually("the request waits on the lock") {
                try await psqlValue(pg.url, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name NOT LIKE 'citytwin-test-lock-%'") != "0"
            }
            server.signal(SIGTERM)
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.isRunning, "citytwin serve exited with a request in flight, before its grace period: \(server.output)")
            try await lock.release()
            let response = try await inFlight.value
            #expect(response?.status == 200, "the request in flight when SIGTERM came got \(response.map { String($0.status) } ?? "no answer")")
            #expect(await server.waitForExit(within: Self.exitLimit), "citytwin serve still running after the request in flight ended")
            #expect(server.exitStatus == 0, "\(server.output)")
        }
    }

    @Test("worker: outlives fast and immediate stops of PostgreSQL, runs jobs again once it is back, and exits within its grace period on SIGTERM and SIGINT while PostgreSQL is stopped")
    func workerThroughOutages() async throws {
        try await PrivatePostgres.with { pg in
            let server = try await OutageHarness.serve(pg)
            defer { server.kill() }
            let worker = try await OutageHarness.worker(pg)
            defer { worker.kill() }
            try await OutageHarness.expectJobRuns(on: server, by: worker)

            for mode in ["fast", "immediate"] {
                try await pg.stop(mode)
                try await Task.sleep(for: .seconds(Self.storeTimeout + 1))  // the worker looks for jobs meanwhile
                #expect(worker.isRunning, "the worker exited during the outage (\(mode)): \(worker.output)")
                try await pg.start()
                try await OutageHarness.eventually("/health answers 200 after PostgreSQL is back (\(mode))", within: Self.recoveryLimit) {
                    try await server.http("/health", within: Self.healthLimit)?.status == 200
                }
                try await OutageHarness.expectJobRuns(on: server, by: worker)
            }

            try await Self.expectStop(worker, signal: SIGTERM, database: pg, stopped: "immediate")
            #expect(worker.output.contains("the store is unreachable"), "\(worker.output)")

            try await pg.start()
            let second = try await OutageHarness.worker(pg)
            defer { second.kill() }
            try await OutageHarness.expectJobRuns(on: server, by: second)
            try await Self.expectStop(second, signal: SIGINT, database: pg, stopped: "fast")
        }
    }

    /// Stops PostgreSQL (`stopped`: fast or immediate), signals the worker, and expects a clean
    /// exit within its grace period.
    static func expectStop(_ worker: CommandProcess, signal: Int32, database pg: PrivatePostgres, stopped mode: String) async throws {
        try await pg.stop(mode)
        try await Task.sleep(for: .milliseconds(500))
        worker.signal(signal)
        #expect(await worker.waitForExit(within: exitLimit), "citytwin worker still running \(exitLimit) s after signal \(signal)")
        #expect(worker.exitStatus == 0, "\(worker.output)")
    }
}

/// Starting the built binary against a `PrivatePostgres`, and the checks the tests share.
enum OutageHarness {
    static var enabled: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["CITYTWIN_TEST_POSTGRES_URL"].map { !$0.isEmpty } == true || env["CI"] != nil
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `citytwin` built beside this test bundle (`swift build --build-tests` builds both), or `CITYTWIN_BIN`.
    static func binary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["CITYTWIN_BIN"], !path.isEmpty { return path }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("citytwin").path
        for path in [beside, packageRoot.appendingPathComponent(".build/debug/citytwin").path]
        where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        throw HarnessFailure("no citytwin binary beside \(CommandLine.arguments[0]) or in .build/debug: swift build --build-tests builds it")
    }

    /// `citytwin serve` on a free port with the shelters layer, once `/health` answers 200.
    static func serve(_ pg: PrivatePostgres, storeTimeout: Double = StoreOutageTests.storeTimeout,
                      grace: Double = StoreOutageTests.shutdownGrace) async throws -> CommandProcess {
        let layers = try TemporaryDirectory.forTestCase("outage-layers").url
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("Layers/shelters.json"),
                                         to: layers.appendingPathComponent("shelters.json"))
        let port = try freePort()
        let server = try await CommandProcess.start(try binary(), [
            "serve", "--store", pg.url, "--host", "127.0.0.1", "--port", String(port), "--layers", layers.path,
            "--log-level", "warning", "--store-timeout", String(storeTimeout),
            "--shutdown-grace", String(grace),
            // The load loops send as fast as answers come: the per-address rate limit is not under test here.
            "--address-rate", "0", "--token-rate", "0",
        ], baseURL: "http://127.0.0.1:\(port)")
        // Start-up is not under test: on a loaded CI machine the debug server and the suites beside it share 2 cores.
        try await eventually("citytwin serve answers /health", within: 180) {
            guard server.isRunning else { throw HarnessFailure("citytwin serve exited: \(server.output)") }
            return (try? await server.http("/health", within: 3))??.status == 200  // refused until it listens
        }
        return server
    }

    /// `citytwin worker` looking for jobs every 0.2 s.
    static func worker(_ pg: PrivatePostgres) async throws -> CommandProcess {
        try await CommandProcess.start(try binary(), [
            "worker", "--store", pg.url, "--idle", "0.2", "--lease", "3", "--store-timeout", String(StoreOutageTests.storeTimeout),
            "--shutdown-grace", String(StoreOutageTests.shutdownGrace),
        ], baseURL: nil)
    }

    /// An editor token of the shelters' department in `store`, signed with `secret` (by default the
    /// one `CommandProcess` gives every command).
    static func editorToken(_ store: String, secret: String? = nil, department: String = "应急管理局") async throws -> String {
        let command = try await CommandProcess.run(try binary(), ["token", "create", "--department", department, "--role", "editor", "--store", store],
                                                   environment: secret.map { ["CITYTWIN_TOKEN_SECRET": $0] } ?? [:], within: 60)
        guard command.exitStatus == 0 else { throw HarnessFailure("token create: \(command.output)") }
        return try #require(command.output.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) })
    }

    /// Whether `path` answers 200 within `limit` seconds (asked every 0.1 s, each ask bounded by what is left).
    static func firstSuccess(of path: String, on server: CommandProcess, within limit: Double) async throws -> Bool {
        let end = ContinuousClock.now + .seconds(limit)
        while ContinuousClock.now < end {
            let left = max(0.2, (end - ContinuousClock.now).seconds)
            if try await server.http(path, within: left)?.status == 200 { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Requests sent during an outage, each with its status (`nil`: no answer within `limit`) and duration.
    final class RequestLog: @unchecked Sendable {
        struct Entry {
            var method: String, path: String, id: String?
            var status: Int?, retryAfter: String?, seconds: Double
            var ended: ContinuousClock.Instant
        }
        /// How long a client waits (far above the store timeout: a hang shows as a slow entry).
        static let limit = 20.0
        private let lock = NSLock()
        private var entries: [Entry] = []

        var all: [Entry] { lock.withLock { entries } }

        /// GET `path`, or (`id` given) POST a new shelter with that id.
        func send(_ server: CommandProcess, _ method: String, _ path: String, id: String? = nil, token: String? = nil) async throws {
            let body = id.map {
                """
                {"type": "Feature", "id": "\($0)", "geometry": {"type": "Point", "coordinates": [114.80, 30.84]},
                 "properties": {"name": "重启", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000, "per_capita_m2": 1.5,
                                "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}}
                """
            }
            let start = ContinuousClock.now
            let r = try await server.http(path, method: method, body: body, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [],
                                          within: Self.limit)
            // curl's own time: with the other suites running, this process may read the answer
            // seconds after it came (a task waits for a free thread of the cooperative pool).
            let seconds = r?.seconds ?? Self.limit
            let entry = Entry(method: method, path: path, id: id, status: r?.status, retryAfter: r?.headers["retry-after"],
                              seconds: seconds, ended: start + .milliseconds(Int(seconds * 1000)))
            lock.withLock { entries.append(entry) }
        }
    }

    /// Submits a `features-in-area` job through the server and waits for a worker to finish it.
    /// Submits an asynchronous job and waits for `worker` to run it. The limit is long because
    /// the worker's 2 s store time limit and 3 s lease are short on purpose: with every suite
    /// sharing 2 cores, a statement that outlasts them counts as an outage or a lapsed lease and
    /// the job goes round again (a fresh-clone CI once took over 60 s); a worker that never
    /// comes back still fails it, with its output.
    static func expectJobRuns(on server: CommandProcess, by worker: CommandProcess) async throws {
        let submitted = try await server.http("/processes/features-in-area/execution", method: "POST", body: StoreOutageTests.area,
                                              headers: ["Prefer: respond-async"])
        try #require(submitted.status == 201, "\(submitted.status) \(submitted.body)")
        let location = try #require(submitted.headers["location"])
        let path = try #require(URL(string: location)?.path)
        do {
            try await eventually("a worker runs job \(path)", within: 150) {
                let job = try await server.http(path)
                if job.body.contains("\"failed\"") { throw HarnessFailure("job failed: \(job.body)") }
                return job.body.contains("\"successful\"")
            }
        } catch let e as HarnessFailure {
            throw HarnessFailure("\(e); the worker said: \(worker.output.suffix(2000))")
        }
    }

    /// Polls `condition` every 0.25 s for up to `limit` seconds.
    static func eventually(_ what: String, within limit: Double = 60, _ condition: () async throws -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(limit)
        while ContinuousClock.now < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw HarnessFailure("not within \(limit) s: \(what)")
    }

    /// A TCP port nothing listens on now (the kernel's pick).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw HarnessFailure("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A PostgreSQL + PostGIS of one test alone, through `Scripts/postgis.sh` with its own data
/// directory and port.
final class PrivatePostgres: Sendable {
    let directory: String
    let port: Int
    let url: String

    private init(directory: String, port: Int, url: String) {
        self.directory = directory
        self.port = port
        self.url = url
    }

    static func start() async throws -> PrivatePostgres {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-outage-pg-\(UUID().uuidString)").path
        let port = try OutageHarness.freePort()
        do {
            let url = try await script(["start"], directory: directory, port: port)
                .split(separator: "\n").last.map(String.init) ?? ""
            guard url.hasPrefix("postgresql://") else { throw HarnessFailure("Scripts/postgis.sh start printed \(url)") }
            return PrivatePostgres(directory: directory, port: port, url: url)
        } catch {
            // A start that failed half-way (initdb done, the server not answering) leaves nothing behind.
            _ = try? await script(["stop", "immediate"], directory: directory, port: port)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    func start() async throws {
        _ = try await Self.script(["start"], directory: directory, port: port)
    }

    /// `pg_ctl restart -m fast|immediate`; returns once PostgreSQL accepts connections again.
    func restart(_ mode: String) async throws {
        _ = try await Self.script(["restart", mode], directory: directory, port: port)
    }

    /// `pg_ctl stop -m fast` (sessions terminated, a shutdown checkpoint) or `-m immediate` (like a crash).
    func stop(_ mode: String) async throws {
        _ = try await Self.script(["stop", mode], directory: directory, port: port)
    }

    /// Stops the server and deletes its data directory.
    func remove() async {
        _ = try? await Self.script(["stop", "immediate"], directory: directory, port: port)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A PostgreSQL of `body` alone, removed when it ends (returns or throws).
    static func with<T>(_ body: (PrivatePostgres) async throws -> T) async throws -> T {
        let pg = try await start()
        do {
            let value = try await body(pg)
            await pg.remove()
            return value
        } catch {
            await pg.remove()
            throw error
        }
    }

    private static func script(_ arguments: [String], directory: String, port: Int) async throws -> String {
        let run = try await CommandProcess.run(OutageHarness.packageRoot.appendingPathComponent("Scripts/postgis.sh").path, arguments,
                                               environment: ["CITYTWIN_PG_DIR": directory, "CITYTWIN_PG_PORT": String(port)], within: 120)
        guard run.exitStatus == 0 else { throw HarnessFailure("Scripts/postgis.sh \(arguments.joined(separator: " ")): \(run.output)") }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
