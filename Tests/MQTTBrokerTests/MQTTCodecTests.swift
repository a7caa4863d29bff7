import MQTTCodec
import Testing

/// The MQTT 3.1.1 codec against the byte layouts the standard gives, and against random bytes.
@Suite struct MQTTCodecTests {
    @Test(arguments: [
        (0, [0x00] as [UInt8]), (127, [0x7F]), (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
        (2_097_151, [0xFF, 0xFF, 0x7F]), (2_097_152, [0x80, 0x80, 0x80, 0x01]), (268_435_455, [0xFF, 0xFF, 0xFF, 0x7F]),
    ])
    func remainingLengthBoundaries(length: Int, bytes: [UInt8]) throws {
        // The table of §2.2.3: the first and last value of each byte count.
        #expect(MQTTPacket.remainingLength(length) == bytes)
        let header = try #require(try MQTTFixedHeader.parse([0x30] + bytes))
        #expect(header.remainingLength == length && header.headerLength == 1 + bytes.count)
    }

    @Test func aFifthLengthByteIsRefused() {
        #expect(throws: MQTTProtocolError.self) { try MQTTFixedHeader.parse([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) }
    }

    @Test func anIncompleteHeaderAsksForMore() throws {
        #expect(try MQTTFixedHeader.parse([UInt8]()) == nil)
        #expect(try MQTTFixedHeader.parse([0x30]) == nil)
        #expect(try MQTTFixedHeader.parse([0x30, 0x80, 0x80]) == nil)
    }

    @Test func connectAsPahoSendsIt() throws {
        // paho-mqtt 2.x, MQTT 3.1.1, client id "gw", keep-alive 60, user "gateway", password "t0k".
        let bytes: [UInt8] = [0x10, 0x1C, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0xC2, 0x00, 0x3C, 0x00, 0x02, 0x67, 0x77,
                              0x00, 0x07, 0x67, 0x61, 0x74, 0x65, 0x77, 0x61, 0x79, 0x00, 0x03, 0x74, 0x30, 0x6B]
        let packet = try MQTTPacket.decode(bytes)
        #expect(packet == .connect(MQTTConnect(clientID: "gw", username: "gateway", password: Array("t0k".utf8))))
        #expect(packet.encoded() == bytes)
    }

    @Test func everyPacketRoundTrips() throws {
        let packets: [MQTTPacket] = [
            .connect(MQTTConnect(cleanSession: false, keepAlive: 0, clientID: "水位站-1",
                                 will: MQTTWill(topic: "v1.1/Things(1)", payload: [1, 2], qos: 1, retain: true), username: "u", password: [])),
            .connack(sessionPresent: false, returnCode: .notAuthorized),
            .publish(MQTTPublish(topic: "v1.1/Datastreams(2)/Observations", payload: Array(#"{"result":1}"#.utf8))),
            .publish(MQTTPublish(topic: "a/b", payload: [], qos: 1, retain: true, dup: true, packetID: 65_535)),
            .publish(MQTTPublish(topic: "a", payload: Array(repeating: 7, count: 20_000), qos: 2, packetID: 9)),
            .puback(packetID: 1), .pubrec(packetID: 2), .pubrel(packetID: 3), .pubcomp(packetID: 4),
            .subscribe(packetID: 5, [MQTTSubscription(filter: "v1.1/Things", qos: 1), MQTTSubscription(filter: "a/+/#", qos: 2)]),
            .suback(packetID: 5, [1, MQTTPacket.subscriptionFailure]),
            .unsubscribe(packetID: 6, ["v1.1/Things"]), .unsuback(packetID: 6), .pingreq, .pingresp, .disconnect,
        ]
        for p in packets {
            #expect(try MQTTPacket.decode(p.encoded()) == p, "\(p)")
        }
    }

    @Test func malformedPacketsAreRefused() {
        let cases: [(String, [UInt8])] = [
            ("QoS 3", [0x36, 0x03, 0x00, 0x01, 0x61]),
            ("wildcard topic name", [0x30, 0x03, 0x00, 0x01, 0x23]),
            ("packet id 0", [0x32, 0x05, 0x00, 0x01, 0x61, 0x00, 0x00]),
            ("SUBSCRIBE flags 0", [0x80, 0x06, 0x00, 0x01, 0x00, 0x01, 0x61, 0x00]),
            ("SUBSCRIBE without filters", [0x82, 0x02, 0x00, 0x01]),
            ("requested QoS 3", [0x82, 0x06, 0x00, 0x01, 0x00, 0x01, 0x61, 0x03]),
            ("'#' not last", [0x82, 0x08, 0x00, 0x01, 0x00, 0x03, 0x23, 0x2F, 0x61, 0x00]),
            ("reserved type 15", [0xF0, 0x00]),
            ("string past the end", [0x30, 0x03, 0x00, 0x09, 0x61]),
            ("length disagrees", [0xC0, 0x01]),
            ("bytes after PINGREQ", [0xC0, 0x01, 0x00]),
            ("invalid UTF-8", [0x30, 0x04, 0x00, 0x02, 0xC3, 0x28]),
            ("U+0000 in a topic", [0x30, 0x04, 0x00, 0x02, 0x61, 0x00]),
            ("CONNECT reserved flag", [0x10, 0x0C, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x03, 0x00, 0x3C, 0x00, 0x00]),
            ("password without user", [0x10, 0x0E, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x42, 0x00, 0x3C, 0x00, 0x00, 0x00, 0x00]),
            ("not MQTT", [0x10, 0x0C, 0x00, 0x04, 0x48, 0x54, 0x54, 0x50, 0x04, 0x02, 0x00, 0x3C, 0x00, 0x00]),
        ]
        for (name, bytes) in cases {
            #expect(throws: MQTTProtocolError.self, "\(name)") { try MQTTPacket.decode(bytes) }
        }
    }

    @Test func mqtt5ConnectIsReadAsItsLevel() throws {
        // MQTT 5's CONNECT has properties after the keep-alive: only the level is read, to answer CONNACK 1.
        let bytes: [UInt8] = [0x10, 0x0D, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x05, 0x02, 0x00, 0x3C, 0x00, 0x00, 0x00]
        guard case .connect(let c) = try MQTTPacket.decode(bytes) else { Issue.record("not a CONNECT"); return }
        #expect(c.protocolLevel == 5)
    }

    @Test func aNameAndLevelThatDoNotBelongTogetherAreAnUnsupportedVersionAndRoundTrip() throws {
        // Found by fuzz-mqtt: "MQTT" with level 3 (3.1 is "MQIsdp") is no version this broker speaks; it
        // is read as its name and level alone, encodes so, and the broker answers CONNACK 1.
        for (name, level) in [("MQTT", UInt8(3)), ("MQIsdp", UInt8(4)), ("MQTT", UInt8(5))] {
            let version = MQTTConnect(protocolName: name, protocolLevel: level, clientID: "")
            #expect(!version.isSupportedVersion)
            let bytes = MQTTPacket.connect(version).encoded()
            #expect(try MQTTPacket.decode(bytes) == .connect(version), "\(name) \(level)")
        }
        let truncated: [UInt8] = [0x10, 0x07, 0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x03]
        guard case .connect(let c) = try MQTTPacket.decode(truncated) else { Issue.record("not a CONNECT"); return }
        #expect(!c.isSupportedVersion)
        let again = try MQTTPacket.decode(MQTTPacket.connect(c).encoded())
        #expect(again == .connect(c))
        #expect(MQTTConnect(clientID: "a").isSupportedVersion && MQTTConnect(protocolName: "MQIsdp", protocolLevel: 3, clientID: "a").isSupportedVersion)
    }

    @Test func topicFilters() throws {
        #expect(MQTTTopic.matches("v1.1/Things", "v1.1/Things"))
        #expect(!MQTTTopic.matches("v1.1/Things", "v1.1/Things(1)"))
        #expect(MQTTTopic.matches("sport/#", "sport"))
        #expect(MQTTTopic.matches("sport/+/player1", "sport/tennis/player1"))
        #expect(!MQTTTopic.matches("sport/+", "sport/tennis/player1"))
        #expect(MQTTTopic.matches("+/+", "/finance"))
        #expect(!MQTTTopic.matches("#", "$SYS/broker"))
        #expect(throws: MQTTProtocolError.self) { try MQTTTopic.checkFilter("sport/tennis#") }
        #expect(throws: MQTTProtocolError.self) { try MQTTTopic.checkFilter("sport+") }
        #expect(throws: MQTTProtocolError.self) { try MQTTTopic.checkFilter("") }
        try MQTTTopic.checkFilter("+/tennis/#")
    }

    /// Random bytes (a fixed seed, so a failure replays), and valid packets with random bytes flipped,
    /// cut or added: decoding never traps, and whatever decodes encodes back to bytes that decode
    /// to the same packet.
    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 0x4D51_5454)
        let seeds: [[UInt8]] = [
            MQTTPacket.connect(MQTTConnect(clientID: "gw", will: MQTTWill(topic: "w", payload: [1], qos: 1), username: "u", password: [2])).encoded(),
            MQTTPacket.publish(MQTTPublish(topic: "v1.1/Datastreams(2)/Observations", payload: Array(#"{"result":1}"#.utf8), qos: 1, packetID: 1)).encoded(),
            MQTTPacket.subscribe(packetID: 2, [MQTTSubscription(filter: "v1.1/Things", qos: 1), MQTTSubscription(filter: "+/#", qos: 0)]).encoded(),
            MQTTPacket.unsubscribe(packetID: 3, ["a/b"]).encoded(), MQTTPacket.suback(packetID: 4, [0, 1, 0x80]).encoded(),
            MQTTPacket.connack(sessionPresent: true, returnCode: .accepted).encoded(), MQTTPacket.pubrel(packetID: 5).encoded(),
        ]
        var decoded = 0
        for round in 0..<200_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                bytes = seeds[Int(rng.next() % UInt64(seeds.count))]
                for _ in 0..<Int(rng.next() % 3) + 1 {
                    switch rng.next() % 4 {
                    case 0: bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                    case 1: bytes[Int(rng.next() % UInt64(bytes.count))] ^= 1 << (rng.next() % 8)
                    case 2: bytes.removeLast(Int(rng.next() % UInt64(bytes.count)))
                    default: bytes.append(UInt8(truncatingIfNeeded: rng.next()))
                    }
                    if bytes.isEmpty { bytes = [0] }
                }
                if rng.next() % 2 == 0, bytes.count > 1, bytes.count < 129 { bytes[1] = UInt8(bytes.count - 2) }  // a length that agrees
            }
            _ = try? MQTTFixedHeader.parse(bytes)
            if let packet = try? MQTTPacket.decode(bytes) {
                decoded += 1
                #expect((try? MQTTPacket.decode(packet.encoded())) == packet)
            }
        }
        #expect(decoded > 5000, "the mutated packets reached the decoders' every branch (\(decoded) decoded)")
    }
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
