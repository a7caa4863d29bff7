import Foundation
import GeoCore
import Logging
import Synchronization
import TwinStore

/// The server's open event streams (Server-Sent Events: `/changes`, `/collections/{id}/changes`,
/// `/alerts/events`, `/parking/events`): each counted against its caller while it lasts, and its
/// token checked for as long as it lasts (issue 78 §6, §9).
///
/// A stream is a request whose answer goes on: once its response head is sent it no longer counts
/// as a request in progress (`--token-concurrency`, `--address-concurrency`), so streams are
/// counted here instead, by the same caller: a verified token's identity (`--token-streams`), or a
/// client address without one (`--address-streams`), and in all (`--max-streams`). One more is
/// refused before it starts: 429 `too-many-streams` with `Retry-After` for a caller over its
/// share, 503 `server-busy` when the server is full.
///
/// Every stream opened with a token is checked by `TokenLife` every `TokenLife.checkInterval`
/// (one task for all of them, one check per token however many streams it has): a token revoked,
/// expired or no longer matching the rotated secret ends its streams, each with a last `error`
/// event naming the reason (`StreamLease.end`).
final class LiveStreams: Sendable {
    let limits: RequestLimits
    let tokenLife: TokenLife
    let logger: Logger

    private struct Entry {
        let lease: StreamLease
        let token: HeldToken?
        let key: String?
    }
    private struct State {
        var entries: [UInt64: Entry] = [:]
        var byToken: [String: Int] = [:]
        var byAddress: [String: Int] = [:]
        var nextID: UInt64 = 1
        var checking: Task<Void, Never>?
    }
    private let state = Mutex(State())

    /// `citytwin_event_streams`: the streams open now.
    let metrics: ServerMetrics?

    init(limits: RequestLimits, tokenLife: TokenLife, metrics: ServerMetrics? = nil, logger: Logger) {
        self.limits = limits
        self.tokenLife = tokenLife
        self.metrics = metrics
        self.logger = logger
    }

    /// Counts a new stream of the request's caller (`context.token`, else `context.clientAddress`).
    /// - Throws: `Problem` `.tooManyStreams` (429) or `.serverBusy` (503), with `Retry-After`.
    func open(_ context: CityTwinRequestContext, kind: String) throws -> StreamLease {
        try open(token: context.token, address: context.clientAddress, kind: kind)
    }

    func open(token: HeldToken?, address: String?, kind: String) throws -> StreamLease {
        let key: (name: String, isToken: Bool)? = if let token { (token.verified.identity, true) } else { address.map { ($0, false) } }
        let lease: StreamLease = try state.withLock { s in
            if limits.maxStreams > 0, s.entries.count >= limits.maxStreams {
                throw Problem(.serverBusy, "the server has \(limits.maxStreams) event streams open, the most it keeps (--max-streams); try again later",
                              retryAfter: 30)
            }
            if let key {
                let (count, limit, option, who) = key.isToken
                    ? (s.byToken[key.name, default: 0], limits.tokenStreams, "--token-streams", "this token")
                    : (s.byAddress[key.name, default: 0], limits.addressStreams, "--address-streams", "this address (without a token)")
                if limit > 0, count >= limit {
                    throw Problem(.tooManyStreams, "\(who) has \(count) event streams open, the most one caller may (\(option)); close one first (try again in 5 s)",
                                  retryAfter: 5)
                }
                if key.isToken { s.byToken[key.name] = count + 1 } else { s.byAddress[key.name] = count + 1 }
            }
            let id = s.nextID
            s.nextID += 1
            let lease = StreamLease(id: id, kind: kind)
            s.entries[id] = Entry(lease: lease, token: token, key: key?.name)
            if token != nil, s.checking == nil {
                s.checking = Task { [weak self] in await self?.checkTokens() }
            }
            return lease
        }
        metrics?.set("citytwin_event_streams", count)
        return lease
    }

