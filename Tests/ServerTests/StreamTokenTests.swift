import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MQTTBroker
import Server
import TestSupport
import Testing
import TwinStore
#if canImport(Glibc)
import Glibc
#endif

/// A token checked for the life of a stream (issue 78 §6): a change stream (Server-Sent Events)
/// and an MQTT session opened with a token end when the token is revoked (`citytwin token
/// revoke`), expires, or no longer matches the secret (`citytwin token rotate-secret`), saying
/// why: the stream with a last `error` event, the MQTT session closed and the reason logged.
/// Before, the manager's phone kept arriving in clear on a revoked token's stream.
@Suite("Streams end with their token: revoked, expired, secret rotated (SSE and MQTT)", .serialized, .temporaryDirectories)
struct StreamTokenTests {
    static let secret = TokenRevocationTests.secret

    static func quietLogger() -> Logger {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        return logger
    }

    /// Changes shelter s03's capacity as its owner (the change every stream of shelters carries).
    static func write(_ store: SpatiaLiteStore, capacity: Int) async throws {
        var s03 = try #require(try await store.feature(layer: "shelters", id: "s03", by: ServerFixture.owner))
        s03.properties["capacity"] = .integer(Int64(capacity))
        try await store.upsert(layer: "shelters", features: [s03], by: ServerFixture.owner, at: nil)
    }

