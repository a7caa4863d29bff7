// libFuzzer harness for the MQTT 3.1.1 packet decoder (Scripts/fuzz.sh, target `fuzz-mqtt`): the bytes a
// client sends to `citytwin serve --mqtt-port`. The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
import MQTTCodec

/// Cuts the input into packets as the broker's frame decoder does (fixed header first, then the
/// remaining length) and decodes each. An `MQTTProtocolError` is a fine outcome; a trap, another
/// error, or a packet that changes on an encode → decode round trip is a bug and crashes on purpose
/// so libFuzzer records the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var rest = Array(UnsafeBufferPointer(start: data, count: size))[...]
    while !rest.isEmpty {
        let header: MQTTFixedHeader
        do {
            guard let h = try MQTTFixedHeader.parse(rest) else { return 0 }
            header = h
        } catch is MQTTProtocolError {
            return 0
        } catch {
            fatalError("the fixed header threw a non-MQTTProtocolError: \(error)")
        }
        guard header.packetLength <= rest.count else { return 0 }
        let bytes = Array(rest.prefix(header.packetLength))
        rest = rest.dropFirst(header.packetLength)
        let packet: MQTTPacket
        do {
            packet = try MQTTPacket.decode(bytes)
        } catch is MQTTProtocolError {
            return 0
        } catch {
            fatalError("decode threw a non-MQTTProtocolError: \(error)")
        }
        guard (try? MQTTPacket.decode(packet.encoded())) == packet else { fatalError("\(packet) changed on a round trip") }
    }
    return 0
}

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_mqtt_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_mqtt_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-mqtt", argc, argv, fuzz)
}
#else
@main enum FuzzMQTTReplay {
    static func main() { exit(FuzzDriver.main("fuzz-mqtt", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