    /// The stream has ended: it no longer counts.
    func close(_ lease: StreamLease) {
        let closed = state.withLock { s -> Bool in
            guard let entry = s.entries.removeValue(forKey: lease.id) else { return false }
            if let key = entry.key {
                if entry.token != nil {
                    let n = s.byToken[key, default: 1] - 1
                    s.byToken[key] = n > 0 ? n : nil
                } else {
                    let n = s.byAddress[key, default: 1] - 1
                    s.byAddress[key] = n > 0 ? n : nil
                }
            }
            return true
        }
        if closed { metrics?.set("citytwin_event_streams", count) }
    }

    /// Streams open now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Checks every stream's token once per `TokenLife.checkInterval` while any stream holds one;
    /// each token once, however many streams it has.
    private func checkTokens() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: TokenLife.checkInterval)
            let held = state.withLock { s -> [(HeldToken, [StreamLease])]? in
                let withToken = s.entries.values.filter { $0.token != nil }
                guard !withToken.isEmpty else {
                    s.checking = nil
                    return nil
                }
                var byText: [String: (HeldToken, [StreamLease])] = [:]
                for e in withToken {
                    guard let token = e.token else { continue }
                    byText[token.text, default: (token, [])].1.append(e.lease)
                }
                return Array(byText.values)
            }
            guard let held else { return }
            for (token, leases) in held {
                guard let reason = await tokenLife.reasonToEnd(token) else { continue }
                logger.info("\(leases.count) event stream(s) of \(Self.describe(token.verified.caller)) ended: \(reason)")
                for lease in leases { lease.end(reason) }
            }
        }
    }

    static func describe(_ caller: Caller) -> String {
        switch caller {
        case .anonymous: "an anonymous caller"
        case .admin: "the admin"
        case .department(let name, let role, let user): "\(name)/\(role.rawValue)" + (user.map { " (\($0))" } ?? "")
        }
    }
}

/// One open event stream's place in `LiveStreams`: what ends it early (its token no longer valid)
/// reaches the stream's writer through `onEnd`, which writes a last `error` event and finishes.
final class StreamLease: Sendable {
    let id: UInt64
    /// What kind of stream, for logs: "changes", "alerts", "parking".
    let kind: String

    private struct State {
        var reason: String?
        var handlers: [@Sendable (String) -> Void] = []
    }
    private let state = Mutex(State())

    init(id: UInt64, kind: String) {
        self.id = id
        self.kind = kind
    }

    /// Calls `handler` once with the reason the stream must end (at once when it already must).
    func onEnd(_ handler: @escaping @Sendable (String) -> Void) {
        let ended = state.withLock { s -> String? in
            if let reason = s.reason { return reason }
            s.handlers.append(handler)
            return nil
        }
        if let ended { handler(ended) }
    }

    /// The stream must end, for `reason` (said to the client in its last event).
    func end(_ reason: String) {
        let handlers = state.withLock { s -> [@Sendable (String) -> Void] in
            guard s.reason == nil else { return [] }
            s.reason = reason
            defer { s.handlers = [] }
            return s.handlers
        }
        for h in handlers { h(reason) }
    }

    /// Why the stream must end, once it must.
    var reason: String? { state.withLock { $0.reason } }

    /// The last event of a stream ended for `reason`: `event: error` with a problem document
    /// (`token-no-longer-valid`, status 401) as its data, so an EventSource's `error` listener
    /// (or any client reading the stream) learns why before the connection closes.
    static func errorEvent(_ reason: String) -> String {
        let problem = Problem(.tokenNoLongerValid, reason + "; the stream has ended (open it again with a valid token)")
        let text = String(decoding: JSONText.bytes(problem.document(instance: "")), as: UTF8.self)
        return "event: error\ndata: \(text)\n\n"
    }
}

/// A stream's lease as its response body holds it: closed when the body ends, and, should the
/// body never run (the connection gone before its head was written), when the response is
/// dropped, so a stream is never counted after it is gone.
final class StreamTicket: Sendable {
    let lease: StreamLease
    private let streams: LiveStreams

    init(_ lease: StreamLease, in streams: LiveStreams) {
        self.lease = lease
        self.streams = streams
    }

    func close() { streams.close(lease) }

    deinit { streams.close(lease) }
}
