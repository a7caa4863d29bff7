import Foundation
import GeoCore
import Logging
import MQTTBroker
import ServiceLifecycle
import Synchronization
import TwinStore

/// SensorThings over MQTT (`citytwin serve --mqtt-port N`; docs/capabilities/sensing.md, "MQTT";
/// the limits in docs/operations.md). Each limit is `MQTTBrokerLimits`'s, named as `serve`'s option.
public struct SensorThingsMQTTOptions: Sendable {
    /// The TCP port of the broker (the HTTP server's host).
    public var port: Int
    /// Clients connected at once (`--mqtt-max-connections`).
    public var maxConnections: Int
    /// Anonymous clients connected at once, of `maxConnections` (`--mqtt-max-anonymous`; default half).
    public var maxAnonymous: Int
    /// Anonymous clients connected at once from one address (`--mqtt-max-anonymous-per-address`).
    public var maxAnonymousPerAddress: Int
    /// Connections from one address that have not sent their CONNECT yet (`--mqtt-max-pending-per-address`).
    public var maxPendingPerAddress: Int
    /// Bytes of a CONNECT (`--mqtt-max-connect-bytes`).
    public var maxConnectBytes: Int
    /// Seconds from accept to an accepted CONNECT (`--mqtt-connect-timeout`).
    public var connectTimeout: Double
    /// Bytes of an anonymous client's packet (`--mqtt-max-anonymous-packet-bytes`); a client with a
    /// token may send packets of `--max-body-bytes`.
    public var maxAnonymousPacketBytes: Int
    /// The longest keep-alive a client may ask, in seconds (`--mqtt-max-keepalive`).
    public var maxKeepAlive: Int
    /// Topics one connection may subscribe to (`--mqtt-max-subscriptions`).
    public var maxSubscriptions: Int

    public init(port: Int, maxConnections: Int = 1000, maxAnonymous: Int? = nil, maxAnonymousPerAddress: Int = 32,
                maxPendingPerAddress: Int = 16, maxConnectBytes: Int = 8 * 1024, connectTimeout: Double = 10,
                maxAnonymousPacketBytes: Int = 32 * 1024, maxKeepAlive: Int = 1200, maxSubscriptions: Int = 100) {
        self.port = port
        self.maxConnections = maxConnections
        self.maxAnonymous = maxAnonymous ?? maxConnections / 2
        self.maxAnonymousPerAddress = maxAnonymousPerAddress
        self.maxPendingPerAddress = maxPendingPerAddress
        self.maxConnectBytes = maxConnectBytes
        self.connectTimeout = connectTimeout
        self.maxAnonymousPacketBytes = maxAnonymousPacketBytes
        self.maxKeepAlive = maxKeepAlive
        self.maxSubscriptions = maxSubscriptions
    }

    /// The broker's limits: these, and packets of clients with a token bounded as HTTP bodies are.
    func brokerLimits(maxPacketBytes: Int) -> MQTTBrokerLimits {
        MQTTBrokerLimits(maxConnections: maxConnections, maxAnonymousConnections: maxAnonymous,
                         maxAnonymousConnectionsPerAddress: maxAnonymousPerAddress, maxPendingPerAddress: maxPendingPerAddress,
                         maxPendingConnections: maxConnections, maxConnectBytes: maxConnectBytes, connectTimeout: connectTimeout,
                         maxPacketBytes: maxPacketBytes, maxAnonymousPacketBytes: maxAnonymousPacketBytes, maxKeepAlive: maxKeepAlive,
                         maxSubscriptionsPerClient: maxSubscriptions, maxQueuedMessages: 1000)
    }
}

/// Who is connected: the caller its token stands for, as `CallerMiddleware` makes of a Bearer token.
struct STAMQTTIdentity: Sendable {
    var caller: Caller
    /// The CONNECT password as verified, checked again for as long as the session lasts
    /// (`TokenLife`): at each publish and delivery, and every second by the broker's sweep, which
    /// closes a session whose token was revoked, has expired or no longer matches the secret.
    var token: HeldToken?
}

