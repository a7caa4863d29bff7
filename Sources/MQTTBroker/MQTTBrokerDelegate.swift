/// What a broker may ask of one client, and how long it waits for it (`MQTTBroker`).
public struct MQTTBrokerLimits: Sendable {
    /// Connections open at once; a CONNECT beyond is answered CONNACK 3 (server unavailable) and closed.
    public var maxConnections: Int
    /// Bytes of one packet, fixed header included: the connection is closed on a longer one, as soon
    /// as its fixed header is read (nothing of it is buffered).
    public var maxPacketBytes: Int
    /// Topic filters one connection may hold; one more is refused in its SUBACK (0x80).
    public var maxSubscriptionsPerClient: Int
    /// Messages to one subscriber not yet written or (QoS 1) not yet acknowledged: a subscriber
    /// further behind is disconnected, so it knows it lost messages instead of silently missing them.
    public var maxQueuedMessages: Int
    /// Seconds a new connection may take to send its CONNECT, and the silence allowed a client that
    /// turned its keep-alive off (0). A client with keep-alive k is closed after 1.5 k seconds of
    /// silence (§3.1.2.10).
    public var idleTimeout: Double

    public init(maxConnections: Int = 1000, maxPacketBytes: Int = 1 << 20, maxSubscriptionsPerClient: Int = 100,
                maxQueuedMessages: Int = 1000, idleTimeout: Double = 60) {
        self.maxConnections = maxConnections
        self.maxPacketBytes = maxPacketBytes
        self.maxSubscriptionsPerClient = maxSubscriptionsPerClient
        self.maxQueuedMessages = maxQueuedMessages
        self.idleTimeout = idleTimeout
    }
}

/// A connected client as the delegate sees it.
public struct MQTTClient<Identity: Sendable>: Sendable {
    /// The broker's number for this connection (`MQTTBroker.send(_:payload:qos:to:)`).
    public let connection: UInt64
    public let clientID: String
    /// What `MQTTBrokerDelegate.connect` made of the credentials.
    public let identity: Identity
    /// The peer's address, for logs.
    public let address: String
}

/// The answer to a CONNECT.
public enum MQTTConnectDecision<Identity: Sendable>: Sendable {
    case accept(Identity)
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
