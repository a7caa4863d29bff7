import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import MQTTBroker

/// The broker on a real socket with a small delegate, talked to by a raw MQTT client built on the
/// same codec: what is acknowledged, refused, delivered and closed.
@Suite struct MQTTBrokerTests {
    /// Accepts the password "secret", refuses filters under `forbidden/`, takes every PUBLISH but to `refuse`.
    final class Recorder: MQTTBrokerDelegate {
        let taken = Mutex([MQTTPublish]())
        func connect(_ request: MQTTConnect, address: String) async -> MQTTConnectDecision<String> {
            request.password == Array("secret".utf8) ? .accept(request.username ?? "") : .refuse(.badUsernameOrPassword, reason: "wrong password")
        }
        func subscribe(_ filter: String, client: MQTTClient<String>) async -> MQTTDecision {
            filter.hasPrefix("forbidden/") ? .refuse("forbidden") : .accept
        }
        func publish(_ message: MQTTPublish, client: MQTTClient<String>) async -> MQTTDecision {
            if message.topic == "refuse" { return .refuse("refused topic") }
            taken.withLock { $0.append(message) }
            return .accept
        }
    }

    /// Runs a broker on a free port for `body`, then stops it.
    func withBroker(_ limits: MQTTBrokerLimits = MQTTBrokerLimits(maxPacketBytes: 4096, maxSubscriptionsPerClient: 3, idleTimeout: 5),
                    _ body: @Sendable (MQTTBroker<Recorder>, Recorder, Int) async throws -> Void) async throws {
        let recorder = Recorder()
        let broker = MQTTBroker(delegate: recorder, limits: limits)
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let serving = Task { try await broker.run(host: "127.0.0.1", port: 0) { listening.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        defer { serving.cancel() }
        try await body(broker, recorder, port)
    }

    /// A raw client connection: packets out, packets in (`nil` once the broker closed it).
    /// Used by one test task at a time (its iterator is the inbound stream's only one).
    final class Connection: @unchecked Sendable {
        let channel: NIOAsyncChannel<MQTTPacket, ByteBuffer>
        private var iterator: NIOAsyncChannelInboundStream<MQTTPacket>.AsyncIterator

        init(channel: NIOAsyncChannel<MQTTPacket, ByteBuffer>) {
            self.channel = channel
            iterator = channel.inbound.makeAsyncIterator()
        }

        deinit {
            channel.outbound.finish()
            channel.channel.close(promise: nil)
        }

        static func open(_ port: Int) async throws -> Connection {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MQTTFrameDecoder(maxPacketBytes: 1 << 20)))
                    return try NIOAsyncChannel<MQTTPacket, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
            return Connection(channel: channel)
        }

        func send(_ packet: MQTTPacket) async throws { try await send(packet.encoded()) }
        func send(_ bytes: [UInt8]) async throws { try await channel.outbound.write(ByteBuffer(bytes: bytes)) }

        func next() async throws -> MQTTPacket? {
            do { return try await iterator.next() } catch { return nil }
        }

        /// Connects as "gw" with `password`; the CONNACK.
        static func connected(_ port: Int, password: String = "secret", keepAlive: UInt16 = 60) async throws -> (Connection, MQTTPacket?) {
            let c = try await open(port)
            try await c.send(.connect(MQTTConnect(keepAlive: keepAlive, clientID: "gw-\(password)-\(keepAlive)", username: "gw", password: Array(password.utf8))))
            return (c, try await c.next())
        }
    }

    @Test func aWrongPasswordIsRefusedInTheConnack() async throws {
        try await withBroker { _, _, port in
            let (c, ack) = try await Connection.connected(port, password: "guess")
            #expect(ack == .connack(sessionPresent: false, returnCode: .badUsernameOrPassword))
            #expect(try await c.next() == nil, "closed after the refusal")
        }
    }

    @Test func mqtt5IsAnsweredUnacceptableVersion() async throws {
        try await withBroker { _, _, port in
            let c = try await Connection.open(port)
            try await c.send([0x10, 0x0D, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x05, 0x02, 0x00, 0x3C, 0x00, 0x00, 0x00])
            #expect(try await c.next() == .connack(sessionPresent: false, returnCode: .unacceptableProtocolVersion))
        }
    }