    @Test("a change stream opened with a token ends with an error event within seconds of citytwin token revoke; a stream of another token goes on")
    func revokedTokenEndsChangeStream() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-stream-revoke")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await AuditVerifyCommandTests.fill(store)
        let authority = try TokenAuthority(secret: Array(Self.secret.utf8))
        let lost = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "丢失的电脑", lifetime: 3600))
        let kept = authority.issue(TokenClaims(department: "应急管理局", role: .editor, subject: "王工", lifetime: 3600))
        let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: Self.quietLogger(), tokenVerifier: authority))
        try await server.makeApplication(address: .hostname("127.0.0.1", port: 0)).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let revoked = try await EventStreamReader.open(base + "/collections/shelters/changes", headers: ["Authorization: Bearer \(lost)"])
            let other = try await EventStreamReader.open(base + "/collections/shelters/changes", headers: ["Authorization: Bearer \(kept)"])
            defer {
                revoked.close()
                other.close()
            }
            try await revoked.waitFor("event: position")
            try await other.waitFor("event: position")
            try await Self.write(store, capacity: 901)
            try await revoked.waitFor("\"capacity\":901")
            #expect(revoked.text.contains("13812345678"), "the owner's editor sees the manager's phone in clear: \(revoked.text.suffix(300))")

            let run = try await TokenRevocationTests.revoke(lost, store: path)
            #expect(run.exitStatus == 0, "\(run.output)")
            #expect(await revoked.ended(within: 30), "the stream of a revoked token went on: \(revoked.text.suffix(400))")
            #expect(revoked.text.contains("event: error\ndata: {"), "\(revoked.text.suffix(400))")
            #expect(revoked.text.contains("token-no-longer-valid") && revoked.text.contains("revoked"), "\(revoked.text.suffix(400))")
            #expect(!revoked.text.contains(lost), "the token is never echoed")

            try await Self.write(store, capacity: 902)
            try await other.waitFor("\"capacity\":902")
            #expect(!revoked.text.contains("\"capacity\":902"))
        }
    }

    @Test("a change stream ends when its token expires, and when citytwin token rotate-secret replaces the secret it was signed with")
    func expiredAndRotatedTokensEndChangeStreams() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-stream-rotate")
        let path = directory.appending("city.sqlite").path
        let store = try directory.openStore()
        try await AuditVerifyCommandTests.fill(store)
        let verifier = try ReloadingTokenAuthority(storePath: path)
        let authority = try verifier.current()
        let shortLived = authority.issue(TokenClaims(department: "应急管理局", role: .viewer, subject: "值班屏", lifetime: 8))
        let longLived = authority.issue(TokenClaims(department: "应急管理局", role: .viewer, subject: "指挥大屏", lifetime: 3600))
        let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: Self.quietLogger(), tokenVerifier: verifier))
        try await server.makeApplication(address: .hostname("127.0.0.1", port: 0)).test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let expiring = try await EventStreamReader.open(base + "/changes", headers: ["Authorization: Bearer \(shortLived)"])
            let rotated = try await EventStreamReader.open(base + "/changes", headers: ["Authorization: Bearer \(longLived)"])
            defer {
                expiring.close()
                rotated.close()
            }
            try await expiring.waitFor("event: position")
            try await rotated.waitFor("event: position")
            #expect(await expiring.ended(within: 60), "the stream of an expired token went on: \(expiring.text.suffix(400))")
            #expect(expiring.text.contains("event: error") && expiring.text.contains("expired"), "\(expiring.text.suffix(400))")
            #expect(rotated.process.isRunning, "a stream of a token still valid ended: \(rotated.text.suffix(400))")

            let rotation = try await CommandProcess.run(try OutageHarness.binary(), ["token", "rotate-secret", "--store", path],
                                                        environment: ["CITYTWIN_TOKEN_SECRET": nil], within: 60)
            #expect(rotation.exitStatus == 0, "\(rotation.output)")
            #expect(await rotated.ended(within: 30), "the stream went on after the secret was rotated: \(rotated.text.suffix(400))")
            #expect(rotated.text.contains("event: error") && rotated.text.contains("rotate-secret"), "\(rotated.text.suffix(400))")
        }
    }

    @Test("an MQTT session (citytwin serve --mqtt-port) is closed when its token is revoked, expires or its secret is rotated, the reason logged with the client id; a valid one keeps receiving")
    func mqttSessionsEndWithTheirToken() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-mqtt-token-life")
        let path = directory.appending("city.sqlite").path
        let layers = directory.appending("layers")
        try FileManager.default.createDirectory(at: layers, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: OutageHarness.packageRoot.appendingPathComponent("Layers/iot_devices.json"),
                                         to: layers.appendingPathComponent("iot_devices.json"))
        _ = try directory.openStore()
        let port = try OutageHarness.freePort(), mqttPort = try OutageHarness.freePort()
        // The secret file beside the store, as a city without CITYTWIN_TOKEN_SECRET keeps it: rotate-secret replaces it.
        let server = try await CommandProcess.start(try OutageHarness.binary(), [
            "serve", "--store", path, "--host", "127.0.0.1", "--port", String(port), "--mqtt-port", String(mqttPort),
            "--layers", layers.path, "--log-level", "info",
        ], baseURL: "http://127.0.0.1:\(port)", environment: ["CITYTWIN_TOKEN_SECRET": nil])
        defer { server.kill() }
        try await OutageHarness.eventually("citytwin serve answers /health", within: 180) {
            guard server.isRunning else { throw HarnessFailure("citytwin serve exited: \(server.output)") }
            return (try? await server.http("/health", within: 3))??.status == 200
        }
        let authority = try ReloadingTokenAuthority(storePath: path).current()
        func token(_ role: TokenClaims.Role, _ department: String, lifetime: TimeInterval) -> String {
            authority.issue(TokenClaims(department: department, role: role, subject: "网关", lifetime: lifetime))
        }
        let owner = token(.editor, SensorThingsAPI.owner, lifetime: 3600)
        let created = try await server.http("/sta/v1.1/Things", method: "POST", body: SensorThingsAPI.gauge, headers: ["Authorization: Bearer \(owner)"])
        #expect(created.status == 201, "\(created.status) \(created.body)")
        let streams = try await server.http("/sta/v1.1/Datastreams", headers: ["Authorization: Bearer \(owner)"])
        let datastream = try #require(try JSONValue(json: streams.body)["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
        let topic = "v1.1/Datastreams(\(datastream))/Observations"
        func observe(_ value: Double) async throws {
            let r = try await server.http("/sta/v1.1/Datastreams(\(datastream))/Observations", method: "POST",
                                          body: #"{"phenomenonTime": "\#(Date().formatted(.iso8601))", "result": \#(value)}"#,
                                          headers: ["Authorization: Bearer \(owner)"])
            #expect(r.status == 201, "\(r.status) \(r.body)")
        }

        let revokedToken = token(.viewer, "应急管理局", lifetime: 3600)
        let clients = [("revoked-gw", revokedToken), ("expiring-gw", token(.viewer, "应急管理局", lifetime: 20)),
                       ("kept-gw", token(.viewer, "应急管理局", lifetime: 3600))]
        let sessions = try await RawConnection.onOwnThread {
            try clients.map { try MQTTLine.subscribed(mqttPort, clientID: $0.0, token: $0.1, topic: topic) }
        }
        defer { sessions.forEach { $0.close() } }
        let (revoked, expiring, kept) = (sessions[0], sessions[1], sessions[2])
        try await observe(1.5)
        for session in [revoked, kept] {
            let first = try await RawConnection.onOwnThread { session.nextPublish(within: 30) }
            #expect((first ?? "").contains("1.5"), "\(session.clientID) received no observation: \(first ?? "nothing")")
        }

        let run = try await CommandProcess.run(try OutageHarness.binary(), ["token", "revoke", revokedToken, "--store", path],
                                               environment: ["CITYTWIN_TOKEN_SECRET": nil], within: 60)
        #expect(run.exitStatus == 0, "\(run.output)")
        #expect(try await RawConnection.onOwnThread { revoked.closedByServer(within: 30) }, "the session of a revoked token stayed open")
        #expect(try await RawConnection.onOwnThread { expiring.closedByServer(within: 60) }, "the session of an expired token stayed open")
        try await observe(2.5)
        let second = try await RawConnection.onOwnThread { kept.nextPublish(within: 30) }
        #expect((second ?? "").contains("2.5"), "a session of a valid token stopped receiving")

        let rotation = try await CommandProcess.run(try OutageHarness.binary(), ["token", "rotate-secret", "--store", path],
                                                    environment: ["CITYTWIN_TOKEN_SECRET": nil], within: 60)
        #expect(rotation.exitStatus == 0, "\(rotation.output)")
        #expect(try await RawConnection.onOwnThread { kept.closedByServer(within: 30) }, "the session stayed open after the secret was rotated")

        // Logged right after the connection is closed.
        try await OutageHarness.eventually("the server logs why each session was closed", within: 20) {
            ["revoked-gw", "expiring-gw", "kept-gw"].allSatisfy { server.output.contains("MQTT client '\($0)'") }
        }
        let log = server.output
        #expect(log.contains("MQTT client 'revoked-gw'") && log.contains("the token was revoked"), "\(log.suffix(2000))")
        #expect(log.contains("MQTT client 'expiring-gw'") && log.contains("the token expired"), "\(log.suffix(2000))")
        #expect(log.contains("MQTT client 'kept-gw'") && log.contains("rotate-secret"), "\(log.suffix(2000))")
        #expect(!log.contains(revokedToken), "the log never holds a token")
    }
}

