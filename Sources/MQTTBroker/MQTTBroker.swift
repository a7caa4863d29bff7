import Logging
import NIOCore
import NIOPosix
import Synchronization

/// An MQTT 3.1.1 broker on SwiftNIO whose behaviour is its delegate's: the delegate authenticates
/// each CONNECT, authorizes each subscription and takes each PUBLISH; the broker keeps the
/// connections and their subscriptions, acknowledges what the delegate took, and delivers what the
/// application sends (`send`) at QoS 0 or 1 to the subscribers it picks (`subscribers`).
///
/// The protocol's rules are kept (a malformed packet, a second CONNECT, a refused PUBLISH close the
/// connection) and so are the limits (`MQTTBrokerLimits`): packet size, subscriptions per client,
/// connections, a subscriber's backlog, keep-alive (1.5 × the client's). Sessions are clean: a
/// client's subscriptions end with its connection (a CONNECT asking to resume one is answered
/// "session present: 0"); retained messages and wills are not kept (nothing is forwarded between
/// clients). A QoS 2 PUBLISH is taken once (PUBREC, then PUBCOMP on PUBREL); subscriptions are
/// granted at most QoS 1.
public final class MQTTBroker<Delegate: MQTTBrokerDelegate>: Sendable {
    public typealias Identity = Delegate.Identity

    let delegate: Delegate
    public let limits: MQTTBrokerLimits
    let logger: Logger
    private let sessions = Mutex([UInt64: (session: MQTTSession, client: MQTTClient<Identity>)]())
    private let connections = Atomic<Int>(0)
    private let nextNumber = Atomic<UInt64>(1)

    public init(delegate: Delegate, limits: MQTTBrokerLimits = MQTTBrokerLimits(), logger: Logger = Logger(label: "citytwin.mqtt")) {
        self.delegate = delegate
        self.limits = limits
        self.logger = logger
    }

    /// Every connected client with its subscriptions (topic filter → granted QoS).
    public func subscribers() -> [(client: MQTTClient<Identity>, subscriptions: [String: UInt8])] {
        let all = sessions.withLock { Array($0.values) }
        return all.map { ($0.client, $0.session.subscriptions) }.filter { !$0.1.isEmpty }
    }

    /// Sends a message to connection `connection` at `qos` (0 or 1); `false` when it is gone, or was
    /// too far behind and has been disconnected.
    @discardableResult
    public func send(_ topic: String, payload: [UInt8], qos: UInt8, to connection: UInt64) -> Bool {
        guard let session = sessions.withLock({ $0[connection]?.session }) else { return false }
        let sent = session.send(topic: topic, payload: payload, qos: qos)
        if !sent { logger.warning("MQTT client '\(session.clientID)' fell \(limits.maxQueuedMessages) messages behind: disconnected") }
        return sent
    }

    /// Every connected client (after its CONNECT was accepted), with or without subscriptions.
    public func clients() -> [MQTTClient<Identity>] {
        sessions.withLock { $0.values.map(\.client) }
    }

    /// Closes connection `connection` (its token is no longer valid, say): `false` when it is gone
    /// already. MQTT 3.1.1 has no DISCONNECT from the server: the client sees the connection closed.
    @discardableResult
    public func disconnect(_ connection: UInt64) -> Bool {
        guard let session = sessions.withLock({ $0[connection]?.session }) else { return false }
        session.close()
        return true
    }

    /// Closes every connection that holds a subscription (the application could not deliver
    /// everything it owed them); how many.
    @discardableResult
    public func disconnectAll() -> Int {
        let subscribed = sessions.withLock { $0.values.map(\.session) }.filter { !$0.subscriptions.isEmpty }
        for session in subscribed { session.close() }
        return subscribed.count
    }

