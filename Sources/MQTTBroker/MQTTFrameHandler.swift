import NIOCore

/// Cuts one connection's byte stream into packets under the broker's limits, each checked from its
/// fixed header before any of its body is buffered (issue 78 §3):
///
/// - the first packet must be a CONNECT (its first byte says so) of at most `maxConnectBytes`:
///   before the client is known, a connection holds a few KiB at most, not the identity's packet
///   limit (a 16 MiB CONNECT is refused after its first five bytes);
/// - once the CONNECT is read, nothing more is read from the socket until the broker has decided
///   on it: what the client pipelines behind it (MQTT 3.1.1 §3.1.4 allows it) waits in the
///   kernel's socket buffer, not in the server's memory, while the client is authenticated;
/// - the broker then admits the client with its identity's packet limit (`Admitted`, a user
///   inbound event), and packets up to that limit are read.
///
/// A packet over the limit in force, or one that breaks the protocol, closes the connection
/// (`MQTTProtocolError` through `errorCaught`, as `ByteToMessageHandler` reports a decoder's error).
final class MQTTFrameHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = MQTTPacket
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Sent by the broker once it accepted the CONNECT: packets of at most `maxPacketBytes` are read from now on.
    struct Admitted: Sendable {
        var maxPacketBytes: Int
    }

    private enum Stage {
        case awaitingConnect
        /// The CONNECT was read; the broker is deciding on it. Nothing is read or decoded meanwhile.
        case deciding
        case admitted(maxPacketBytes: Int)
        case failed
    }

    private let maxConnectBytes: Int
    /// Called once the CONNECT is read (the connection no longer waits for it).
    private let connectRead: () -> Void
    private var stage = Stage.awaitingConnect
    /// Bytes read and not yet decoded; `nil` when there are none (so an idle connection holds no buffer).
    private var buffer: ByteBuffer?
    /// A `read` held back while the broker decides on the CONNECT, forwarded once it admitted the client.
    private var heldRead = false

    init(maxConnectBytes: Int, connectRead: @escaping () -> Void = {}) {
        self.maxConnectBytes = maxConnectBytes
        self.connectRead = connectRead
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if case .failed = stage { return }
        if buffer == nil {
            buffer = incoming
        } else {
            buffer!.writeBuffer(&incoming)
        }
        decode(context: context)
    }

    func read(context: ChannelHandlerContext) {
        if case .deciding = stage {
            heldRead = true
            return
        }
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let admitted = event as? Admitted else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard case .deciding = stage else { return }
        stage = .admitted(maxPacketBytes: admitted.maxPacketBytes)
        // What arrived with the CONNECT, then what the socket holds.
        if decode(context: context) { context.fireChannelReadComplete() }
        if heldRead {
            heldRead = false
            context.read()
        }
    }

    /// Passes on every whole packet the buffer holds that the stage allows; whether it passed any.
    @discardableResult
    private func decode(context: ChannelHandlerContext) -> Bool {
        var passed = false
        while let readable = buffer?.readableBytesView, !readable.isEmpty {
            let header: MQTTFixedHeader
            do {
                guard let parsed = try MQTTFixedHeader.parse(readable) else { break }
                header = parsed
            } catch {
                fail(context: context, error)
                return passed
            }
            switch stage {
            case .awaitingConnect:
                guard header.type == 1 else {
                    fail(context: context, MQTTProtocolError("the first packet is not CONNECT (packet type \(header.type))"))
                    return passed
                }
                guard header.packetLength <= maxConnectBytes else {
                    fail(context: context, MQTTProtocolError("a CONNECT of \(header.packetLength) bytes is over this broker's limit of \(maxConnectBytes)"))
                    return passed
                }
            case .deciding, .failed:
                return passed
            case .admitted(let limit):
                guard header.packetLength <= limit else {
                    fail(context: context, MQTTProtocolError("a packet of \(header.packetLength) bytes is over this client's limit of \(limit)"))
                    return passed
                }
            }
            guard readable.count >= header.packetLength, let bytes = buffer!.readBytes(length: header.packetLength) else { break }
            let packet: MQTTPacket
            do {
                packet = try MQTTPacket.decode(bytes)
            } catch {
                fail(context: context, error)
                return passed
            }
            if case .awaitingConnect = stage {
                stage = .deciding
                connectRead()
            }
            passed = true
            context.fireChannelRead(wrapInboundOut(packet))
        }
        if let b = buffer {
            if b.readableBytes == 0 {
                buffer = nil
            } else if b.readerIndex > 4096 {
                buffer!.discardReadBytes()
            }
        }
        return passed
    }

    private func fail(context: ChannelHandlerContext, _ error: any Error) {
        stage = .failed
        buffer = nil
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }
}
