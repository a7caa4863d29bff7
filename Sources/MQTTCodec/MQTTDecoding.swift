/// A packet that breaks MQTT 3.1.1's rules: the broker closes the connection on it (§4.8: "the
/// receiver MUST close the Network Connection"). The message names the rule.
public struct MQTTProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The first bytes of a packet: its type and flags, and how long the rest is.
public struct MQTTFixedHeader: Sendable, Equatable {
    public var type: UInt8
    public var flags: UInt8
    /// Bytes of the fixed header itself (2…5).
    public var headerLength: Int
    /// Bytes after the fixed header (the remaining length).
    public var remainingLength: Int
    public var packetLength: Int { headerLength + remainingLength }

    /// The fixed header at the start of `bytes`; `nil` while it is incomplete. Throws on a remaining
    /// length longer than four bytes (§2.2.3), so garbage is refused after five bytes, not buffered.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws -> MQTTFixedHeader? {
        var i = bytes.startIndex
        guard i != bytes.endIndex else { return nil }
        let first = bytes[i]
        i = bytes.index(after: i)
        var length = 0, multiplier = 1, used = 1
        while true {
            guard i != bytes.endIndex else { return nil }
            let byte = bytes[i]
            i = bytes.index(after: i)
            used += 1
            length += Int(byte & 0x7F) * multiplier
            if byte & 0x80 == 0 { break }
            guard used < 5 else { throw MQTTProtocolError("the remaining length takes more than four bytes") }
            multiplier *= 128
        }
        return MQTTFixedHeader(type: first >> 4, flags: first & 0x0F, headerLength: used, remainingLength: length)
    }
}

extension MQTTPacket {
    /// The packet `bytes` holds whole (fixed header included, nothing after it).
    public static func decode(_ bytes: [UInt8]) throws -> MQTTPacket {
        guard let header = try MQTTFixedHeader.parse(bytes) else { throw MQTTProtocolError("the packet is cut short in its fixed header") }
        guard header.packetLength == bytes.count else {
            throw MQTTProtocolError("the remaining length says \(header.remainingLength) bytes, \(bytes.count - header.headerLength) follow")
        }
        var r = MQTTReader(bytes: bytes[header.headerLength...])
        func flags(_ expected: UInt8, _ name: String) throws {
            guard header.flags == expected else { throw MQTTProtocolError("\(name) has fixed-header flags \(header.flags), not \(expected)") }
        }
        let packet: MQTTPacket
        switch header.type {
        case 1:
            try flags(0, "CONNECT")
            packet = .connect(try decodeConnect(&r))
            // An unsupported version leaves the rest unread: the broker answers CONNACK 1 and closes.
            if case .connect(let c) = packet, !c.isSupportedVersion { return packet }
        case 2:
            try flags(0, "CONNACK")
            let ack = try r.byte()
            guard ack & 0xFE == 0 else { throw MQTTProtocolError("CONNACK's reserved acknowledge flags are set") }
            guard let code = MQTTConnectReturnCode(rawValue: try r.byte()) else { throw MQTTProtocolError("CONNACK has an unknown return code") }
            packet = .connack(sessionPresent: ack == 1, returnCode: code)
        case 3:
            let qos = (header.flags >> 1) & 0x03
            guard qos < 3 else { throw MQTTProtocolError("PUBLISH with QoS 3") }
            let dup = header.flags & 0x08 != 0
            guard qos > 0 || !dup else { throw MQTTProtocolError("a QoS 0 PUBLISH has its DUP flag set") }
            let topic = try r.string()
            try MQTTTopic.checkName(topic)
            var id: UInt16?
            if qos > 0 {
                id = try r.uint16()
                guard id != 0 else { throw MQTTProtocolError("a packet identifier is 1…65535, not 0") }
            }
            packet = .publish(MQTTPublish(topic: topic, payload: r.rest(), qos: qos, retain: header.flags & 0x01 != 0, dup: dup, packetID: id))
        case 4, 5, 7, 11:
            try flags(0, "an acknowledgement")
            let id = try r.uint16()
            packet = switch header.type {
            case 4: .puback(packetID: id)
            case 5: .pubrec(packetID: id)
            case 7: .pubcomp(packetID: id)
            default: .unsuback(packetID: id)
            }
        case 6:
            try flags(2, "PUBREL")
            packet = .pubrel(packetID: try r.uint16())
        case 8:
            try flags(2, "SUBSCRIBE")
            let id = try r.nonZeroID()
            var list = [MQTTSubscription]()
            while !r.atEnd {
                let filter = try r.string()
                try MQTTTopic.checkFilter(filter)
                let qos = try r.byte()
                guard qos <= 2 else { throw MQTTProtocolError("a requested QoS is 0, 1 or 2, not \(qos)") }
                list.append(MQTTSubscription(filter: filter, qos: qos))
            }
            guard !list.isEmpty else { throw MQTTProtocolError("SUBSCRIBE names no topic filter") }
            packet = .subscribe(packetID: id, list)
        case 9:
            try flags(0, "SUBACK")
            let id = try r.uint16()
            let codes = r.rest()
            guard codes.allSatisfy({ $0 <= 2 || $0 == subscriptionFailure }) else { throw MQTTProtocolError("SUBACK has an unknown return code") }
            packet = .suback(packetID: id, codes)
        case 10:
            try flags(2, "UNSUBSCRIBE")
            let id = try r.nonZeroID()
            var list = [String]()
            while !r.atEnd {
                let filter = try r.string()
                try MQTTTopic.checkFilter(filter)
                list.append(filter)
            }
            guard !list.isEmpty else { throw MQTTProtocolError("UNSUBSCRIBE names no topic filter") }
            packet = .unsubscribe(packetID: id, list)
        case 12:
            try flags(0, "PINGREQ")
            packet = .pingreq
        case 13:
            try flags(0, "PINGRESP")
            packet = .pingresp
        case 14:
            try flags(0, "DISCONNECT")
            packet = .disconnect
        default:
            throw MQTTProtocolError("packet type \(header.type) is reserved")
        }
        guard r.atEnd else { throw MQTTProtocolError("\(r.remaining) bytes follow the packet's last field") }
        return packet
    }