    @Test func subscriptionsAreGrantedRefusedAndDelivered() async throws {
        try await withBroker { broker, _, port in
            let (c, ack) = try await Connection.connected(port)
            #expect(ack == .connack(sessionPresent: false, returnCode: .accepted))
            try await c.send(.subscribe(packetID: 7, [MQTTSubscription(filter: "v1.1/Things", qos: 2),
                                                      MQTTSubscription(filter: "forbidden/x", qos: 0),
                                                      MQTTSubscription(filter: "a", qos: 0), MQTTSubscription(filter: "b", qos: 0),
                                                      MQTTSubscription(filter: "c", qos: 0)]))
            // QoS 2 is granted as 1; the forbidden filter and the fourth one (limit 3) are refused.
            #expect(try await c.next() == .suback(packetID: 7, [1, 0x80, 0, 0, 0x80]))
            let (client, subscriptions) = try #require(broker.subscribers().first)
            #expect(client.identity == "gw" && subscriptions == ["v1.1/Things": 1, "a": 0, "b": 0])
            #expect(broker.send("v1.1/Things", payload: Array("{}".utf8), qos: 1, to: client.connection))
            guard case .publish(let message) = try await c.next() else { Issue.record("no PUBLISH"); return }
            #expect(message.topic == "v1.1/Things" && message.qos == 1 && message.payload == Array("{}".utf8))
            try await c.send(.puback(packetID: try #require(message.packetID)))
            try await c.send(.unsubscribe(packetID: 8, ["a"]))
            #expect(try await c.next() == .unsuback(packetID: 8))
            try await c.send(.pingreq)
            #expect(try await c.next() == .pingresp)
            #expect(broker.subscribers().first?.subscriptions == ["v1.1/Things": 1, "b": 0])
            // The application fell behind: every subscriber is closed, so none stays connected having missed messages.
            let (idle, _) = try await Connection.connected(port, keepAlive: 30)
            #expect(broker.disconnectAll() == 1)
            #expect(try await c.next() == nil)
            try await idle.send(.pingreq)
            #expect(try await idle.next() == .pingresp, "a connection without subscriptions stays")
        }
    }

    @Test func publicationsAreAcknowledgedOnceTaken() async throws {
        try await withBroker { _, recorder, port in
            let (c, _) = try await Connection.connected(port)
            try await c.send(.publish(MQTTPublish(topic: "t", payload: [1], qos: 1, packetID: 3)))
            #expect(try await c.next() == .puback(packetID: 3))
            // QoS 2: PUBREC; a re-sent copy before PUBREL is acknowledged again but not taken twice.
            try await c.send(.publish(MQTTPublish(topic: "t", payload: [2], qos: 2, packetID: 4)))
            #expect(try await c.next() == .pubrec(packetID: 4))
            try await c.send(.publish(MQTTPublish(topic: "t", payload: [2], qos: 2, dup: true, packetID: 4)))
            #expect(try await c.next() == .pubrec(packetID: 4))
            try await c.send(.pubrel(packetID: 4))
            #expect(try await c.next() == .pubcomp(packetID: 4))
            #expect(recorder.taken.withLock { $0.map(\.payload) } == [[1], [2]])
        }
    }

    @Test func aRefusedPublishClosesWithoutAcknowledgement() async throws {
        try await withBroker { _, recorder, port in
            let (c, _) = try await Connection.connected(port)
            try await c.send(.publish(MQTTPublish(topic: "refuse", payload: [9], qos: 1, packetID: 5)))
            #expect(try await c.next() == nil)
            #expect(recorder.taken.withLock { $0.isEmpty })
        }
    }

    @Test func anOversizedOrMalformedPacketCloses() async throws {
        try await withBroker { _, recorder, port in
            let (big, _) = try await Connection.connected(port)
            try await big.send(.publish(MQTTPublish(topic: "t", payload: Array(repeating: 0, count: 5000))))
            #expect(try await big.next() == nil, "over maxPacketBytes (4096)")
            let (bad, _) = try await Connection.connected(port, keepAlive: 61)
            try await bad.send([0xF0, 0x00])
            #expect(try await bad.next() == nil, "reserved packet type")
            #expect(recorder.taken.withLock { $0.isEmpty })
        }
    }

    @Test func aSilentClientIsClosedAfterOneAndAHalfKeepAlives() async throws {
        try await withBroker { broker, _, port in
            // The broker counts the silence from the CONNECT it received (MQTT 3.1.1 §3.1.2.10), which
            // is before the CONNACK reaches the client: the time is taken before connecting.
            let start = ContinuousClock.now
            let (c, ack) = try await Connection.connected(port, keepAlive: 1)
            #expect(ack == .connack(sessionPresent: false, returnCode: .accepted))
            #expect(try await c.next() == nil)
            #expect(ContinuousClock.now - start >= .seconds(1.5))
            #expect(broker.subscribers().isEmpty)
        }
    }

    @Test func connectionsBeyondTheLimitAreTurnedAway() async throws {
        try await withBroker(MQTTBrokerLimits(maxConnections: 1, idleTimeout: 5)) { _, _, port in
            let (first, ack) = try await Connection.connected(port)
            #expect(ack == .connack(sessionPresent: false, returnCode: .accepted))
            let (_, refused) = try await Connection.connected(port, keepAlive: 30)
            #expect(refused == .connack(sessionPresent: false, returnCode: .serverUnavailable))
            try await first.send(.disconnect)
        }
    }
}
