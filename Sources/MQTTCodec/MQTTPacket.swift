/// The control packets of MQTT 3.1.1 (OASIS standard, §2–§3) as plain values, with their wire
/// encoding (`encoded()`) and decoding (`MQTTPacket.decode`, MQTTDecoding.swift). No I/O here:
/// the broker (MQTTBroker.swift) reads and writes them on SwiftNIO channels.
public enum MQTTPacket: Sendable, Equatable {
    case connect(MQTTConnect)
    case connack(sessionPresent: Bool, returnCode: MQTTConnectReturnCode)
    case publish(MQTTPublish)
    case puback(packetID: UInt16)
    case pubrec(packetID: UInt16)
    case pubrel(packetID: UInt16)
    case pubcomp(packetID: UInt16)
    case subscribe(packetID: UInt16, [MQTTSubscription])
    /// One return code per requested filter: the granted QoS (0, 1, 2) or `MQTTPacket.subscriptionFailure`.
    case suback(packetID: UInt16, [UInt8])
    case unsubscribe(packetID: UInt16, [String])
    case unsuback(packetID: UInt16)
    case pingreq
    case pingresp
    case disconnect

    /// The SUBACK return code of a refused subscription (§3.9.3).
    public static let subscriptionFailure: UInt8 = 0x80

    /// The largest remaining length the variable-length encoding holds (§2.2.3): 268,435,455 bytes.
    public static let maximumRemainingLength = 268_435_455

    /// The packet type (the fixed header's high nibble, §2.2.1).
    public var type: UInt8 {
        switch self {
        case .connect: 1
        case .connack: 2
        case .publish: 3
        case .puback: 4
        case .pubrec: 5
        case .pubrel: 6
        case .pubcomp: 7
        case .subscribe: 8
        case .suback: 9
        case .unsubscribe: 10
        case .unsuback: 11
        case .pingreq: 12
        case .pingresp: 13
        case .disconnect: 14
        }
    }

    /// The packet as sent on the wire: fixed header, variable header and payload.
    public func encoded() -> [UInt8] {
        var body = [UInt8]()
        var flags: UInt8 = 0
        switch self {
        case .connect(let c):
            body.appendString(c.protocolName)
            body.append(c.protocolLevel)
            // A version this codec does not speak is known by its name and level alone (as decoded).
            guard c.isSupportedVersion else { break }
            var connectFlags: UInt8 = 0
            if c.cleanSession { connectFlags |= 0x02 }
            if let will = c.will {
                connectFlags |= 0x04 | (will.qos << 3) | (will.retain ? 0x20 : 0)
            }
            if c.password != nil { connectFlags |= 0x40 }
            if c.username != nil { connectFlags |= 0x80 }
            body.append(connectFlags)
            body.appendUInt16(c.keepAlive)
            body.appendString(c.clientID)
            if let will = c.will {
                body.appendString(will.topic)
                body.appendBinary(will.payload)
            }
            if let username = c.username { body.appendString(username) }
            if let password = c.password { body.appendBinary(password) }
        case .connack(let present, let code):
            body = [present ? 1 : 0, code.rawValue]
        case .publish(let p):
            flags = (p.dup ? 0x08 : 0) | (p.qos << 1) | (p.retain ? 0x01 : 0)
            body.appendString(p.topic)
            if p.qos > 0 { body.appendUInt16(p.packetID ?? 0) }
            body.append(contentsOf: p.payload)
        case .puback(let id), .pubrec(let id), .pubcomp(let id), .unsuback(let id):
            body.appendUInt16(id)
        case .pubrel(let id):
            flags = 0x02
            body.appendUInt16(id)
        case .subscribe(let id, let subscriptions):
            flags = 0x02
            body.appendUInt16(id)
            for s in subscriptions {
                body.appendString(s.filter)
                body.append(s.qos)
            }
        case .suback(let id, let codes):
            body.appendUInt16(id)
            body.append(contentsOf: codes)
        case .unsubscribe(let id, let filters):
            flags = 0x02
            body.appendUInt16(id)
            for f in filters { body.appendString(f) }
        case .pingreq, .pingresp, .disconnect:
            break
        }
        var out = [type << 4 | flags]
        out.append(contentsOf: MQTTPacket.remainingLength(body.count))
        out.append(contentsOf: body)
        return out
    }