/// The broker's SensorThings behaviour. CONNECT: the password is a department token (the user name
/// is not used, as with HTTP Basic); none is anonymous. SUBSCRIBE: a topic the caller may read over
/// HTTP (GET of the same path answers 200), else refused in the SUBACK. PUBLISH: an Observation
/// created through the writer HTTP POST uses, with the same checks, audit entry, alerts and feeds.
struct STAMQTTDelegate: MQTTBrokerDelegate {
    /// The SensorThings routes whose access rules, writer and write bound MQTT shares.
    let sensorThings: SensorThingsRoutes
    /// Who a token stands for, checked as for HTTP.
    let callers: CallerMiddleware
    /// The store's token revocation list (`nil`: a store without one).
    let revocations: RevocationList?
    /// The check a session's token passes for as long as the session lasts.
    let tokenLife: TokenLife
    let logger: Logger

    func connect(_ request: MQTTConnect, address: String) async -> MQTTConnectDecision<STAMQTTIdentity> {
        let anonymous = MQTTConnectDecision.accept(STAMQTTIdentity(caller: .anonymous, token: nil), as: .anonymous)
        guard let password = request.password, !password.isEmpty else { return anonymous }
        let token = String(decoding: password, as: UTF8.self)
        do {
            guard let held = try await callers.held(token) else { return anonymous }
            return .accept(STAMQTTIdentity(caller: held.verified.caller, token: held), as: Self.principal(held.verified.caller))
        } catch {
            return .refuse(.badUsernameOrPassword, reason: "the password is not a valid token: \(Self.reason(error))")
        }
    }

    func subscribe(_ filter: String, client: MQTTClient<STAMQTTIdentity>) async -> MQTTDecision {
        guard !MQTTTopic.isWildcard(filter) else { return .refuse("a SensorThings topic names one resource; wildcards are not served") }
        do {
            let topic = try STATopic(filter, optionsAllowed: true)
            let (sensing, _, _) = try await sensorThings.sensorThingsAccess(client.identity.caller, write: false)
            let reader = STAReader(store: sensing, root: sensorThings.site.url(SensorThingsRoutes.sensorThingsRoot))
            let (node, _) = try await reader.resolve(topic.path)
            let kind: SensingKind
            switch node {
            case .property:
                if topic.hasOptions { return .refuse("a property topic takes no query options") }
                return .accept
            case .collection(let k, _), .entity(let k, _): kind = k
            }
            // $expand is checked here as a GET checks it, not at the first delivery.
            for item in topic.options.expand where SensingNavigation.properties(of: kind)[item.path[0]] == nil {
                return .refuse("400 parameter '$expand': \(kind.rawValue) has no navigation property '\(item.path[0])'")
            }
            return .accept
        } catch {
            return .refuse(Self.reason(error))
        }
    }

    func publish(_ message: MQTTPublish, client: MQTTClient<STAMQTTIdentity>) async -> MQTTDecision {
        let caller = client.identity.caller
        do {
            if let reason = await stillValid(client) { return .refuse(reason) }
            let topic = try STATopic(message.topic, optionsAllowed: false)
            let (sensing, _, feedOnly) = try await sensorThings.sensorThingsAccess(caller, write: true)
            let reader = STAReader(store: sensing, root: sensorThings.site.url(SensorThingsRoutes.sensorThingsRoot))
            let (node, _) = try await reader.resolve(topic.path)
            guard case .collection(.observation, let source) = node else {
                return .refuse("MQTT creates Observations: publish to v1.1/Observations or v1.1/Datastreams(n)/Observations")
            }
            let body: JSONValue
            do {
                body = try message.payload.withUnsafeBytes { try JSONValue(json: $0) }
            } catch {
                return .refuse("$: the payload is not JSON (\(error))")
            }
            guard sensorThings.sensingWrites.enter() else {
                return .refuse("\(sensorThings.sensingWrites.limit) SensorThings writes are already in progress or waiting; nothing was written")
            }
            defer { sensorThings.sensingWrites.leave() }
            let id = try await sensorThings.createSensingEntity(.observation, in: source, body, reader: reader, sensing: sensing, caller: caller, feedOnly: feedOnly)
            logger.info("MQTT: Observation \(id) created by '\(client.clientID)' through \(message.topic)")
            return .accept
        } catch {
            return .refuse(Self.reason(error))
        }
    }