    /// Connections open now (counted from accept, before CONNECT).
    public var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// Listens on `host:port` (0: a free port) and serves until the task is cancelled; `onListening`
    /// gets the bound port.
    public func run(host: String, port: Int, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let maxPacket = limits.maxPacketBytes
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MQTTFrameDecoder(maxPacketBytes: maxPacket)))
                    return try NIOAsyncChannel<MQTTPacket, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        await onListening(server.channel.localAddress?.port ?? port)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await connection in inbound {
                    group.addTask { await self.serve(connection) }
                }
            }
        }
    }

    private func serve(_ connection: NIOAsyncChannel<MQTTPacket, ByteBuffer>) async {
        connections.add(1, ordering: .relaxed)
        defer { connections.subtract(1, ordering: .relaxed) }
        let channel = connection.channel
        let address = channel.remoteAddress?.description ?? "unknown"
        // No CONNECT within the idle timeout: closed.
        let connectDeadline = Task { [limits] in
            try? await Task.sleep(for: .seconds(limits.idleTimeout))
            if !Task.isCancelled { channel.close(promise: nil) }
        }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var packets = inbound.makeAsyncIterator()
                guard let first = try await packets.next() else { return }
                connectDeadline.cancel()
                guard case .connect(let request) = first else { throw MQTTProtocolError("the first packet is not CONNECT") }
                func refuse(_ code: MQTTConnectReturnCode, _ reason: String) async throws {
                    logger.notice("MQTT CONNECT from \(address) (client '\(request.clientID)') refused: \(reason)")
                    try await outbound.write(ByteBuffer(bytes: MQTTPacket.connack(sessionPresent: false, returnCode: code).encoded()))
                }
                guard request.isSupportedVersion else {
                    return try await refuse(.unacceptableProtocolVersion, "protocol level \(request.protocolLevel); this broker speaks MQTT 3.1.1 (4) and 3.1 (3)")
                }
                guard connections.load(ordering: .relaxed) <= limits.maxConnections else {
                    return try await refuse(.serverUnavailable, "\(limits.maxConnections) connections are open already")
                }
                guard !request.clientID.isEmpty || request.cleanSession else {
                    return try await refuse(.identifierRejected, "an empty client id needs a clean session")
                }
                let identity: Identity
                switch await delegate.connect(request, address: address) {
                case .accept(let id): identity = id
                case .refuse(let code, let reason): return try await refuse(code, reason)
                }
                let number = nextNumber.wrappingAdd(1, ordering: .relaxed).oldValue
                let clientID = request.clientID.isEmpty ? "citytwin-\(number)" : request.clientID
                let session = MQTTSession(number: number, clientID: clientID, channel: channel, maxQueued: limits.maxQueuedMessages)
                let client = MQTTClient(connection: number, clientID: clientID, identity: identity, address: address)
                // A client id connects once: the older connection is closed (§3.1.4).
                let older = sessions.withLock { all -> MQTTSession? in
                    let old = all.values.first { $0.client.clientID == clientID }?.session
                    all[number] = (session, client)
                    return old
                }
                older?.close()
                defer {
                    sessions.withLock { _ = $0.removeValue(forKey: number) }
                    session.finish()
                }
                session.enqueue(.connack(sessionPresent: false, returnCode: .accepted))
                let keepAlive = request.keepAlive == 0 ? limits.idleTimeout : Double(request.keepAlive) * 1.5
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await packet in session.packets {
                            try await outbound.write(ByteBuffer(bytes: packet.encoded()))
                            session.wrote()
                        }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try await Task.sleep(for: .seconds(min(keepAlive / 4, 5)))
                            if session.silence > keepAlive {
                                self.logger.notice("MQTT client '\(clientID)' silent for \(Int(keepAlive)) s (keep-alive): disconnected")
                                session.close()
                                return
                            }
                        }
                    }
                    defer { group.cancelAll() }
                    while let packet = try await packets.next() {
                        session.heard()
                        guard try await self.handle(packet, session: session, client: client) else { break }
                    }
                    session.finish()
                }
            }
        } catch let error as MQTTProtocolError {
            logger.notice("MQTT connection from \(address) closed: \(error.message)")
        } catch {
            logger.debug("MQTT connection from \(address) ended: \(error)")
        }
        connectDeadline.cancel()
    }

    /// Answers one packet of a connected client; `false` ends the connection.
    private func handle(_ packet: MQTTPacket, session: MQTTSession, client: MQTTClient<Identity>) async throws -> Bool {
        switch packet {
        case .publish(let message):
            if message.qos == 2, let id = message.packetID, session.hasReceivedQoS2(id) {
                session.enqueue(.pubrec(packetID: id))  // a re-sent message already taken: acknowledged again, not taken twice
                return true
            }
            switch await delegate.publish(message, client: client) {
            case .accept:
                if message.qos == 1, let id = message.packetID { session.enqueue(.puback(packetID: id)) }
                if message.qos == 2, let id = message.packetID {
                    session.receiveQoS2(id)
                    session.enqueue(.pubrec(packetID: id))
                }
                return true
            case .refuse(let reason):
                logger.warning("MQTT PUBLISH to '\(message.topic)' by '\(client.clientID)' refused, connection closed: \(reason)")
                session.close()
                return false
            }
        case .pubrel(let id):
            session.released(id)
            session.enqueue(.pubcomp(packetID: id))
        case .puback(let id):
            session.acknowledged(id)
        case .subscribe(let id, let list):
            var codes = [UInt8]()
            for s in list {
                guard session.subscriptions[s.filter] != nil || session.subscriptions.count < limits.maxSubscriptionsPerClient else {
                    logger.notice("MQTT SUBSCRIBE to '\(s.filter)' by '\(client.clientID)' refused: \(limits.maxSubscriptionsPerClient) subscriptions held already")
                    codes.append(MQTTPacket.subscriptionFailure)
                    continue
                }
                switch await delegate.subscribe(s.filter, client: client) {
                case .accept:
                    let granted = min(s.qos, 1)
                    codes.append(session.subscribe(s.filter, qos: granted, limit: limits.maxSubscriptionsPerClient) ? granted : MQTTPacket.subscriptionFailure)
                case .refuse(let reason):
                    logger.notice("MQTT SUBSCRIBE to '\(s.filter)' by '\(client.clientID)' refused: \(reason)")
                    codes.append(MQTTPacket.subscriptionFailure)
                }
            }
            session.enqueue(.suback(packetID: id, codes))
        case .unsubscribe(let id, let filters):
            for f in filters { session.unsubscribe(f) }
            session.enqueue(.unsuback(packetID: id))
        case .pingreq:
            session.enqueue(.pingresp)
        case .disconnect:
            return false
        case .connect:
            throw MQTTProtocolError("a second CONNECT on one connection")
        case .connack, .suback, .unsuback, .pingresp, .pubrec, .pubcomp:
            throw MQTTProtocolError("a client does not send \(packet)")
        }
        return true
    }
}

/// Cuts the byte stream into packets, refusing one longer than `maxPacketBytes` as soon as its
/// fixed header says so.
struct MQTTFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = MQTTPacket
    let maxPacketBytes: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let header = try MQTTFixedHeader.parse(buffer.readableBytesView) else { return .needMoreData }
        guard header.packetLength <= maxPacketBytes else {
            throw MQTTProtocolError("a packet of \(header.packetLength) bytes is over this broker's limit of \(maxPacketBytes)")
        }
        guard buffer.readableBytes >= header.packetLength, let bytes = buffer.readBytes(length: header.packetLength) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(try MQTTPacket.decode(bytes)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}
