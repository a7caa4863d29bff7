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
/// connection) and so are the limits (`MQTTBrokerLimits`): a small first packet and a deadline for
/// it before anything else is read (`MQTTFrameHandler`), a packet size per principal, connections
/// not yet sent their CONNECT per address, connected clients in all, anonymous ones in all and per
/// address (the rest kept for clients with credentials), subscriptions per client, a subscriber's
/// backlog, keep-alive capped (and enforced at 1.5 × the client's). A client id in use is taken
/// over only by the same principal (`MQTTPrincipal`). Sessions are clean: a
/// client's subscriptions end with its connection (a CONNECT asking to resume one is answered
/// "session present: 0"); retained messages and wills are not kept (nothing is forwarded between
/// clients). A QoS 2 PUBLISH is taken once (PUBREC, then PUBCOMP on PUBREL); subscriptions are
/// granted at most QoS 1.
public final class MQTTBroker<Delegate: MQTTBrokerDelegate>: Sendable {
    public typealias Identity = Delegate.Identity

    let delegate: Delegate
    public let limits: MQTTBrokerLimits
    let logger: Logger
    private let registry = Mutex(Registry())
    private let connections = Atomic<Int>(0)
    private let nextNumber = Atomic<UInt64>(1)

    /// The connections the broker holds: those that have not sent their CONNECT yet, and the
    /// connected clients.
    private struct Registry {
        /// Connections accepted whose CONNECT has not been read yet, by number (the order of accept).
        var pending = [UInt64: (host: String, channel: any Channel)]()
        var sessions = [UInt64: Connected]()
    }

    private struct Connected {
        var session: MQTTSession
        var client: MQTTClient<Identity>
        /// The peer's IP address (`MQTTClient.address` has its port too).
        var host: String
    }

    public init(delegate: Delegate, limits: MQTTBrokerLimits = MQTTBrokerLimits(), logger: Logger = Logger(label: "citytwin.mqtt")) {
        self.delegate = delegate
        self.limits = limits
        self.logger = logger
    }

    /// Every connected client with its subscriptions (topic filter → granted QoS).
    public func subscribers() -> [(client: MQTTClient<Identity>, subscriptions: [String: UInt8])] {
        let all = registry.withLock { Array($0.sessions.values) }
        return all.map { ($0.client, $0.session.subscriptions) }.filter { !$0.1.isEmpty }
    }

    /// Sends a message to connection `connection` at `qos` (0 or 1); `false` when it is gone, or was
    /// too far behind and has been disconnected.
    @discardableResult
    public func send(_ topic: String, payload: [UInt8], qos: UInt8, to connection: UInt64) -> Bool {
        guard let session = registry.withLock({ $0.sessions[connection]?.session }) else { return false }
        let sent = session.send(topic: topic, payload: payload, qos: qos)
        if !sent { logger.warning("MQTT client '\(session.clientID)' fell \(limits.maxQueuedMessages) messages behind: disconnected") }
        return sent
    }

    /// Every connected client (after its CONNECT was accepted), with or without subscriptions.
    public func clients() -> [MQTTClient<Identity>] {
        registry.withLock { $0.sessions.values.map(\.client) }
    }

    /// Closes the connected client `connection` (`MQTTClient.connection`), logging `reason` with its
    /// client id (e.g. the application found its token revoked): from now on it is sent nothing and
    /// no longer among `subscribers()`. `false` when it is gone already.
    @discardableResult
    public func close(_ connection: UInt64, reason: String) -> Bool {
        guard let session = registry.withLock({ $0.sessions.removeValue(forKey: connection)?.session }) else { return false }
        logger.notice("MQTT client '\(session.clientID)' disconnected: \(reason)")
        session.close()
        return true
    }

    /// Closes every connection that holds a subscription (the application could not deliver
    /// everything it owed them); how many.
    @discardableResult
    public func disconnectAll() -> Int {
        let subscribed = registry.withLock { $0.sessions.values.map(\.session) }.filter { !$0.subscriptions.isEmpty }
        for session in subscribed { session.close() }
        return subscribed.count
    }

    /// Connections open now (counted from accept, before CONNECT).
    public var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// Connections accepted since the broker started.
    var acceptedCount: UInt64 { nextNumber.load(ordering: .relaxed) - 1 }

    /// Connections that have not sent their CONNECT yet.
    var pendingCount: Int { registry.withLock { $0.pending.count } }

    /// Connected clients now (CONNECT accepted), and how many of them are anonymous.
    public var clientCount: (all: Int, anonymous: Int) {
        registry.withLock { r in (r.sessions.count, r.sessions.values.count(where: { $0.client.principal == .anonymous })) }
    }