    /// The variable-length encoding of `length` (§2.2.3): 1 to 4 bytes, 7 bits each, low first.
    public static func remainingLength(_ length: Int) -> [UInt8] {
        precondition(length >= 0 && length <= maximumRemainingLength, "an MQTT remaining length is 0…268,435,455")
        var out = [UInt8]()
        var n = length
        repeat {
            var byte = UInt8(n % 128)
            n /= 128
            if n > 0 { byte |= 0x80 }
            out.append(byte)
        } while n > 0
        return out
    }
}

/// CONNECT (§3.1).
public struct MQTTConnect: Sendable, Equatable {
    /// "MQTT" for 3.1.1 (level 4), "MQIsdp" for 3.1 (level 3).
    public var protocolName: String
    public var protocolLevel: UInt8
    public var cleanSession: Bool
    /// Seconds; 0 turns the client's keep-alive off.
    public var keepAlive: UInt16
    public var clientID: String
    public var will: MQTTWill?
    public var username: String?
    public var password: [UInt8]?

    /// MQTT 3.1.1 ("MQTT", level 4) or 3.1 ("MQIsdp", level 3): the versions whose CONNECT is read whole.
    /// Another level (MQTT 5), or a name and level that do not belong together, is read as its name and
    /// level only, for the broker to answer CONNACK 1 (unacceptable protocol version, §3.1.2.2).
    public var isSupportedVersion: Bool {
        (protocolName == "MQTT" && protocolLevel == 4) || (protocolName == "MQIsdp" && protocolLevel == 3)
    }

    public init(protocolName: String = "MQTT", protocolLevel: UInt8 = 4, cleanSession: Bool = true, keepAlive: UInt16 = 60,
                clientID: String, will: MQTTWill? = nil, username: String? = nil, password: [UInt8]? = nil) {
        self.protocolName = protocolName
        self.protocolLevel = protocolLevel
        self.cleanSession = cleanSession
        self.keepAlive = keepAlive
        self.clientID = clientID
        self.will = will
        self.username = username
        self.password = password
    }
}

/// The last-will message of a CONNECT (§3.1.2.5).
public struct MQTTWill: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: UInt8
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: UInt8 = 0, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// The CONNACK return codes of MQTT 3.1.1 (§3.2.2.3).
public enum MQTTConnectReturnCode: UInt8, Sendable, Equatable {
    case accepted = 0
    case unacceptableProtocolVersion = 1
    case identifierRejected = 2
    case serverUnavailable = 3
    case badUsernameOrPassword = 4
    case notAuthorized = 5
}

/// PUBLISH (§3.3). `packetID` is present exactly when `qos` > 0.
public struct MQTTPublish: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: UInt8
    public var retain: Bool
    public var dup: Bool
    public var packetID: UInt16?

    public init(topic: String, payload: [UInt8], qos: UInt8 = 0, retain: Bool = false, dup: Bool = false, packetID: UInt16? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.dup = dup
        self.packetID = packetID
    }
}

/// One topic filter of a SUBSCRIBE with its requested QoS (§3.8.3).
public struct MQTTSubscription: Sendable, Equatable {
    public var filter: String
    public var qos: UInt8

    public init(filter: String, qos: UInt8) {
        self.filter = filter
        self.qos = qos
    }
}

extension [UInt8] {
    mutating func appendUInt16(_ v: UInt16) {
        append(UInt8(v >> 8))
        append(UInt8(v & 0xFF))
    }

    /// A UTF-8 string with its two-byte length (§1.5.3).
    mutating func appendString(_ s: String) {
        appendBinary(Array(s.utf8))
    }

    mutating func appendBinary(_ bytes: [UInt8]) {
        appendUInt16(UInt16(clamping: bytes.count))
        append(contentsOf: bytes.prefix(Int(UInt16.max)))
    }
}