/// A Server-Sent Events stream read by curl (`-N`, as a service or a terminal follows one): what it
/// has received so far, and whether the server has ended it.
struct EventStreamReader {
    let process: CommandProcess

    /// Opens `url`; curl gives up after `limit` seconds (a stream that never ends).
    static func open(_ url: String, headers: [String] = [], limit: Double = 180) async throws -> EventStreamReader {
        var arguments = ["-sN", "--noproxy", "*", "-m", String(limit)]
        for h in headers { arguments += ["-H", h] }
        arguments.append(url)
        return EventStreamReader(process: try await CommandProcess.start("/usr/bin/curl", arguments))
    }

    /// What the stream has received.
    var text: String { process.output }

    /// Waits until the stream has received `needle`.
    func waitFor(_ needle: String, within limit: Double = 60) async throws {
        do {
            try await OutageHarness.eventually("the stream received \(needle)", within: limit) {
                if text.contains(needle) { return true }
                guard process.isRunning else { throw HarnessFailure("the stream ended before \(needle): \(text.suffix(500))") }
                return false
            }
        } catch let failure as HarnessFailure {
            throw HarnessFailure("\(failure); it received: \(text.suffix(600))")
        }
    }

    /// Whether the server ended the stream within `limit` seconds (curl then exits 0).
    func ended(within limit: Double) async -> Bool {
        await process.waitForExit(within: limit) && process.exitStatus == 0
    }