    /// Listens on `host:port` (0: a free port) and serves until the task is cancelled; `onListening`
    /// gets the bound port.
    public func run(host: String, port: Int, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let maxConnect = min(limits.maxConnectBytes, limits.maxPacketBytes)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { [self] channel in
                // On accept, in the order of accept (not when its task runs): numbered, counted as
                // pending until its CONNECT is read, given its deadline.
                channel.eventLoop.makeCompletedFuture {
                    let number = nextNumber.wrappingAdd(1, ordering: .relaxed).oldValue
                    let address = channel.remoteAddress?.description ?? "unknown"
                    let host = channel.remoteAddress?.ipAddress ?? address
                    admitPending(number, host: host, channel: channel)
                    let deadline = channel.eventLoop.scheduleTask(in: .nanoseconds(Int64(limits.connectTimeout * 1e9))) { [self] in
                        guard registry.withLock({ $0.sessions[number] == nil }) else { return }
                        logger.info("MQTT connection from \(address) closed: no CONNECT accepted within \(limits.connectTimeout) s")
                        channel.close(promise: nil)
                    }
                    try channel.pipeline.syncOperations.addHandler(MQTTFrameHandler(maxConnectBytes: maxConnect) { [self] in
                        registry.withLock { _ = $0.pending.removeValue(forKey: number) }
                    })
                    return Accepted(number: number, address: address, host: host, deadline: deadline,
                                    channel: try NIOAsyncChannel<MQTTPacket, ByteBuffer>(wrappingChannelSynchronously: channel))
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

    /// Registers a connection that has not sent its CONNECT yet, closing the oldest such connections
    /// of its address (then of all) beyond the limits, so that a flood of silent connections makes
    /// way for a client that connects properly instead of locking it out (issue 78 §4).
    private func admitPending(_ number: UInt64, host: String, channel: any Channel) {
        let evicted = registry.withLock { r -> [(any Channel, String)] in
            var out = [(any Channel, String)]()
            var ofHost = r.pending.filter { $0.value.host == host }.keys.sorted()
            while ofHost.count >= limits.maxPendingPerAddress, let oldest = ofHost.first {
                ofHost.removeFirst()
                if let old = r.pending.removeValue(forKey: oldest) {
                    out.append((old.channel, "\(limits.maxPendingPerAddress) connections from \(host) had not sent CONNECT"))
                }
            }
            if r.pending.count >= limits.maxPendingConnections {
                for oldest in r.pending.keys.sorted().prefix(r.pending.count - limits.maxPendingConnections + 1) {
                    if let old = r.pending.removeValue(forKey: oldest) {
                        out.append((old.channel, "\(limits.maxPendingConnections) connections had not sent CONNECT"))
                    }
                }
            }
            r.pending[number] = (host, channel)
            return out
        }
        for (old, why) in evicted {
            logger.info("MQTT connection from \(old.remoteAddress?.description ?? "unknown") closed: \(why); the oldest made way for a new one")
            old.close(promise: nil)
        }
    }

    /// Why a client `principal` at `host` may not be connected as `clientID`, or the connected client
    /// it takes the place of (`nil` `replacing`: none). Called with the registry locked, so the
    /// quotas are counted with the client that takes the slot.
    private func admission(_ r: Registry, clientID: String, principal: MQTTPrincipal, host: String)
        -> (refusal: (MQTTConnectReturnCode, String)?, replacing: UInt64?) {
        var replacing: UInt64?
        if let found = r.sessions.first(where: { $0.value.client.clientID == clientID }) {
            let held = found.value
            // A client id is taken over only by the identity that holds it (§3.1.4's takeover, kept
            // within one identity): the same identified principal, or an anonymous client from the
            // same address; an identified client also takes an id an anonymous one holds, so no
            // anonymous client keeps a gateway out by squatting its id. Another CONNECT is refused
            // and the connected client kept (issue 78 §5).
            let sameIdentity = switch (held.client.principal, principal) {
            case (.identified(let a), .identified(let b)): a == b
            case (.anonymous, .anonymous): held.host == host
            case (.anonymous, .identified): true
            case (.identified, .anonymous): false
            }
            guard sameIdentity else { return ((.identifierRejected, "the client id is in use by another identity"), nil) }
            replacing = found.key
        }
        let others = r.sessions.values.filter { $0.client.connection != replacing }
        guard others.count < limits.maxConnections else {
            return ((.serverUnavailable, "\(limits.maxConnections) clients are connected already"), nil)
        }
        if principal == .anonymous {
            let anonymous = others.filter { $0.client.principal == .anonymous }
            guard anonymous.count < limits.maxAnonymousConnections else {
                return ((.serverUnavailable, "\(limits.maxAnonymousConnections) anonymous clients are connected already (the other slots are kept for clients with credentials)"), nil)
            }
            guard anonymous.count(where: { $0.host == host }) < limits.maxAnonymousConnectionsPerAddress else {
                return ((.serverUnavailable, "\(limits.maxAnonymousConnectionsPerAddress) anonymous clients from \(host) are connected already"), nil)
            }
        }
        return (nil, replacing)
    }

    /// A connection as accepted: its number, its peer (`address` with the port, for logs; `host`
    /// without, for the quotas) and its CONNECT deadline.
    private struct Accepted: Sendable {
        var number: UInt64
        var address: String
        var host: String
        var deadline: Scheduled<Void>
        var channel: NIOAsyncChannel<MQTTPacket, ByteBuffer>
    }

    private func serve(_ accepted: Accepted) async {
        connections.add(1, ordering: .relaxed)
        defer { connections.subtract(1, ordering: .relaxed) }
        let (connection, number, address, host, deadline) = (accepted.channel, accepted.number, accepted.address, accepted.host, accepted.deadline)
        let channel = connection.channel
        defer {
            deadline.cancel()
            registry.withLock { _ = $0.pending.removeValue(forKey: number) }
        }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var packets = inbound.makeAsyncIterator()
                guard let first = try await packets.next() else { return }
                guard case .connect(let request) = first else { throw MQTTProtocolError("the first packet is not CONNECT") }
                func refuse(_ code: MQTTConnectReturnCode, _ reason: String) async throws {
                    logger.notice("MQTT CONNECT from \(address) (client '\(request.clientID)') refused: \(reason)")
                    try await outbound.write(ByteBuffer(bytes: MQTTPacket.connack(sessionPresent: false, returnCode: code).encoded()))
                }
                guard request.isSupportedVersion else {
                    return try await refuse(.unacceptableProtocolVersion, "protocol level \(request.protocolLevel); this broker speaks MQTT 3.1.1 (4) and 3.1 (3)")
                }
                guard !request.clientID.isEmpty || request.cleanSession else {
                    return try await refuse(.identifierRejected, "an empty client id needs a clean session")
                }
                // mosquitto's max_keepalive for MQTT 3.1.1 (CVE-2020-13849): a client that may stay
                // silent longer, or forever (0), is refused, so an idle connection cannot hold a slot for hours.
                guard request.keepAlive != 0, Int(request.keepAlive) <= limits.maxKeepAlive else {
                    return try await refuse(.identifierRejected, "keep-alive \(request.keepAlive) s; this broker takes 1…\(limits.maxKeepAlive) s")
                }
                guard registry.withLock({ $0.sessions.count }) < limits.maxConnections else {
                    return try await refuse(.serverUnavailable, "\(limits.maxConnections) clients are connected already")
                }
                let identity: Identity, principal: MQTTPrincipal
                switch await delegate.connect(request, address: address) {
                case .accept(let id, let who): (identity, principal) = (id, who)
                case .refuse(let code, let reason): return try await refuse(code, reason)
                }
                guard channel.isActive else { return }
                let clientID = request.clientID.isEmpty ? "citytwin-\(number)" : request.clientID
                let session = MQTTSession(number: number, clientID: clientID, channel: channel, maxQueued: limits.maxQueuedMessages)
                let client = MQTTClient(connection: number, clientID: clientID, identity: identity, address: address, principal: principal)
                let (refusal, replaced) = registry.withLock { r -> ((MQTTConnectReturnCode, String)?, MQTTSession?) in
                    let (refusal, replacing) = admission(r, clientID: clientID, principal: principal, host: host)
                    if refusal != nil { return (refusal, nil) }
                    let old = replacing.flatMap { r.sessions.removeValue(forKey: $0)?.session }
                    r.sessions[number] = Connected(session: session, client: client, host: host)
                    return (nil, old)
                }
                if let refusal { return try await refuse(refusal.0, refusal.1) }
                deadline.cancel()
                // The older connection of this client id is closed (§3.1.4).
                replaced?.close()
                defer {
                    registry.withLock { _ = $0.sessions.removeValue(forKey: number) }
                    session.finish()
                }
                session.enqueue(.connack(sessionPresent: false, returnCode: .accepted))
                let maxPacket = principal == .anonymous ? min(limits.maxAnonymousPacketBytes, limits.maxPacketBytes) : limits.maxPacketBytes
                channel.pipeline.fireUserInboundEventTriggered(MQTTFrameHandler.Admitted(maxPacketBytes: maxPacket))
                let keepAlive = Double(request.keepAlive) * 1.5
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
/// fixed header says so: a client's reader (the tests' raw client). The broker reads its clients
/// with `MQTTFrameHandler`, whose limits change with the connection's stage.
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
