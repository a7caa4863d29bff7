import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The deployment `Scripts/cluster.sh` starts (issue 21 §1): PostGIS, two `citytwin serve`, two
/// `citytwin worker`, nginx in front; started once for the whole suite (`ClusterScope`). Jobs run
/// exactly once across the workers; a worker killed (SIGKILL) or stopped past its grace (SIGTERM)
/// in the middle of a job has the job taken over by the other once the lease lapses (issue 23); an
/// edit through one server changes the tile the other serves within a second.
///
/// "In the middle of a job" is made real, not simulated: the test holds an exclusive lock on the
/// layer's table, so the job's worker has claimed it and waits inside its read of the layer, as a
/// worker waits on a long query; ending the lock's session lets whichever worker holds the job
/// then finish it.
@Suite("Cluster: two servers and two workers on one PostGIS behind nginx", .serialized, ClusterScope(),
       .enabled(if: OutageHarness.enabled && ClusterHarness.hasNginx, "needs PostgreSQL and nginx (Scripts/setup.sh --test)"))
struct ClusterTests {
    var cluster: ClusterHarness { get throws { try #require(ClusterHarness.current, "the cluster did not start") } }

    @Test("12 jobs submitted through nginx run exactly once across the two workers")
    func jobsRunExactlyOnce() async throws {
        let cluster = try cluster
        var ids = [String]()
        for _ in 0..<12 { ids.append(try await cluster.submitJob()) }
        for id in ids {
            try await OutageHarness.eventually("job \(id) succeeds", within: 60) {
                try await cluster.jobStatus(id) == "successful"
            }
        }
        let logs = cluster.workerLogs()
        for id in ids {
            let runs = logs.values.map { $0.components(separatedBy: "job \(id) (features-in-area): successful").count - 1 }.reduce(0, +)
            #expect(runs == 1, "job \(id) reported successful \(runs) times by the workers: \(logs)")
            let owner = try await cluster.sql("SELECT claimed_by FROM citytwin.jobs WHERE id = '\(id)'")
            #expect(["worker-1", "worker-2"].contains(owner), "job \(id) claimed by '\(owner)'")
        }
    }

    @Test("a worker stopped mid-job (SIGKILL; SIGTERM with the job outlasting its grace) exits, and the other worker takes the job over after the lease",
          arguments: [SIGKILL, SIGTERM])
    func jobTakenOverFromStoppedWorker(signal: Int32) async throws {
        let cluster = try cluster
        let lock = try await LayerLock.hold("shelters", in: cluster.storeURL)
        defer { lock.abandon() }
        let id = try await cluster.submitJob()
        var first = ""
        try await OutageHarness.eventually("a worker claims job \(id)") {
            first = try await cluster.sql("SELECT claimed_by FROM citytwin.jobs WHERE id = '\(id)' AND status = 'running'")
            return !first.isEmpty
        }
        let other = first == "worker-1" ? "worker-2" : "worker-1"
        let pid = try cluster.pid(of: first)
        kill(pid, signal)
        // SIGTERM: the job cannot finish (its read waits on the lock), so the worker leaves it past its grace.
        try await OutageHarness.eventually("\(first) exits after signal \(signal)", within: ClusterHarness.grace + 6) {
            ClusterHarness.hasExited(pid)
        }
        // Either the job's read ended with its cancellation and the worker handed the job back on
        // its way out (SIGTERM: the job is waiting or already taken), or the read ignored it (a
        // query PostgreSQL holds on a lock) and the job stays the stopped worker's, running, until
        // its lease lapses (and may already be the other's). Never finished, failed or lost.
        let returned = cluster.workerLogs()[first]?.contains("job returned to the queue") == true
        let state = try await cluster.sql("SELECT status || ' ' || coalesce(claimed_by, '') FROM citytwin.jobs WHERE id = '\(id)'")
        if returned {
            #expect(signal == SIGTERM, "a killed worker handed job \(id) back")
            #expect(state.hasPrefix("accepted") || state == "running \(other)", "job \(id) handed back: \(state)")
        } else {
            // Still the stopped worker's, or already the other's: the lease is 3 s, and on a loaded
            // machine noticing the exit and asking can take longer than that.
            #expect(state == "running \(first)" || state == "running \(other)", "job \(id) after \(first) stopped: \(state)")
        }
        // Taken over (after the lease, unless handed back) while the lock still holds (the job is mid-run again).
        try await OutageHarness.eventually("\(other) takes job \(id) over after the lease", within: ClusterHarness.lease + 20) {
            try await cluster.sql("SELECT claimed_by FROM citytwin.jobs WHERE id = '\(id)'") == other
        }
        try await lock.release()
        try await OutageHarness.eventually("job \(id) succeeds on \(other)") {
            try await cluster.jobStatus(id) == "successful"
        }
        #expect(try await cluster.sql("SELECT claimed_by FROM citytwin.jobs WHERE id = '\(id)'") == other)
        #expect(cluster.workerLogs()[other]?.contains("job \(id) (features-in-area): successful") == true)
        // `cluster.sh start` again restarts only what is down: the stopped worker.
        try await cluster.script("start")
        #expect(try cluster.pid(of: first) != pid)
        #expect(try cluster.pid(of: other) > 0)
    }

    @Test("PATCHes of one feature (and of one SensorThings Thing and Observation) through server A and server B at the same instant: neither change is lost; of two holding one If-Match tag, one gets through")
    func concurrentPatchesKeepBothChanges() async throws {
        let cluster = try cluster
        let token = try await cluster.editorToken()
        let auth = ["Authorization: Bearer \(token)"]
        let feature = """
            {"type": "Feature", "id": "cluster-patches", "geometry": {"type": "Point", "coordinates": [114.7913, 30.8402]},
             "properties": {"name": "并发编辑", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1200,
                            "per_capita_m2": 1.5, "capacity": 800, "service_radius_m": 500, "contact_phone": "027-00000000"}}
            """
        let created = try await cluster.a.http("/collections/shelters/items", method: "POST", body: feature, headers: auth)
        #expect(created.status == 201, "\(created.status) \(created.body)")
        let item = "/collections/shelters/items/cluster-patches"
        let patch = auth  // a JSON body is a merge patch (the harness sends it as application/json)
        func stored() async throws -> [String: Any] {
            let r = try await cluster.a.http(item, headers: auth)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
            return try #require(doc["properties"] as? [String: Any])
        }
        for round in 0..<10 {
            async let named = cluster.a.http(item, method: "PATCH", body: #"{"properties": {"name": "并发编辑 \#(round)"}}"#, headers: patch)
            async let sized = cluster.b.http(item, method: "PATCH", body: #"{"properties": {"capacity": \#(900 + round)}}"#, headers: patch)
            let (r1, r2) = try await (named, sized)
            #expect(r1.status == 200 && r2.status == 200, "\(r1.status) \(r1.body) \(r2.status) \(r2.body)")
            let properties = try await stored()
            #expect(properties["name"] as? String == "并发编辑 \(round)" && properties["capacity"] as? Int == 900 + round,
                    "round \(round): \(properties)")
        }
        for round in 0..<6 {
            let tag = try #require(try await cluster.a.http(item, headers: auth).headers["etag"])
            async let first = cluster.a.http(item, method: "PATCH", body: #"{"properties": {"capacity": \#(2000 + round)}}"#, headers: patch + ["If-Match: \(tag)"])
            async let second = cluster.b.http(item, method: "PATCH", body: #"{"properties": {"capacity": \#(3000 + round)}}"#, headers: patch + ["If-Match: \(tag)"])
            let statuses = try await [first.status, second.status].sorted()
            #expect(statuses == [200, 412], "round \(round)")
        }
        #expect(try await cluster.a.http(item, method: "DELETE", headers: auth).status == 204)

        // The same for a SensorThings entity: a Thing's name through A, its description through B.
        let platform = ["Authorization: Bearer \(try await cluster.editorToken(department: "城市管理执法委员会"))"]
        let thing = try await cluster.a.http("/sta/v1.1/Things", method: "POST", body: #"{"name": "并发编辑 水位站", "description": "river gauge"}"#,
                                             headers: platform)
        #expect(thing.status == 201, "\(thing.status) \(thing.body)")
        let path = "/sta/v1.1/" + (try #require(thing.headers["location"]?.split(separator: "/").last.map(String.init)))
        for round in 0..<10 {
            async let named = cluster.a.http(path, method: "PATCH", body: #"{"name": "并发编辑 水位站 \#(round)"}"#, headers: platform)
            async let described = cluster.b.http(path, method: "PATCH", body: #"{"description": "river gauge, round \#(round)"}"#, headers: platform)
            let (r1, r2) = try await (named, described)
            #expect(r1.status == 200 && r2.status == 200, "\(r1.status) \(r1.body) \(r2.status) \(r2.body)")
            let r = try await cluster.a.http(path, headers: platform)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
            #expect(doc["name"] as? String == "并发编辑 水位站 \(round)" && doc["description"] as? String == "river gauge, round \(round)",
                    "round \(round): \(doc)")
        }
        // And one reading of it corrected through A (its result) and annotated through B (its parameters).
        let stream = try await cluster.a.http(path + "/Datastreams", method: "POST", body: """
            {"name": "water level", "description": "stage above datum",
             "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_Measurement",
             "unitOfMeasurement": {"name": "metre", "symbol": "m", "definition": "http://qudt.org/vocab/unit/M"},
             "Sensor": {"name": "radar level sensor", "description": "level sensor", "encodingType": "text/html", "metadata": "https://example.org/vega"},
             "ObservedProperty": {"name": "water level", "definition": "http://vocabs.lter-europe.net/EnvThes/22035", "description": "river stage"}}
            """, headers: platform)
        #expect(stream.status == 201, "\(stream.status) \(stream.body)")
        let streamPath = "/sta/v1.1/" + (try #require(stream.headers["location"]?.split(separator: "/").last.map(String.init)))
        let reading = try await cluster.a.http(streamPath + "/Observations", method: "POST", body: """
            {"phenomenonTime": "2026-06-01T00:00:00Z", "result": 26.4,
             "FeatureOfInterest": {"name": "邾城大桥", "description": "gauge site", "encodingType": "application/geo+json",
                                   "feature": {"type": "Point", "coordinates": [114.8012, 30.8437]}}}
            """, headers: platform)
        #expect(reading.status == 201, "\(reading.status) \(reading.body)")
        let readingPath = "/sta/v1.1/" + (try #require(reading.headers["location"]?.split(separator: "/").last.map(String.init)))
        for round in 0..<10 {
            let level = 26.5 + Double(round) / 100
            async let corrected = cluster.a.http(readingPath, method: "PATCH", body: #"{"result": \#(level)}"#, headers: platform)
            async let annotated = cluster.b.http(readingPath, method: "PATCH", body: #"{"parameters": {"checked_by": "round \#(round)"}}"#, headers: platform)
            let (r1, r2) = try await (corrected, annotated)
            #expect(r1.status == 200 && r2.status == 200, "\(r1.status) \(r1.body) \(r2.status) \(r2.body)")
            let r = try await cluster.a.http(readingPath, headers: platform)
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any])
            #expect(doc["result"] as? Double == level && (doc["parameters"] as? [String: Any])?["checked_by"] as? String == "round \(round)",
                    "round \(round): \(doc)")
        }
        #expect(try await cluster.a.http(path, method: "DELETE", headers: platform).status == 200)
    }

    @Test("an edit through server A changes the tile server B serves within a second (B follows the store's change feed)")
    func tileCachesStayCoherent() async throws {
        let cluster = try cluster
        let token = try await cluster.editorToken()
        // A point in the district far from the other tests' features: its z15 WebMercatorQuad tile.
        let (lon, lat) = (114.8123, 30.8531)
        let n = 32768.0
        let col = Int((lon + 180) / 360 * n)
        let row = Int((1 - log(tan(lat * .pi / 180) + 1 / cos(lat * .pi / 180)) / .pi) / 2 * n)
        let tile = "/collections/shelters/tiles/WebMercatorQuad/15/\(row)/\(col)"
        let before = try await cluster.b.http(tile)
        #expect(before.status == 204, "\(before.status)")  // empty, and now in B's cache
        #expect(try await cluster.b.http(tile).status == 204)

        let feature = """
            {"type": "Feature", "id": "cluster-coherence", "geometry": {"type": "Point", "coordinates": [\(lon), \(lat)]},
             "properties": {"name": "集群一致性", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1200,
                            "per_capita_m2": 1.5, "capacity": 800, "service_radius_m": 500, "contact_phone": "027-00000000"}}
            """
        let created = try await cluster.a.http("/collections/shelters/items", method: "POST", body: feature,
                                               headers: ["Authorization: Bearer \(token)"])
        #expect(created.status == 201, "\(created.status) \(created.body)")
        try await Task.sleep(for: .seconds(1))
        let after = try await cluster.b.http(tile)
        #expect(after.status == 200, "server B still serves the tile as it was before the edit through A: \(after.status)")
        let etag = try #require(after.headers["etag"])

        let deleted = try await cluster.a.http("/collections/shelters/items/cluster-coherence", method: "DELETE",
                                               headers: ["Authorization: Bearer \(token)"])
        #expect(deleted.status == 204, "\(deleted.status) \(deleted.body)")
        try await Task.sleep(for: .seconds(1))
        let gone = try await cluster.b.http(tile)
        #expect(gone.status == 204, "server B still serves the tile with the deleted shelter (ETag \(etag)): \(gone.status)")
    }
}

/// Starts the cluster once around the whole suite and stops it after the last test.
struct ClusterScope: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase == nil, OutageHarness.enabled, ClusterHarness.hasNginx else { return try await function() }
        let cluster = try await ClusterHarness.start()
        do {
            try await ClusterHarness.$current.withValue(cluster) { try await function() }
            await cluster.stop()
        } catch {
            await cluster.stop()
            throw error
        }
    }
}

/// `Scripts/cluster.sh` in a run directory of the test's own, on free ports.
final class ClusterHarness: Sendable {
    @TaskLocal static var current: ClusterHarness?

    /// Short lease and grace, so takeovers are quick; production defaults are longer.
    static let lease = 3.0
    static let grace = 2.0
    /// The secret the cluster's servers share, so a token made here is good on both.
    static let tokenSecret = "cluster-test-secret-0123456789abcdef0123456789"

    static var hasNginx: Bool {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    let directory: String
    let port: Int
    /// Servers A and B directly (not through nginx), and nginx.
    let a: HTTPEndpoint, b: HTTPEndpoint, balancer: HTTPEndpoint
    let storeURL: String

    private init(directory: String, port: Int, env: [String: String]) throws {
        self.directory = directory
        self.port = port
        func value(_ key: String) throws -> String {
            guard let v = env[key] else { throw HarnessFailure("cluster.env has no \(key)") }
            return v
        }
        storeURL = try value("CITYTWIN_CLUSTER_STORE")
        a = HTTPEndpoint(baseURL: try value("CITYTWIN_CLUSTER_SERVE_A"))
        b = HTTPEndpoint(baseURL: try value("CITYTWIN_CLUSTER_SERVE_B"))
        balancer = HTTPEndpoint(baseURL: try value("CITYTWIN_CLUSTER_URL"))
    }

    static func start() async throws -> ClusterHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-cluster-\(UUID().uuidString)").path
        let port = try freePorts(4)
        let harness = { (env: [String: String]) in try ClusterHarness(directory: directory, port: port, env: env) }
        do {
            try await run(["start"], directory: directory, port: port)
            let text = try String(contentsOfFile: directory + "/cluster.env", encoding: .utf8)
            var env = [String: String]()
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { env[parts[0]] = parts[1] }
            }
            return try harness(env)
        } catch {
            try? await run(["stop"], directory: directory, port: port)
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    func script(_ command: String) async throws {
        try await Self.run([command], directory: directory, port: port)
    }

    /// Stops every part and deletes the run directory.
    func stop() async {
        _ = try? await CommandProcess.run(OutageHarness.packageRoot.appendingPathComponent("Scripts/cluster.sh").path, ["stop"],
                                          environment: Self.environment(directory: directory, port: port), within: 180)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the cluster's scripts and commands get added to (or removed from, nil) the environment.
    private static func environment(directory: String, port: Int) -> [String: String?] {
        [
            "CITYTWIN_CLUSTER_DIR": directory,
            "CITYTWIN_CLUSTER_PORT": String(port),
            "CITYTWIN_CLUSTER_LEASE": String(Int(lease)),
            "CITYTWIN_CLUSTER_GRACE": String(Int(grace)),
            "CITYTWIN_BIN": try? OutageHarness.binary(),
            "CITYTWIN_PG_PORT": nil,
            "CITYTWIN_TOKEN_SECRET": tokenSecret,
        ]
    }

    private static func run(_ arguments: [String], directory: String, port: Int) async throws {
        let script = try await CommandProcess.run(OutageHarness.packageRoot.appendingPathComponent("Scripts/cluster.sh").path, arguments,
                                                  environment: environment(directory: directory, port: port), within: 180)
        guard script.exitStatus == 0 else { throw HarnessFailure("Scripts/cluster.sh \(arguments.joined(separator: " ")): \(script.output)") }
    }

    /// A base port with the three above it free too (nginx, two servers, PostgreSQL).
    static func freePorts(_ count: Int) throws -> Int {
        for _ in 0..<50 {
            let base = try OutageHarness.freePort()
            guard base + count < 65_535 else { continue }
            if (1..<count).allSatisfy({ isFree(base + $0) }) { return base }
        }
        throw HarnessFailure("no \(count) consecutive free ports")
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    // MARK: - Jobs

    /// Submits a `features-in-area` job through nginx; its id.
    func submitJob() async throws -> String {
        let r = try await balancer.http("/processes/features-in-area/execution", method: "POST", body: StoreOutageTests.area,
                                        headers: ["Prefer: respond-async"])
        try #require(r.status == 201, "\(r.status) \(r.body)")
        let location = try #require(r.headers["location"])
        return String(try #require(location.split(separator: "/").last))
    }

    /// The job's status through nginx.
    func jobStatus(_ id: String) async throws -> String? {
        let r = try await balancer.http("/jobs/\(id)")
        guard r.status == 200, let doc = try JSONSerialization.jsonObject(with: Data(r.body.utf8)) as? [String: Any] else { return nil }
        if doc["status"] as? String == "failed" { throw HarnessFailure("job \(id) failed: \(r.body)") }
        return doc["status"] as? String
    }

    /// Each worker's output so far, by name (the workers write a line per finished job).
    func workerLogs() -> [String: String] {
        Dictionary(uniqueKeysWithValues: ["worker-1", "worker-2"].map {
            ($0, (try? String(contentsOfFile: "\(directory)/logs/\($0).log", encoding: .utf8)) ?? "")
        })
    }

    /// The pid of a part (`worker-1`, `serve-a`, …) from its pid file.
    func pid(of part: String) throws -> Int32 {
        let text = try String(contentsOfFile: "\(directory)/pids/\(part)", encoding: .utf8)
        return try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// Whether the process is gone (or a zombie its parent has not reaped yet).
    static func hasExited(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    // MARK: - PostgreSQL

    /// One value from the store's database.
    func sql(_ query: String) async throws -> String { try await psqlValue(storeURL, query) }

    /// An editor token of the shelters' department (signed with the cluster's secret).
    func editorToken(department: String = "应急管理局") async throws -> String {
        try await OutageHarness.editorToken(storeURL, secret: Self.tokenSecret, department: department)
    }
}
