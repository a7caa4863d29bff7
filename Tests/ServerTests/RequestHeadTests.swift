import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
@testable import Server
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Request heads NIO's parser would drop with an empty 400 (issue 58 §11): raw UTF-8 in the
/// request target (what curl sends for `?q=邾城七路26号`), a target or a header block over the
/// limits, a malformed request. `RequestHeadGuard` byte for byte on an EmbeddedChannel, then the
/// live server over sockets.
@Suite("Request heads: raw UTF-8 targets, 414 and 431 as problems, malformed requests")
struct RequestHeadTests {
    /// What the guard hands the parser when `input` arrives in pieces of `size` bytes, and the
    /// refusal it raised, if any.
    static func guarded(_ input: [UInt8], pieces size: Int, maxRequestLineBytes: Int = 1024,
                        maxHeaderBytes: Int = 1024) throws -> (output: [UInt8], refusal: RequestHeadRefusal?) {
        let channel = EmbeddedChannel(handler: RequestHeadGuard(maxRequestLineBytes: maxRequestLineBytes, maxHeaderBytes: maxHeaderBytes))
        var refusal: RequestHeadRefusal?
        var start = 0
        while start < input.count, refusal == nil {
            let end = min(start + size, input.count)
            do {
                try channel.writeInbound(channel.allocator.buffer(bytes: input[start..<end]))
                try channel.throwIfErrorCaught()
            } catch let r as RequestHeadRefusal {
                refusal = r
            }
            start = end
        }
        var output = [UInt8]()
        while let part = try channel.readInbound(as: ByteBuffer.self) { output += part.readableBytesView }
        _ = try? channel.finish()
        return (output, refusal)
    }

    static let utf8Body = #"{"name": "邾城七路 26 号", "note": "GET /x?q=问津 HTTP/1.1\r\n"}"#

