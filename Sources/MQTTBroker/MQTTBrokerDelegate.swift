/// What a broker may ask of one client, and how long it waits for it (`MQTTBroker`). The defaults
/// are those of `citytwin serve --mqtt-port` (docs/operations.md, "MQTT"), but for `maxPacketBytes`,
/// which `serve` sets to `--max-body-bytes`.
public struct MQTTBrokerLimits: Sendable {
    /// Clients connected at once (CONNECT accepted); a CONNECT beyond is answered CONNACK 3 (server
    /// unavailable) and closed.
    public var maxConnections: Int
    /// Anonymous clients connected at once, of `maxConnections`: the rest are kept for clients with
    /// credentials, so an anonymous flood cannot lock a gateway out. Beyond: CONNACK 3.
    public var maxAnonymousConnections: Int
    /// Anonymous clients connected at once from one IP address. Beyond: CONNACK 3.
    public var maxAnonymousConnectionsPerAddress: Int
    /// Connections from one IP address that have not sent their CONNECT yet: a new one beyond closes
    /// the oldest of them (not the new one), so a client that connects and sends its CONNECT at once
    /// gets in however many silent connections its address holds.
    public var maxPendingPerAddress: Int
    /// Connections in all that have not sent their CONNECT yet; the oldest is closed beyond, as per address.
    public var maxPendingConnections: Int
    /// Bytes of the first packet, the CONNECT (client id, user name, password or token, will), checked
    /// from its fixed header: the connection is closed on a longer one before its body is read.
    public var maxConnectBytes: Int
    /// Seconds from accept in which a connection must have sent its CONNECT and been accepted; closed after.
    public var connectTimeout: Double
    /// Bytes of one packet of a client with credentials, fixed header included: the connection is
    /// closed on a longer one, as soon as its fixed header is read (nothing of it is buffered).
    public var maxPacketBytes: Int
    /// Bytes of one packet of an anonymous client (at most `maxPacketBytes`), enforced so.
    public var maxAnonymousPacketBytes: Int
    /// The longest keep-alive a CONNECT may ask, in seconds (1…65535): more, or 0 (keep-alive off), is
    /// refused with CONNACK 2, as mosquitto's `max_keepalive` refuses MQTT 3.1.1 clients (a 3.1.1 server
    /// cannot tell the client another value). A client with keep-alive k is closed after 1.5 k seconds
    /// of silence (§3.1.2.10).
    public var maxKeepAlive: Int
    /// Topic filters one connection may hold; one more is refused in its SUBACK (0x80).
    public var maxSubscriptionsPerClient: Int
    /// Messages to one subscriber not yet written or (QoS 1) not yet acknowledged: a subscriber
    /// further behind is disconnected, so it knows it lost messages instead of silently missing them.
    public var maxQueuedMessages: Int

    public init(maxConnections: Int = 1000, maxAnonymousConnections: Int? = nil, maxAnonymousConnectionsPerAddress: Int = 32,
                maxPendingPerAddress: Int = 16, maxPendingConnections: Int? = nil, maxConnectBytes: Int = 8 * 1024,
                connectTimeout: Double = 10, maxPacketBytes: Int = 1 << 20, maxAnonymousPacketBytes: Int = 32 * 1024,
                maxKeepAlive: Int = 1200, maxSubscriptionsPerClient: Int = 100, maxQueuedMessages: Int = 1000) {
        self.maxConnections = maxConnections
        self.maxAnonymousConnections = maxAnonymousConnections ?? maxConnections / 2
        self.maxAnonymousConnectionsPerAddress = maxAnonymousConnectionsPerAddress
        self.maxPendingPerAddress = maxPendingPerAddress
        self.maxPendingConnections = maxPendingConnections ?? maxConnections
        self.maxConnectBytes = maxConnectBytes
        self.connectTimeout = connectTimeout
        self.maxPacketBytes = maxPacketBytes
        self.maxAnonymousPacketBytes = maxAnonymousPacketBytes
        self.maxKeepAlive = maxKeepAlive
        self.maxSubscriptionsPerClient = maxSubscriptionsPerClient
        self.maxQueuedMessages = maxQueuedMessages
    }
}

/// Who a client is, as the broker's quotas and its client-id rule see it: anonymous, or identified
/// by a stable key the delegate chooses (e.g. a department and the token's subject; never a secret).
public enum MQTTPrincipal: Hashable, Sendable {
    case anonymous
    case identified(String)
}

/// A connected client as the delegate sees it.
public struct MQTTClient<Identity: Sendable>: Sendable {
    /// The broker's number for this connection (`MQTTBroker.send(_:payload:qos:to:)`, `MQTTBroker.close(_:reason:)`).
    public let connection: UInt64
    public let clientID: String
    /// What `MQTTBrokerDelegate.connect` made of the credentials.
    public let identity: Identity
    /// The peer's address, for logs.
    public let address: String
    /// Who the delegate said the client is (`MQTTConnectDecision.accept`).
    public let principal: MQTTPrincipal
}

/// The answer to a CONNECT.
public enum MQTTConnectDecision<Identity: Sendable>: Sendable {
    /// Accepted as `identity`, which is `principal` for the broker's quotas, packet limits and client ids.
    case accept(Identity, as: MQTTPrincipal)
    /// Refused with this CONNACK code (4: bad user name or password, 5: not authorized); `reason` is logged.
    case refuse(MQTTConnectReturnCode, reason: String)
}

/// The answer to a SUBSCRIBE's filter or to a PUBLISH.
public enum MQTTDecision: Sendable, Equatable {
    case accept
    /// Refused; `reason` is logged. A refused filter gets 0x80 in the SUBACK; a refused PUBLISH closes
    /// the connection without acknowledging it (MQTT 3.1.1 §3.3.5: the only refusal the protocol has).
    case refuse(String)
}

/// The application behind a broker: it authenticates clients, authorizes their subscriptions and
/// takes their publications. The broker forwards nothing between clients by itself: what subscribers
/// receive is what the application sends them (`MQTTBroker.send`), after it decided what a PUBLISH means.
public protocol MQTTBrokerDelegate: Sendable {
    associatedtype Identity: Sendable

    /// Accepts or refuses a client by its CONNECT (user name, password, client id).
    func connect(_ request: MQTTConnect, address: String) async -> MQTTConnectDecision<Identity>

    /// Whether `client` may subscribe to `filter` (a valid topic filter).
    func subscribe(_ filter: String, client: MQTTClient<Identity>) async -> MQTTDecision

    /// Takes a PUBLISH. The broker acknowledges it (PUBACK for QoS 1, PUBREC for QoS 2) only after
    /// this returned `.accept`: what was acknowledged was taken.
    func publish(_ message: MQTTPublish, client: MQTTClient<Identity>) async -> MQTTDecision
}