    /// Who a caller is for the broker's client-id rule and quotas: a department and the token's
    /// subject (its role when the token names none), or the administrator. Two tokens of one
    /// subject are one identity: a gateway given a new token takes over its own client id.
    static func principal(_ caller: Caller) -> MQTTPrincipal {
        switch caller {
        case .anonymous: .anonymous
        case .admin: .identified("admin")
        case .department(let name, let role, let user):
            .identified(user.map { "department \(name), subject \($0)" } ?? "department \(name), role \(role.rawValue)")
        }
    }

    /// Why `client`'s token may no longer be used (`TokenLife`); `nil` while it is good or the
    /// client is anonymous.
    func stillValid(_ client: MQTTClient<STAMQTTIdentity>) async -> String? {
        guard let token = client.identity.token else { return nil }
        return await tokenLife.reasonToEnd(token)
    }

    static func reason(_ error: any Error) -> String {
        if let p = error as? Problem { return "\(p.kind.status.code) \(p.detail)" }
        return "\(error)"
    }
}

/// Hands each committed SensorThings write to the MQTT subscribers it concerns, in commit order, off
/// the request that wrote it. Each subscriber gets what a GET of its topic by its caller would show
/// (the same JSON, its `$select`/`$expand`), only while that caller may read the service and its
/// token is not revoked. Writes through other servers on the same store are not seen here.
final class SensorThingsMQTT: Sendable {
    private struct State {
        var broker: MQTTBroker<STAMQTTDelegate>?
        var delivering: Task<Void, Never>?
        var events: AsyncStream<STAChangeEvent>.Continuation?
        var logger: Logger?
    }

    private let state = Mutex(State())

    /// Tells subscribers of `change` (committed; `observationIDs`: the stored ids of its new observations).
    /// When the writes outrun the deliveries by `backlog` changes, the oldest is dropped and every
    /// subscriber is disconnected: a connected subscriber has been sent every change since it subscribed.
    func changed(_ change: SensingChange, observationIDs: [Int64]) {
        let overrun = state.withLock { s -> MQTTBroker<STAMQTTDelegate>? in
            guard let broker = s.broker, let events = s.events, !broker.subscribers().isEmpty else { return nil }
            let event = STAChangeEvent(change, observationIDs: observationIDs)
            guard !event.isEmpty, case .dropped = events.yield(event) else { return nil }
            return broker
        }
        if let overrun {
            let dropped = overrun.disconnectAll()
            logger?.error("MQTT: SensorThings writes outran the deliveries by \(Self.backlog) changes; \(dropped) subscribers disconnected so they know they missed some")
        }
    }

    static let backlog = 10_000
    private var logger: Logger? { state.withLock { $0.logger } }

    /// Serves `options` with `delegate`'s rules until cancelled (a graceful stop); the packets of
    /// clients with a token bounded as the HTTP server's `limits` bound request bodies.
    func run(_ delegate: STAMQTTDelegate, limits requestLimits: RequestLimits, host: String, options: SensorThingsMQTTOptions) async throws {
        let limits = options.brokerLimits(maxPacketBytes: requestLimits.maxBodyBytes)
        let broker = MQTTBroker(delegate: delegate, limits: limits, logger: delegate.logger)
        let (events, continuation) = AsyncStream<STAChangeEvent>.makeStream(bufferingPolicy: .bufferingNewest(Self.backlog))
        let delivering = Task { for await event in events { await self.deliver(event, broker: broker, delegate: delegate) } }
        let sweeping = Task { await Self.sweep(broker, delegate: delegate) }
        state.withLock { $0 = State(broker: broker, delivering: delivering, events: continuation, logger: delegate.logger) }
        defer {
            continuation.finish()
            delivering.cancel()
            sweeping.cancel()
            state.withLock { $0 = State() }
        }
        let logger = delegate.logger
        try await cancelWhenGracefulShutdown {
            try await broker.run(host: host, port: options.port) { port in
                logger.notice("SensorThings MQTT broker on \(host):\(port) (topics v1.1/…)")
            }
        }
    }

