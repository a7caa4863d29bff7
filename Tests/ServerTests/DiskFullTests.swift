import Foundation
import Testing
import TestSupport

/// A SpatiaLite store on a full disk (issue 21 §2): the disk is made full for one process with
/// `ulimit -f` (the kernel refuses to grow any file past the limit: `write` fails with EFBIG, as
/// it fails with ENOSPC on a full disk; SIGXFSZ is ignored so the process sees the error) — no
/// root, no tmpfs. An import that no longer fits fails with a message and leaves the store as it
/// was; an edit through the server that no longer fits answers a problem, the server keeps
/// serving, and every write it acknowledged is kept.
@Suite("Full disk: SpatiaLite import and edits fail cleanly", .serialized, .temporaryDirectories)
struct DiskFullTests {
    static let layers = OutageHarness.packageRoot.appendingPathComponent("Layers").path

    @Test("an import that does not fit fails, nothing written; the store passes integrity_check and holds what it held")
    func importOnFullDisk() async throws {
        let dir = try TemporaryDirectory.forTestCase("citytwin-diskfull").url
        let store = dir.appendingPathComponent("city.sqlite").path
        try Self.shelters(200, prefix: "base").write(to: dir.appendingPathComponent("base.geojson"))
        try Self.shelters(30_000, prefix: "big").write(to: dir.appendingPathComponent("big.geojson"))
        let base = try await Self.run("exec \"$0\" import \(dir.path)/base.geojson --layer shelters --store \(store) --layers \(Self.layers)")
        #expect(base.exitStatus == 0, "\(base.output)")
        let before = try await SQLiteShell.run(store, "SELECT count(*) FROM f_shelters WHERE valid_to IS NULL")

        let limit = try Self.kibibytes(store) + 256  // room for 256 KiB more, the import needs megabytes
        let full = try await Self.run("trap '' XFSZ; ulimit -f \(limit); exec \"$0\" import \(dir.path)/big.geojson --layer shelters --mode append --store \(store) --layers \(Self.layers)")
        #expect(full.exitStatus == 1, "the import on a full disk: exit \(full.exitStatus): \(full.output)")
        #expect(full.output.contains("nothing written") && full.output.contains("disk is full"), "\(full.output)")

        #expect(try await SQLiteShell.run(store, "PRAGMA integrity_check") == "ok")
        #expect(try await SQLiteShell.run(store, "SELECT count(*) FROM f_shelters WHERE valid_to IS NULL") == before)
        #expect(before == "200")
    }

    @Test("edits through the server that do not fit answer a problem; the server keeps serving and every acknowledged edit is kept")
    func editsOnFullDisk() async throws {
        let dir = try TemporaryDirectory.forTestCase("citytwin-diskfull").url
        let store = dir.appendingPathComponent("city.sqlite").path
        try Self.shelters(200, prefix: "base").write(to: dir.appendingPathComponent("base.geojson"))
        let base = try await Self.run("exec \"$0\" import \(dir.path)/base.geojson --layer shelters --store \(store) --layers \(Self.layers)")
        #expect(base.exitStatus == 0, "\(base.output)")
        let token = try await Self.run("exec \"$0\" token create --department 应急管理局 --role editor --store \(store)")
        let bearer = "Authorization: Bearer " + (token.output.split(separator: "\n").last.map(String.init) ?? "")

        // The server serves the layers in the store (no --layers directory: no definitions to write at start-up).
        let port = try OutageHarness.freePort()
        let limit = try Self.kibibytes(store) + 512
        let server = try await CommandProcess.start("/bin/bash", ["-c", "trap '' XFSZ; ulimit -f \(limit); exec \"$0\" serve --store \(store) --layers \(dir.path)/no-layers --port \(port) --log-level error --token-rate 0",
                                                      try OutageHarness.binary()], baseURL: "http://127.0.0.1:\(port)")
        defer { server.kill() }
        try await OutageHarness.eventually("citytwin serve answers /health") {
            (try? await server.http("/health", within: 3))??.status == 200
        }
        var acknowledged = 0
        var refusal: HTTPEndpoint.Response?
        let pad = String(repeating: "长", count: 2000)
        for i in 0..<3000 where refusal == nil {
            let body = """
                {"type": "Feature", "id": "edit-\(i)", "geometry": {"type": "Point", "coordinates": [114.8, 30.84]},
                 "properties": {"name": "\(pad) \(i)", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000,
                                "per_capita_m2": 1.5, "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}}
                """
            let r = try await server.http("/collections/shelters/items", method: "POST", body: body, headers: [bearer])
            if r.status == 201 { acknowledged += 1 } else { refusal = r }
        }
        let refused = try #require(refusal, "3,000 edits of 6 kB fitted in 512 KiB: the limit did not hold")
        #expect(refused.status == 503 && refused.headers["content-type"] == "application/problem+json", "\(refused.status) \(refused.body)")
        #expect(refused.body.contains("disk is full"), "\(refused.body)")
        #expect(refused.headers["retry-after"] != nil)
        #expect(server.isRunning, "the server exited on a full disk: \(server.output)")
        #expect(try await server.http("/collections/shelters/items?limit=1").status == 200, "the server stopped serving reads on a full disk")
        server.signal(SIGTERM)
        _ = await server.waitForExit(within: 20)

        #expect(try await SQLiteShell.run(store, "PRAGMA integrity_check") == "ok")
        #expect(try await SQLiteShell.run(store, "SELECT count(*) FROM f_shelters WHERE valid_to IS NULL") == String(200 + acknowledged),
                "\(acknowledged) edits were acknowledged")
    }

    // MARK: - Helpers

    /// `count` shelters with every required property, as GeoJSON.
    static func shelters(_ count: Int, prefix: String) -> Data {
        let features = (0..<count).map { i in
            """
            {"type": "Feature", "id": "\(prefix)-\(i)", "geometry": {"type": "Point", "coordinates": [\(114.78 + Double(i % 500) * 0.0001), \(30.82 + Double(i / 500) * 0.0001)]},
             "properties": {"name": "避难所 \(i)", "class": "紧急", "admin_level": "村(社区)", "effective_area_m2": 1000, "per_capita_m2": 1.5,
                            "capacity": 600, "service_radius_m": 500, "contact_phone": "027-00000000"}}
            """
        }
        return Data("{\"type\": \"FeatureCollection\", \"features\": [\(features.joined(separator: ",\n"))]}".utf8)
    }

    /// `script` in bash with the citytwin binary as `$0`.
    static func run(_ script: String) async throws -> CommandProcess {
        try await CommandProcess.run("/bin/bash", ["-c", script, try OutageHarness.binary()], within: 300)
    }

    /// The store file's size in KiB (`ulimit -f` counts 1,024-byte blocks in bash).
    static func kibibytes(_ path: String) throws -> Int {
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        return size / 1024 + 1
    }
}
