import Foundation
import NIOCore

/// Reads each request head before NIO's HTTP/1 parser does, for what that parser cannot be
/// configured to do (issue 58 §11):
///
/// - **Raw UTF-8 in the request target is percent-encoded.** The llhttp parser compiled into
///   swift-nio takes only visible ASCII in a URL (its strict URL character table; no runtime
///   option relaxes it), and Hummingbird answers its error with an empty 400 and a closed
///   connection before any route sees the request. Yet `curl 'http://…/geocode?q=邾城七路26号'`
///   sends the address as raw UTF-8 bytes, as many clients do. Each byte ≥ 0x80 of the request
///   line becomes `%XX`, the mapping of an IRI to a URI (RFC 3987 §3.1), so the query decodes to
///   the text the client typed. Control bytes and spaces are left to the parser (a space ends the
///   target: it cannot be told from the separator).
/// - **An over-long target or header block is refused with a problem, not a dropped
///   connection**: a request line over `maxRequestLineBytes` answers 414, header fields over
///   `maxHeaderBytes` together answer 431 (through `ConnectionProblemResponder`, which writes
///   problem+json). The parser counts the URL into its header limits and would close the
///   connection with an empty 400 where the README promises 414.
///
/// It follows the framing only as far as it must to find where the next request line starts: a
/// head ends at its empty line, and a `Content-Length` body passes through by count. From a
/// request framed any other way (`Transfer-Encoding`, `Upgrade`, `CONNECT`, a doubtful length)
/// the connection passes through untouched, under the parser's own rules: a body's bytes are never
/// rewritten. A line is handed on once complete, so the parser never sees a refused request line.
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Before or in a request line (empty lines before it are allowed, RFC 9112 §2.2).
        case requestLine
        /// In the header fields of a head.
        case headerFields
        /// In a body of known length: the bytes still to pass.
        case body(remaining: Int)
        /// Framing not followed: everything passes as it comes.
        case passthrough
        /// A head was refused: nothing more is read.
        case refused
    }

    let maxRequestLineBytes: Int
    let maxHeaderBytes: Int
    private var state = State.requestLine
    /// The line being read (the request line encoded, or one header field), handed on when complete.
    private var line: [UInt8] = []
    /// The request's path (a refusal's `instance`).
    private var path = ""
    /// Bytes of the head's header fields so far.
    private var headerBytes = 0
    /// The request's `Content-Length`, and whether its framing is one this guard follows.
    private var contentLength: Int?, followsFraming = true

    init(maxRequestLineBytes: Int, maxHeaderBytes: Int) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        // Head lines gather here; a body's bytes are handed on as they came, without a copy.
        var head = context.channel.allocator.buffer(capacity: 0)
        var forwarded = false
        func handOn(_ bytes: ByteBuffer) {
            if head.readableBytes > 0 {
                context.fireChannelRead(wrapInboundOut(head))
                head.clear()
                forwarded = true
            }
            if bytes.readableBytes > 0 {
                context.fireChannelRead(wrapInboundOut(bytes))
                forwarded = true
            }
        }
        var refusal: RequestHeadRefusal?
        while input.readableBytes > 0, refusal == nil {
            switch state {
            case .passthrough:
                handOn(input)
                input.moveReaderIndex(to: input.writerIndex)
            case .refused:
                input.moveReaderIndex(to: input.writerIndex)
            case .body(let remaining):
                let part = input.readSlice(length: min(remaining, input.readableBytes))!
                handOn(part)
                state = remaining > part.readableBytes ? .body(remaining: remaining - part.readableBytes) : .requestLine
            case .requestLine:
                let (bytes, complete) = Self.readLine(&input)
                for byte in bytes {
                    if byte >= 0x80 {
                        line += [UInt8(ascii: "%"), Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]]
                    } else {
                        line.append(byte)
                    }
                }
                if line.count > maxRequestLineBytes {
                    let target = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false).dropFirst().first
                    refusal = refuse(.queryTooLong, "the request target is longer than the \(maxRequestLineBytes) bytes a request line may have (percent-encoded); send a long selection in a request body instead, e.g. a CQL2 filter to POST /processes/features-in-area/execution",
                                     path: target.map(Self.path) ?? "")
                } else if complete {
                    startHead()
                    head.writeBytes(line)
                    line.removeAll(keepingCapacity: true)
                }
            case .headerFields:
                let (bytes, complete) = Self.readLine(&input)
                line.append(contentsOf: bytes)
                headerBytes += bytes.count
                if headerBytes > maxHeaderBytes {
                    refusal = refuse(.headersTooLarge, "the request's header fields are larger than the \(maxHeaderBytes) bytes accepted", path: path)
                } else if complete {
                    head.writeBytes(line)
                    headerField(line)
                    line.removeAll(keepingCapacity: true)
                }
            }
        }
        let handedOn = head.readableBytes > 0 || forwarded
        handOn(context.channel.allocator.buffer(capacity: 0))
        if let refusal {
            context.fireErrorCaught(refusal)
        } else if !handedOn {
            // Only part of a line came: nothing went on, so nothing downstream will ask for more
            // (a channel read on demand, not automatically); the guard asks for the rest itself.
            context.read()
        }
    }

    /// The bytes of `input` up to and including the next LF; `complete` when there was one.
    private static func readLine(_ input: inout ByteBuffer) -> (bytes: ByteBufferView, complete: Bool) {
        let view = input.readableBytesView
        let lineFeed = view.firstIndex(of: UInt8(ascii: "\n"))
        let bytes = view[view.startIndex..<(lineFeed.map { view.index(after: $0) } ?? view.endIndex)]
        input.moveReaderIndex(forwardBy: bytes.count)
        return (bytes, lineFeed != nil)
    }

    /// The request line in `line` is complete: an empty one (CRLF before a request) changes
    /// nothing, any other starts a head.
    private func startHead() {
        let text = line.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard !text.isEmpty else { return }
        let parts = text.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        path = parts.count > 1 ? Self.path(parts[1]) : ""
        headerBytes = 0
        contentLength = nil
        followsFraming = !parts[0].elementsEqual("CONNECT".utf8)
        state = .headerFields
    }

    /// One complete header field line; the empty line ends the head.
    private func headerField(_ field: [UInt8]) {
        let text = field.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard !text.isEmpty else {
            if !followsFraming {
                state = .passthrough
            } else if let length = contentLength, length > 0 {
                state = .body(remaining: length)
            } else {
                state = .requestLine
            }
            return
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return }  // the parser refuses it
        // The name is matched on its bytes (every request's Host, Accept… pass here); only a
        // length's value is read.
        let name = text[text.startIndex..<colon]
        if Self.named(name, "content-length") {
            let value = String(decoding: text[text.index(after: colon)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            // A second length, or one that is not a plain number, is the parser's to refuse.
            if contentLength == nil, !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
               let length = Int(value) {
                contentLength = length
            } else {
                followsFraming = false
            }
        } else if Self.named(name, "transfer-encoding") || Self.named(name, "upgrade") {
            followsFraming = false
        }
    }

    /// Whether a header field's name is `lowercase` (ASCII letters compared without case; a name
    /// of other bytes is never one of those the guard follows).
    private static func named(_ name: ArraySlice<UInt8>, _ lowercase: StaticString) -> Bool {
        guard name.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { wanted in
            zip(name, wanted).allSatisfy { byte, letter in
                byte == letter || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == letter)
            }
        }
    }

    private func refuse(_ kind: Problem.Kind, _ detail: String, path: String) -> RequestHeadRefusal {
        state = .refused
        line = []
        return RequestHeadRefusal(problem: Problem(kind, detail), instance: path)
    }

    /// The path of a request target (up to `?`), at most 256 bytes of it.
    private static func path(_ target: ArraySlice<UInt8>) -> String {
        String(decoding: target.prefix { $0 != UInt8(ascii: "?") }.prefix(256), as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

/// A request head `RequestHeadGuard` refused: `ConnectionProblemResponder` answers it.
struct RequestHeadRefusal: Error {
    let problem: Problem
    /// The request's path, when its request line was read.
    let instance: String
}