    /// Every `TokenLife.checkInterval`, every session that connected with a token has it checked
    /// (each token once); a session whose token was revoked, has expired or no longer matches the
    /// rotated secret is closed. MQTT 3.1.1 has no DISCONNECT from the server, so the reason goes to
    /// the log (naming the client id, never the token), and the client sees its connection closed.
    static func sweep(_ broker: MQTTBroker<STAMQTTDelegate>, delegate: STAMQTTDelegate) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: TokenLife.checkInterval)
            var verdicts = [String: String?]()
            for client in broker.clients() {
                guard let token = client.identity.token else { continue }
                if verdicts[token.text] == nil { verdicts[token.text] = .some(await delegate.tokenLife.reasonToEnd(token)) }
                guard let reason = verdicts[token.text] ?? nil else { continue }
                broker.close(client.connection, reason: "\(LiveStreams.describe(client.identity.caller)): \(reason)")
            }
        }
    }

    private func deliver(_ event: STAChangeEvent, broker: MQTTBroker<STAMQTTDelegate>, delegate: STAMQTTDelegate) async {
        let sensorThings = delegate.sensorThings
        guard let sensing = sensorThings.store as? any SensingStore else { return }
        let reader = STAReader(store: sensing, root: sensorThings.site.url(SensorThingsRoutes.sensorThingsRoot))
        var mayRead = [Caller: Bool]()
        var rendered = [String: [UInt8]]()
        for (client, subscriptions) in broker.subscribers() {
            let identity = client.identity
            if mayRead[identity.caller] == nil {
                mayRead[identity.caller] = (try? await sensorThings.sensorThingsAccess(identity.caller, write: false)) != nil
            }
            guard mayRead[identity.caller] == true else { continue }
            // A token no longer valid receives nothing more (the sweep closes its session within a second).
            if await delegate.stillValid(client) != nil { continue }
            for (filter, qos) in subscriptions.sorted(by: { $0.key < $1.key }) {
                guard let topic = try? STATopic(filter, optionsAllowed: true) else { continue }
                do {
                    for payload in try await messages(event, topic: topic, reader: reader, cache: &rendered) {
                        broker.send(filter, payload: payload, qos: qos, to: client.connection)
                    }
                } catch {
                    delegate.logger.debug("MQTT: '\(filter)' not delivered to '\(client.clientID)': \(STAMQTTDelegate.reason(error))")
                }
            }
        }
    }

    /// The messages `event` makes for a subscription to `topic`: one per created member of its
    /// collection, one per update of its entity, one per change of its property.
    private func messages(_ event: STAChangeEvent, topic: STATopic, reader: STAReader, cache: inout [String: [UInt8]]) async throws -> [[UInt8]] {
        guard let last = topic.path.segments.last else { return [] }
        func render(_ kind: SensingKind, _ id: Int64) async throws -> [UInt8]? {
            let key = "\(kind.rawValue)(\(id))?\(topic.options.given.map { "\($0.0)=\($0.1)" }.joined(separator: "&"))"
            if let done = cache[key] { return done }
            guard let row = try await reader.row(kind, id) else { return nil }
            let bytes = JSONText.bytes(.object(try await reader.render(row, topic.options)))
            cache[key] = bytes
            return bytes
        }
        var out = [[UInt8]]()
        if case .name(let set) = last, let kind = SensingKind(entitySet: set) {
            let created = event.created.filter { $0.0 == kind }
            guard !created.isEmpty, case (.collection(_, let source), _) = try await reader.resolve(topic.path) else { return [] }
            for (_, id) in created where try await reader.contains(source, kind, id) {
                if let bytes = try await render(kind, id) { out.append(bytes) }
            }
            return out
        }
        guard !event.updated.isEmpty else { return [] }
        switch try await reader.resolve(topic.path).0 {
        case .entity(let kind, let id):
            for u in event.updated where u.0 == kind && u.1 == id {
                if let bytes = try await render(kind, id) { out.append(bytes) }
            }
        case .property(let kind, let id, let name, _):
            for u in event.updated where u.0 == kind && u.1 == id && u.changed.contains(name) {
                guard let row = try await reader.row(kind, id) else { continue }
                out.append(JSONText.bytes([name: name == "id" ? .integer(id) : (row.json[name] ?? .null)]))
            }
        case .collection:
            break
        }
        return out
    }
}

/// The broker as a service of `citytwin serve`, stopped with the HTTP server.
struct SensorThingsMQTTService: Service {
    let delegate: STAMQTTDelegate
    /// The HTTP server's request limits, which bound the packets of MQTT clients with a token.
    let limits: RequestLimits
    let host: String
    let options: SensorThingsMQTTOptions

    func run() async throws {
        try await delegate.sensorThings.mqtt.run(delegate, limits: limits, host: host, options: options)
    }
}
