import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Server
import Testing
import TestSupport
import TwinStore
#if canImport(Glibc)
import Glibc
#endif

/// `RequestLimits` (issue 21 §3), each limit set low so that a test crosses it, and each test
/// failing when its limit is gone: connection limits against a live server on a port (raw
/// sockets, curl), request limits through the router.
@Suite("Request limits: idle and trickling connections, header, query, filter and body sizes, rates")
struct RequestLimitTests {
    /// The tokens' authority of `withAPI`'s server.
    static let authority = try! TokenAuthority(secret: Array("request-limit-test-secret-0123456789abcdef".utf8))

    /// A new token of `authority` (its own `jti`).
    static func token(_ subject: String = "王工") -> String {
        authority.issue(TokenClaims(department: "应急管理局", role: .viewer, subject: subject, lifetime: 3600))
    }

    static func withAPI(_ limits: RequestLimits, _ mode: TestingSetup = .router,
                        _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        try await ServerFixture.withStore { store in
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority,
                                                                             limits: limits))
            try await server.makeApplication(address: .hostname("127.0.0.1", port: 0)).test(mode) { client in try await body(client) }
        }
    }

    // MARK: - Connections

    @Test("an idle connection is closed after the idle timeout")
    func idleConnectionClosed() async throws {
        try await Self.withAPI(RequestLimits(idleTimeout: 1), .live) { client in
            let port = try #require(client.port)
            // Silent: the server closes it (read returns end of stream) long before 15 s.
            let closed = try await RawConnection.onOwnThread {
                let socket = try RawConnection(port: port)
                defer { socket.close() }
                return socket.readUntilClosed(within: 15)
            }
            #expect(closed, "the server kept an idle connection open for 15 s with a 1 s idle timeout")
        }
    }

    @Test("a client trickling its request head one byte at a time is cut off after the idle timeout")
    func tricklingHeadCutOff() async throws {
        try await Self.withAPI(RequestLimits(idleTimeout: 1), .live) { client in
            let port = try #require(client.port)
            let closed = try await RawConnection.onOwnThread {
                let socket = try RawConnection(port: port)
                defer { socket.close() }
                var closed = false
                socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                for _ in 0..<60 where !closed {  // 15 s of one byte every 0.25 s, never finishing the head
                    closed = !socket.send("a") || socket.readUntilClosed(within: 0.25)
                }
                return closed
            }
            #expect(closed, "the server let a request head trickle in for 15 s with a 1 s idle timeout")
        }
    }

    @Test("a request head larger than the header limit is refused with 431 problem+json; one below it is served")
    func headerLimit() async throws {
        try await Self.withAPI(RequestLimits(maxHeaderBytes: 2048), .live) { client in
            let endpoint = HTTPEndpoint(baseURL: "http://127.0.0.1:\(try #require(client.port))")
            // /conformance, not /health: /health answers 503 when the store is slow to answer, which the
            // whole suite on two cores made it once; the header limit is what is under test.
            let small = try await endpoint.http("/conformance", headers: ["X-Pad: " + String(repeating: "a", count: 1000)])
            #expect(small.status == 200)
            let large = try await endpoint.http("/conformance", headers: ["X-Pad: " + String(repeating: "a", count: 8000)])
            #expect(large.status == 431, "a 8 kB header was answered \(large.status) with a 2 kB limit")
            #expect(large.headers["content-type"] == "application/problem+json" && large.body.contains("headers-too-large"))
        }
    }

    @Test("/health answers while 1,000 idle connections are open")
    func healthWithThousandIdleConnections() async throws {
        try await Self.withAPI(RequestLimits(), .live) { client in
            let port = try #require(client.port)
            let idle = try await RawConnection.onOwnThread { try (0..<1000).map { _ in try RawConnection(port: port) } }
            defer { idle.forEach { $0.close() } }
            // Starved, it would not answer before the idle connections time out (60 s); the bound leaves room for a
            // loaded CI machine running every suite at once (alone it answers in milliseconds: Benchmarks/soak; a
            // fresh-clone CI on a slower 2-core machine took over 15 s while every suite ran beside it).
            // A 503 is the store's probe missing its 800 ms under that load (seen once in nine full runs here), not a
            // starved server: asked again until 200 within the same bound.
            let endpoint = HTTPEndpoint(baseURL: "http://127.0.0.1:\(port)")
            // A connect that times out while the accept queue drains under that load is asked again too.
            try await OutageHarness.eventually("/health answers 200 with 1,000 idle connections open", within: 40) {
                (try? await endpoint.http("/health", within: 20))??.status == 200
            }
        }
    }

    // MARK: - Requests

    @Test("a query string over the limit answers 414 problem+json")
    func queryLimit() async throws {
        try await Self.withAPI(RequestLimits(maxQueryBytes: 1024)) { client in
            #expect(try await client.get("/collections/shelters/items?limit=1&bbox=114,30,115,31").status == .ok)
            let r = try await client.get("/collections/shelters/items?name=" + String(repeating: "a", count: 1100))
            try expectProblem(r, status: 414, type: "query-too-long")
        }
    }

    @Test("a CQL2 filter over the limit answers 400 naming filter")
    func filterLimit() async throws {
        try await Self.withAPI(RequestLimits(maxFilterBytes: 256)) { client in
            let short = "capacity > 100"
            let long = (0..<40).map { "capacity <> \($0)" }.joined(separator: " AND ")
            #expect(try await client.get("/collections/shelters/items?filter=\(Self.encoded(short))").status == .ok)
            let r = try await client.get("/collections/shelters/items?filter=\(Self.encoded(long))")
            try expectProblem(r, status: 400, type: "invalid-parameter", naming: "filter")
        }
    }

    @Test("a body over the limit answers 413, for feature writes and process execution")
    func bodyLimit() async throws {
        try await Self.withAPI(RequestLimits(maxBodyBytes: 1024)) { client in
            let body = #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.3, 30.6]}, "properties": {"name": ""#
                + String(repeating: "x", count: 2000) + #""}}"#
            let declared = try await client.execute(uri: "/collections/shelters/items", method: .post,
                                                    headers: [.contentType: "application/geo+json", .contentLength: String(body.utf8.count)],
                                                    body: ByteBuffer(string: body))
            try expectProblem(declared, status: 413, type: "body-too-large")
            // Through processes, which read the body themselves: the same limit.
            let execute = try await client.execute(uri: "/processes/features-in-area/execution", method: .post,
                                                   headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"inputs": {"layer": "shelters", "pad": ""# + String(repeating: "x", count: 2000) + #""}}"#))
            try expectProblem(execute, status: 413, type: "body-too-large")
        }
    }

    @Test("a token over its rate gets 429 with Retry-After; another token is not held back")
    func tokenRate() async throws {
        try await Self.withAPI(RequestLimits(tokenRate: 0.01, tokenBurst: 3)) { client in
            let first: HTTPFields = [.authorization: "Bearer \(Self.token("一"))"]
            for _ in 0..<3 { #expect(try await client.get("/collections", headers: first).status == .ok) }
            let limited = try await client.get("/collections", headers: first)
            try expectProblem(limited, status: 429, type: "rate-limited")
            #expect(limited.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true, "\(limited.headers)")
            #expect(try await client.get("/collections", headers: [.authorization: "Bearer \(Self.token("二"))"]).status == .ok)
        }
    }

    @Test("the per-token limits count the verified token, not its header's text: one token sent as HTTP Basic with a new user name each time is held to its rate (it got 40 of 40 answered at --token-rate 5)")
    func tokenRateCountsTheIdentity() async throws {
        try await Self.withAPI(RequestLimits(tokenRate: 0.01, tokenBurst: 5)) { client in
            let token = Self.token()
            var answered = 0, refused = 0
            for i in 0..<40 {
                let basic = "Basic " + Data("user\(i):\(token)".utf8).base64EncodedString()
                let r = try await client.get("/collections", headers: [.authorization: basic])
                if r.status == .ok { answered += 1 } else if r.status == .tooManyRequests { refused += 1 }
            }
            #expect(answered == 5 && refused == 35, "\(answered) of 40 answered, \(refused) refused")
            // As a bearer token it is the same caller, already over its quota; another token is not.
            try expectProblem(try await client.get("/collections", headers: [.authorization: "Bearer \(token)"]), status: 429, type: "rate-limited")
            #expect(try await client.get("/collections", headers: [.authorization: "Bearer \(Self.token("另一位"))"]).status == .ok)
        }
    }

    @Test("a flood of bad tokens is counted against its address, and still answered 401 within its bound")
    func badTokensCountedByAddress() async throws {
        try await Self.withAPI(RequestLimits(addressRate: 0.01, addressBurst: 3), .live) { client in
            for i in 0..<3 {
                let r = try await client.get("/collections", headers: [.authorization: "Bearer forged-\(i)"])
                try expectProblem(r, status: 401, type: "invalid-token")
            }
            try expectProblem(try await client.get("/collections", headers: [.authorization: "Bearer forged-9"]), status: 429, type: "rate-limited")
        }
    }

    @Test("request bodies in memory are bounded per address: with two 15 MiB uploads without a token in flight, a third is refused 429 naming the budget before its body is read; a token's goes on; once they end, the next is taken")
    func bodyBudget() async throws {
        // The default budgets (32 MiB of bodies per address without a token, 64 MiB with); the held uploads'
        // silence is not under test.
        let limits = RequestLimits(idleTimeout: 600)
        try await Self.withAPI(limits, .live) { client in
            let port = try #require(client.port)
            let size = 15 << 20
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("body-budget-\(UUID().uuidString).json")
            try Data(repeating: UInt8(ascii: " "), count: size).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            func upload(_ headers: [String] = []) async throws -> (status: Int, text: String) {
                var arguments = ["-s", "--noproxy", "*", "-m", "120", "-o", "-", "-w", "\n%{http_code}", "-X", "POST",
                                 "-H", "Content-Type: application/json", "-H", "Expect:", "--data-binary", "@" + file.path]
                for h in headers { arguments += ["-H", h] }
                arguments.append("http://127.0.0.1:\(port)/processes/features-in-area/execution")
                let curl = try await CommandProcess.run("/usr/bin/curl", arguments, within: 180)
                let lines = curl.output.split(separator: "\n", omittingEmptySubsequences: false)
                return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
            }
            // Two uploads whose heads are sent and whose bodies trickle: each holds its declared 15 MiB.
            let held = try await RawConnection.onOwnThread {
                try (0..<2).map { _ -> RawConnection in
                    let c = try RawConnection(port: port)
                    c.send("POST /processes/features-in-area/execution HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           + "Content-Length: \(size)\r\n\r\n" + String(repeating: " ", count: 1 << 20))
                    return c
                }
            }
            // A third: refused as soon as its head is read, its body never asked for.
            var third = ""
            try await OutageHarness.eventually("a third upload of the address is refused", within: 60) {
                third = try await RawConnection.onOwnThread {
                    let c = try RawConnection(port: port)
                    defer { c.close() }
                    c.send("POST /processes/features-in-area/execution HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           + "Content-Length: \(size)\r\n\r\n")
                    return c.readResponse(within: 20)
                }
                return third.hasPrefix("HTTP/1.1 429")
            }
            #expect(third.contains("application/problem+json") && third.lowercased().contains("retry-after: 1"), "\(third)")
            #expect(third.contains("body-budget") && third.contains("--anonymous-body-budget") && third.contains("\(32 << 20)"), "\(third)")
            // With a token, the address's own budget (64 MiB) still has room for it.
            #expect(try await upload(["Authorization: Bearer \(Self.token())"]).status != 429)
            held.forEach { $0.close() }
            try await OutageHarness.eventually("the address's budget is free again once the uploads end", within: 60) {
                try await upload().status != 429
            }
        }
    }

    @Test("an address over its rate gets 429 with Retry-After; behind a trusted proxy each forwarded address has its own")
    func addressRate() async throws {
        let forwarded = HTTPField.Name("X-Forwarded-For")!
        try await Self.withAPI(RequestLimits(addressRate: 0.01, addressBurst: 3), .live) { client in
            for _ in 0..<3 {
                let r = try await client.get("/collections")
                #expect(r.status == .ok)
            }
            let limited = try await client.get("/collections")
            try expectProblem(limited, status: 429, type: "rate-limited")
            #expect(limited.headers[.retryAfter] != nil)
            // Untrusted, X-Forwarded-For changes nothing: the peer is still 127.0.0.1.
            let spoofed = try await client.get("/collections", headers: [forwarded: "10.0.0.9"])
            #expect(spoofed.status == .tooManyRequests)
        }
        try await Self.withAPI(RequestLimits(addressRate: 0.01, addressBurst: 3, trustForwardedFor: true), .live) { client in
            for _ in 0..<3 {
                let r = try await client.get("/collections", headers: [forwarded: "10.0.0.1"])
                #expect(r.status == .ok)
            }
            let limited = try await client.get("/collections", headers: [forwarded: "10.0.0.1"])
            #expect(limited.status == .tooManyRequests)
            let other = try await client.get("/collections", headers: [forwarded: "10.0.0.2"])
            #expect(other.status == .ok)
        }
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// A raw TCP connection to 127.0.0.1, for clients no HTTP library imitates: silent or trickling.
/// Its calls block (connect, poll): a test makes them in `onOwnThread`, never on one of Swift
/// concurrency's few cooperative threads, which the server under test needs to accept and answer
/// (on 2 cores, two tests blocked in these calls starved the server until connect() timed out).
final class RawConnection: @unchecked Sendable {
    let fd: Int32

    /// Runs `work` (blocking socket calls) on a thread of its own and returns what it returns.
    static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessFailure("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            Glibc.close(fd)
            throw HarnessFailure("connect() to port \(port) failed: errno \(errno)")
        }
    }

    /// Sends `text`; `false` when the connection is gone.
    @discardableResult
    func send(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } >= 0
    }

    /// Reads (and drops) what arrives until the server closes the connection: `true` when it
    /// did within `limit` seconds.
    func readUntilClosed(within limit: Double) -> Bool {
        let end = Date().addingTimeInterval(limit)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, end.timeIntervalSinceNow * 1000))
            guard poll(&descriptor, 1, remaining) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
        return false
    }

    /// What arrives until the server closes the connection or stops sending for a second (once it
    /// has sent something), within `limit` seconds: an answer's head and body, as text.
    func readResponse(within limit: Double) -> String {
        let end = Date().addingTimeInterval(limit)
        var received = [UInt8](), buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < end {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let wait = received.isEmpty ? Int32(max(1, end.timeIntervalSinceNow * 1000)) : 1000
            guard poll(&descriptor, 1, wait) > 0 else { if received.isEmpty { continue } else { break } }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }

    func close() { Glibc.close(fd) }
}