    /// A GET with a raw UTF-8 query, a POST whose UTF-8 body looks like a request line, and
    /// another raw GET: as sent, and as the parser must see them.
    static var pipelined: (sent: [UInt8], expected: String) {
        let body = Array(utf8Body.utf8)
        let post = "POST /collections/shelters/items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        let sent = Array("\r\nGET /geocode?q=邾城七路26号 HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + Array(post.utf8) + body
            + Array("GET /collections/shelters/items?name=汉口&f=json HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let expected = "\r\nGET /geocode?q=%E9%82%BE%E5%9F%8E%E4%B8%83%E8%B7%AF26%E5%8F%B7 HTTP/1.1\r\nHost: x\r\n\r\n" + post + utf8Body
            + "GET /collections/shelters/items?name=%E6%B1%89%E5%8F%A3&f=json HTTP/1.1\r\nHost: x\r\n\r\n"
        return (sent, expected)
    }

    @Test("raw UTF-8 in request targets is percent-encoded; a Content-Length body is passed byte for byte, however the bytes arrive")
    func encodesTargetsOnly() throws {
        let (sent, expected) = Self.pipelined
        for size in [1, 2, 3, 7, 64, sent.count] {
            let (output, refusal) = try Self.guarded(sent, pieces: size)
            #expect(refusal == nil)
            #expect(String(decoding: output, as: UTF8.self) == expected, "in pieces of \(size) bytes")
        }
    }

    @Test("after a chunked (or upgraded) request the guard no longer follows the framing: later bytes pass untouched")
    func passesUnfollowedFraming() throws {
        let chunked = "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n邾\r\n0\r\n\r\nGET /y?q=汉口 HTTP/1.1\r\n\r\n"
        let (output, refusal) = try Self.guarded(Array(chunked.utf8), pieces: 5)
        #expect(refusal == nil)
        #expect(output == Array(chunked.utf8))
    }

    @Test("a request line over the limit is refused with 414 and none of it reaches the parser; header fields over theirs with 431")
    func refusesOverLongHeads() throws {
        let earlier = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
        let long = earlier + "GET /collections/shelters/items?name=" + String(repeating: "汉", count: 400) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        let (output, refusal) = try Self.guarded(Array(long.utf8), pieces: 100)
        #expect(String(decoding: output, as: UTF8.self) == earlier, "the request before it still passes; nothing of the long one")
        #expect(refusal?.problem.kind.status == .uriTooLong && refusal?.problem.kind.slug == "query-too-long")
        #expect(refusal?.instance == "/collections/shelters/items")

        let fat = "GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "a", count: 2000) + "\r\n\r\n"
        let (_, tooLarge) = try Self.guarded(Array(fat.utf8), pieces: 300)
        #expect(tooLarge?.problem.kind.status == .requestHeaderFieldsTooLarge && tooLarge?.instance == "/health")
    }

    // MARK: - The live server

    static func withServer(_ limits: RequestLimits = RequestLimits(), _ body: @Sendable (HTTPEndpoint, Int) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, limits: limits))
            try await server.makeApplication(address: .hostname("127.0.0.1", port: 0)).test(.live) { client in
                let port = try #require(client.port)
                try await body(HTTPEndpoint(baseURL: "http://127.0.0.1:\(port)"), port)
            }
        }
    }

    /// The decoded problem+json of a curl response.
    static func problem(_ r: HTTPEndpoint.Response?) throws -> JSONValue {
        let r = try #require(r)
        #expect(r.headers["content-type"] == "application/problem+json", "\(r.status) \(r.headers)")
        return try JSONDecoder().decode(JSONValue.self, from: Data(r.body.utf8))
    }

    @Test("curl's raw UTF-8 query is read as the text it encodes: ?name=汉口 selects the shelter named 汉口")
    func rawUTF8Query() async throws {
        try await Self.withServer { endpoint, _ in
            // curl sends the query's UTF-8 bytes as they are (no percent-encoding).
            let r = try #require(try await endpoint.http("/collections/shelters/items?name=汉口&f=json", within: 30))
            #expect(r.status == 200, "\(r.status) \(r.body.prefix(300))")
            let doc = try JSONDecoder().decode(JSONValue.self, from: Data(r.body.utf8))
            #expect(doc["features"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["hankou"])
        }
    }

    @Test("a 20 KB and a 40 KB query answer 414 problem+json (the README's promise), not an empty 400")
    func longQueries() async throws {
        try await Self.withServer { endpoint, _ in
            for size in [20_000, 40_000] {
                let r = try await endpoint.http("/geocode?q=" + String(repeating: "a", count: size), within: 30)
                #expect(r?.status == 414, "\(size) bytes: \(r?.status ?? 0)")
                let doc = try Self.problem(r)
                #expect(doc["type"] == "https://citytwin.dev/problems/query-too-long" && doc["instance"] == "/geocode", "\(doc)")
            }
        }
    }

    @Test("header fields over the limit answer 431 problem+json; a malformed request line 400 problem+json")
    func headerAndMalformed() async throws {
        try await Self.withServer(RequestLimits(maxHeaderBytes: 2048)) { endpoint, port in
            let fat = try await endpoint.http("/health", headers: ["X-Pad: " + String(repeating: "a", count: 8000)], within: 30)
            #expect(fat?.status == 431)
            #expect(try Self.problem(fat)["type"] == "https://citytwin.dev/problems/headers-too-large")

            // A control character in the target: no client library sends one, so a raw socket does.
            let answer = try await RawConnection.onOwnThread {
                let socket = try RawConnection(port: port)
                defer { socket.close() }
                socket.send("GET /hea\u{01}lth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return socket.readAll(within: 15)
            }
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains("application/problem+json") && answer.contains("https://citytwin.dev/problems/malformed-request"), "\(answer)")
        }
    }
}

extension RawConnection {
    /// What arrives until the server closes the connection (or `limit` seconds pass), as text.
    func readAll(within limit: Double) -> String {
        let end = Date().addingTimeInterval(limit)
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }
}
