/// What one connection, one request and one caller may ask of a server (issue 21 §3), so that
/// slow, idle, oversized or flooding clients cannot starve the others. Every limit is an option
/// of `citytwin serve`; the defaults suit a city's API behind a load balancer.
///
/// A flood is held off by how many requests one caller has **in progress at once**
/// (`tokenConcurrency`, `addressConcurrency`), as nginx's `limit_conn` and GeoServer's per-user
/// control flow do, not by how many it sends per second: a standard client reading a layer page
/// by page (GDAL's OAPIF driver at its default page size, QGIS, OWSLib, a conformance suite) has
/// one request in progress at a time, however fast the server answers it, and must never be
/// refused (issue 58 §12: GDAL went over 50 pages a second and got 429). The per-second token
/// buckets (`tokenRate`, `addressRate`) remain for a deployment that wants a quota, and are off
/// by default: any rate a sequential client cannot reach would be above what the server serves.
/// A caller with a token is counted by the identity it verified as, never by the header's text.
///
/// What a request holds after its answer has begun, or while its body is read, is bounded apart:
/// event streams open at once per token, per address and in all (`tokenStreams`, `addressStreams`,
/// `maxStreams`), and bytes of request bodies in memory per address, per address without a token
/// and in all (`addressBodyBudget`, `anonymousBodyBudget`, `bodyBudget`).
public struct RequestLimits: Sendable, Hashable {
    /// Seconds a connection may stay silent before it is closed: between requests, and while a
    /// request head or body trickles in (the head counts as read only once complete, so a client
    /// sending one header byte at a time is closed too). Hummingbird's HTTP/1 idle timeout.
    public var idleTimeout: Double
    /// Bytes of all request header fields together: 431 (problem+json) beyond, before a route
    /// sees the request (`RequestHeadGuard`).
    public var maxHeaderBytes: Int
    /// Bytes of the query string (after `?`, percent-encoded: raw UTF-8 counts as sent encoded):
    /// 414 (problem+json) beyond.
    public var maxQueryBytes: Int
    /// Bytes of a CQL2 `filter` parameter (decoded): 400 naming `filter` beyond. A filter is
    /// compiled to SQL, so its size bounds the work of parsing and planning it.
    public var maxFilterBytes: Int
    /// Bytes of a request body: 413 beyond (from `Content-Length` before the body is read, or
    /// while it is read).
    public var maxBodyBytes: Int
    /// Requests one bearer token may have in progress at once (0: no limit): one more gets 429
    /// with `Retry-After: 1`. Counted per token text, so a department's applications and staff
    /// sharing one token share it too: above a browser's 6 connections per host for a few desks.
    public var tokenConcurrency: Int
    /// Requests one client address without a token may have in progress at once (0: no limit).
    /// An office behind one NAT address shares it: room for a few browsers (6 connections each)
    /// and QGIS, far below a flood's hundreds.
    public var addressConcurrency: Int
    /// Requests per second and burst for one bearer token (0, the default: no limit): 429 with
    /// `Retry-After` beyond. A quota, which a client reading page after page can reach.
    public var tokenRate: Double, tokenBurst: Double
    /// Requests per second and burst for one client address without a token (0, the default: no limit).
    public var addressRate: Double, addressBurst: Double
    /// Whether the client address is the last one in `X-Forwarded-For` (set by the load balancer
    /// in front) instead of the connection's peer: only behind a proxy that sets the header.
    public var trustForwardedFor: Bool
    /// SensorThings writes (observations, entities) in progress or waiting for the store at
    /// once; one more is refused with 503 and `Retry-After` before anything is read or written,
    /// so a burst of gateways is told to come back instead of queueing without bound (0: no bound).
    public var sensingWriteQueue: Int
    /// Bytes of request bodies one client address may have in memory at once, all its callers
    /// together (`BodyBudget`): 429 with `Retry-After` beyond (0: no bound). Four bodies of the
    /// largest size by default.
    public var addressBodyBudget: Int
    /// Bytes of request bodies one client address may have in memory at once in requests without
    /// a token: 429 with `Retry-After` beyond (0: no bound). Two bodies of the largest size.
    public var anonymousBodyBudget: Int
    /// Bytes of request bodies the whole server may have in memory at once: 503 with
    /// `Retry-After` beyond (0: no bound).
    public var bodyBudget: Int
    /// Event streams (Server-Sent Events: `/changes`, `/alerts/events`, `/parking/events`) one
    /// verified token may have open at once: 429 with `Retry-After` beyond (0: no bound).
    public var tokenStreams: Int
    /// Event streams one client address may have open at once without a token (0: no bound).
    public var addressStreams: Int
    /// Event streams the whole server keeps open at once: 503 with `Retry-After` beyond (0: no bound).
    public var maxStreams: Int

    public init(idleTimeout: Double = 60, maxHeaderBytes: Int = 16 * 1024, maxQueryBytes: Int = 16 * 1024,
                maxFilterBytes: Int = 8 * 1024, maxBodyBytes: Int = 16 << 20,
                tokenConcurrency: Int = 64, addressConcurrency: Int = 32,
                tokenRate: Double = 0, tokenBurst: Double = 500, addressRate: Double = 0, addressBurst: Double = 200,
                trustForwardedFor: Bool = false, sensingWriteQueue: Int = 64,
                addressBodyBudget: Int = 64 << 20, anonymousBodyBudget: Int = 32 << 20, bodyBudget: Int = 512 << 20,
                tokenStreams: Int = 32, addressStreams: Int = 16, maxStreams: Int = 4096) {
        self.addressBodyBudget = addressBodyBudget
        self.anonymousBodyBudget = anonymousBodyBudget
        self.bodyBudget = bodyBudget
        self.tokenStreams = tokenStreams
        self.addressStreams = addressStreams
        self.maxStreams = maxStreams
        self.idleTimeout = idleTimeout
        self.maxHeaderBytes = maxHeaderBytes
        self.maxQueryBytes = maxQueryBytes
        self.maxFilterBytes = maxFilterBytes
        self.maxBodyBytes = maxBodyBytes
        self.tokenConcurrency = tokenConcurrency
        self.addressConcurrency = addressConcurrency
        self.tokenRate = tokenRate
        self.tokenBurst = tokenBurst
        self.addressRate = addressRate
        self.addressBurst = addressBurst
        self.trustForwardedFor = trustForwardedFor
        self.sensingWriteQueue = sensingWriteQueue
    }

    /// Bytes of a request line (method, target, version; percent-encoded): the query's limit
    /// and 8 KiB for the path. Longer answers 414 before the HTTP parser reads it (`RequestHeadGuard`).
    public var maxRequestLineBytes: Int { maxQueryBytes + 8 * 1024 }

    /// No limit on what one caller sends or has in progress (in-process test suites that send
    /// many requests at once from one address or token).
    public static let unthrottled = RequestLimits(tokenConcurrency: 0, addressConcurrency: 0, tokenRate: 0, addressRate: 0,
                                                  addressBodyBudget: 0, anonymousBodyBudget: 0, bodyBudget: 0,
                                                  tokenStreams: 0, addressStreams: 0, maxStreams: 0)
}