    func close() { process.kill() }
}

/// An MQTT 3.1.1 client on a raw socket, its calls blocking (run them in `RawConnection.onOwnThread`).
final class MQTTLine: @unchecked Sendable {
    let clientID: String
    private let socket: RawConnection
    private var buffer: [UInt8] = []

    init(port: Int, clientID: String) throws {
        socket = try RawConnection(port: port)
        self.clientID = clientID
    }

    /// Connected with `token` as the password and subscribed to `topic` (QoS 0), both acknowledged.
    static func subscribed(_ port: Int, clientID: String, token: String, topic: String) throws -> MQTTLine {
        let line = try MQTTLine(port: port, clientID: clientID)
        line.send(.connect(MQTTConnect(keepAlive: 600, clientID: clientID, username: "gw", password: Array(token.utf8))))
        guard case .packet(.connack(_, .accepted)) = line.next(within: 30) else { throw HarnessFailure("\(clientID): no CONNACK accepted") }
        line.send(.subscribe(packetID: 1, [MQTTSubscription(filter: topic, qos: 0)]))
        guard case .packet(.suback(1, let codes)) = line.next(within: 30), codes == [0] else { throw HarnessFailure("\(clientID): the subscription was not granted") }
        return line
    }

    func send(_ packet: MQTTPacket) {
        let bytes = packet.encoded()
        _ = bytes.withUnsafeBytes { Glibc.send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    enum Next { case packet(MQTTPacket), closed, silent }

    /// The next packet within `limit` seconds, or the connection closed, or nothing.
    func next(within limit: Double) -> Next {
        let end = Date().addingTimeInterval(limit)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let header = try? MQTTFixedHeader.parse(buffer), buffer.count >= header.packetLength {
                let bytes = Array(buffer.prefix(header.packetLength))
                buffer.removeFirst(header.packetLength)
                if let packet = try? MQTTPacket.decode(bytes) { return .packet(packet) }
                return .closed
            }
            guard Date() < end else { return .silent }
            var descriptor = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let n = recv(socket.fd, &chunk, chunk.count, 0)
            if n <= 0 { return .closed }
            buffer += chunk[0..<n]
        }
    }

    /// The payload of the next PUBLISH within `limit` seconds, as text.
    func nextPublish(within limit: Double) -> String? {
        let end = Date().addingTimeInterval(limit)
        while Date() < end {
            switch next(within: end.timeIntervalSinceNow) {
            case .packet(.publish(let message)): return String(decoding: message.payload, as: UTF8.self)
            case .packet: continue
            case .closed, .silent: return nil
            }
        }
        return nil
    }

    /// Whether the server closed the connection within `limit` seconds (packets before it are read and dropped).
    func closedByServer(within limit: Double) -> Bool {
        let end = Date().addingTimeInterval(limit)
        while Date() < end {
            switch next(within: end.timeIntervalSinceNow) {
            case .closed: return true
            case .silent: return false
            case .packet: continue
            }
        }
        return false
    }

    func close() { socket.close() }
}