    private static func decodeConnect(_ r: inout MQTTReader) throws -> MQTTConnect {
        let name = try r.string()
        let level = try r.byte()
        guard (name == "MQTT" && level >= 4) || (name == "MQIsdp" && level == 3) else {
            if name == "MQTT" || name == "MQIsdp" { return MQTTConnect(protocolName: name, protocolLevel: level, clientID: "") }
            throw MQTTProtocolError("the protocol name is '\(name)', not MQTT")
        }
        let version = MQTTConnect(protocolName: name, protocolLevel: level, clientID: "")
        if !version.isSupportedVersion { return version }
        let flags = try r.byte()
        guard flags & 0x01 == 0 else { throw MQTTProtocolError("CONNECT's reserved flag is set") }
        let keepAlive = try r.uint16()
        let clientID = try r.string()
        var will: MQTTWill?
        let willQoS = (flags >> 3) & 0x03
        if flags & 0x04 != 0 {
            guard willQoS < 3 else { throw MQTTProtocolError("the will's QoS is 3") }
            let topic = try r.string()
            try MQTTTopic.checkName(topic)
            will = MQTTWill(topic: topic, payload: try r.binary(), qos: willQoS, retain: flags & 0x20 != 0)
        } else if willQoS != 0 || flags & 0x20 != 0 {
            throw MQTTProtocolError("the will's QoS or retain flag is set without a will")
        }
        var username: String?, password: [UInt8]?
        if flags & 0x80 != 0 { username = try r.string() }
        if flags & 0x40 != 0 {
            guard username != nil || level == 3 else { throw MQTTProtocolError("a password is given without a user name") }
            password = try r.binary()
        }
        return MQTTConnect(protocolName: name, protocolLevel: level, cleanSession: flags & 0x02 != 0, keepAlive: keepAlive,
                           clientID: clientID, will: will, username: username, password: password)
    }
}

/// Reads the fields of a packet's body, each checked against what is left.
struct MQTTReader {
    var bytes: ArraySlice<UInt8>

    var atEnd: Bool { bytes.isEmpty }
    var remaining: Int { bytes.count }

    mutating func byte() throws -> UInt8 {
        guard let b = bytes.popFirst() else { throw MQTTProtocolError("the packet ends inside a field") }
        return b
    }

    mutating func uint16() throws -> UInt16 {
        UInt16(try byte()) << 8 | UInt16(try byte())
    }

    mutating func nonZeroID() throws -> UInt16 {
        let id = try uint16()
        guard id != 0 else { throw MQTTProtocolError("a packet identifier is 1…65535, not 0") }
        return id
    }

    mutating func binary() throws -> [UInt8] {
        let n = Int(try uint16())
        guard n <= bytes.count else { throw MQTTProtocolError("a field of \(n) bytes runs past the packet's end") }
        defer { bytes = bytes.dropFirst(n) }
        return Array(bytes.prefix(n))
    }

    /// A UTF-8 string (§1.5.3): well-formed, without U+0000.
    mutating func string() throws -> String {
        let raw = try binary()
        guard let s = String(validating: raw, as: UTF8.self) else { throw MQTTProtocolError("a string is not well-formed UTF-8") }
        guard !raw.contains(0) else { throw MQTTProtocolError("a string holds U+0000") }
        return s
    }

    mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}

/// Topic names and filters (§4.7).
public enum MQTTTopic {
    /// A topic name a PUBLISH may carry: not empty, no wildcard.
    public static func checkName(_ topic: String) throws {
        guard !topic.isEmpty else { throw MQTTProtocolError("a topic name is at least one character long") }
        guard !topic.contains("+"), !topic.contains("#") else { throw MQTTProtocolError("a topic name holds no wildcard ('\(topic)')") }
    }

    /// A topic filter: not empty; `#` alone and last in its level, `+` alone in its level.
    public static func checkFilter(_ filter: String) throws {
        guard !filter.isEmpty else { throw MQTTProtocolError("a topic filter is at least one character long") }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (i, level) in levels.enumerated() {
            if level.contains("#"), level != "#" || i != levels.count - 1 {
                throw MQTTProtocolError("'#' stands alone as the last level of a topic filter ('\(filter)')")
            }
            if level.contains("+"), level != "+" { throw MQTTProtocolError("'+' stands alone in its level of a topic filter ('\(filter)')") }
        }
    }

    /// Whether `filter` has a wildcard.
    public static func isWildcard(_ filter: String) -> Bool { filter.contains("+") || filter.contains("#") }

    /// Whether the topic name `topic` matches `filter` (§4.7.1; a `$` topic only by a filter starting so).
    public static func matches(_ filter: String, _ topic: String) -> Bool {
        let f = filter.split(separator: "/", omittingEmptySubsequences: false)
        let t = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = f.first, first == "+" || first == "#" { return false }
        var i = 0
        while i < f.count {
            if f[i] == "#" { return true }
            guard i < t.count else { return false }
            if f[i] != "+", f[i] != t[i] { return false }
            i += 1
        }
        return i == t.count
    }
}
