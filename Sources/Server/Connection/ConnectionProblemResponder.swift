import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers a request that never reaches the router with problem+json, then closes the
/// connection: one NIO's HTTP/1 parser cannot read (`HTTPParserError`: 400, or 431 for a head
/// over its size limit) or one `RequestHeadGuard` refused (414, 431). Hummingbird would answer
/// these with an empty 400 (issue 58 §11), which tells a client nothing.
///
/// It sits right after the parser, where requests and responses are NIO's HTTP/1 parts. Like NIO's
/// `HTTPServerProtocolErrorHandler` it never interleaves with a response: while a request that
/// came before the fault is still unanswered (pipelining), the problem waits until its response
/// has ended. A fault inside a request whose body a route is reading (a broken chunk) is that
/// route's to see: it passes on as before.
final class ConnectionProblemResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests handed on whose response has not ended.
    private var unanswered = 0
    /// Whether a request's head has come and its end not yet (its body is being read).
    private var inRequest = false
    /// A problem waiting for those responses.
    private var waiting: RequestHeadRefusal?
    /// Whether the problem was answered (later errors of the same fault are dropped).
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            unanswered += 1
            inRequest = true
        case .body: break
        case .end: inRequest = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            if unanswered == 0, let waiting {
                self.waiting = nil
                answer(waiting, context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let fault: RequestHeadRefusal
        switch error {
        case let refusal as RequestHeadRefusal: fault = refusal
        case let parse as HTTPParserError where !inRequest: fault = RequestHeadRefusal(problem: Self.problem(parse), instance: "")
        case is ByteToMessageDecoderError where answered || waiting != nil: return  // more input after the fault
        default:
            context.fireErrorCaught(error)
            return
        }
        guard !answered, waiting == nil else { return }
        if unanswered > 0 {
            waiting = fault
        } else {
            answer(fault, context: context)
        }
    }

    private func answer(_ fault: RequestHeadRefusal, context: ChannelHandlerContext) {
        answered = true
        let body = JSONText.bytes(fault.problem.document(instance: fault.instance))
        let status = fault.problem.kind.status
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status.code, reasonPhrase: status.reasonPhrase),
                                    headers: ["Content-Type": MediaTypeName.problem, "Content-Length": String(body.count),
                                              "Connection": "close", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The problem of a request the parser could not read.
    static func problem(_ error: HTTPParserError) -> Problem {
        switch error {
        case .headerOverflow:
            return Problem(.headersTooLarge, "the request head (its request line and header fields) is larger than the server accepts")
        case .invalidURL, .invalidCharactersUsed:
            return Problem(.malformedRequest, "the request line holds a character not allowed in a URL (a control character or a space in the target?); percent-encode it (RFC 3986)")
        default:
            return Problem(.malformedRequest, "the request is not valid HTTP/1.1 (\(error))")
        }
    }
}
