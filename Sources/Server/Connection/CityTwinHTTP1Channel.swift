import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with the two handlers that answer what its parser would drop
/// with an empty 400 (issue 58 §11): `RequestHeadGuard` in front of the parser (raw UTF-8 in a
/// request target, over-long targets and header blocks) and `ConnectionProblemResponder` behind
/// it (problem+json for whatever the parser cannot read).
struct CityTwinHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: RequestLimits

    var responder: HTTPChannelHandler.Responder { http1.responder }

    /// A server of this channel for Hummingbird's `Application`.
    static func server(_ limits: RequestLimits) -> HTTPServerBuilder {
        // The parser's own limits are a backstop above the guard's: a request line and header
        // fields at their limits together (the parser counts the URL as a header field).
        let configuration = HTTP1Channel.Configuration(
            idleTimeout: .nanoseconds(Int64(limits.idleTimeout * 1e9)),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: max(limits.maxRequestLineBytes, limits.maxHeaderBytes),
                                            maxHeaderListSize: limits.maxRequestLineBytes + limits.maxHeaderBytes))
        return HTTPServerBuilder { responder in
            CityTwinHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: configuration), limits: limits)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(RequestHeadGuard(maxRequestLineBytes: limits.maxRequestLineBytes, maxHeaderBytes: limits.maxHeaderBytes),
                                    position: .first)
            let parser = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(ConnectionProblemResponder(), position: .after(parser))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
