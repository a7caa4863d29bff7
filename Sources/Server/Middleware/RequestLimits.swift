/// What one connection, one request and one caller may ask of a server (issue 21 §3), so that
/// slow, idle, oversized or flooding clients cannot starve the others. Every limit is an option
/// of `citytwin serve`; the defaults suit a city's API behind a load balancer.
public struct RequestLimits: Sendable, Hashable {
    /// Seconds a connection may stay silent before it is closed: between requests, and while a
    /// request head or body trickles in (the head counts as read only once complete, so a client
    /// sending one header byte at a time is closed too). Hummingbird's HTTP/1 idle timeout.
    public var idleTimeout: Double
    /// Bytes of all request header fields together, and of any one field; a larger head is
    /// refused by the HTTP decoder before a route sees it.
    public var maxHeaderBytes: Int
    /// Bytes of the query string (after `?`, as sent): 414 beyond.
    public var maxQueryBytes: Int
    /// Bytes of a CQL2 `filter` parameter (decoded): 400 naming `filter` beyond. A filter is
    /// compiled to SQL, so its size bounds the work of parsing and planning it.
    public var maxFilterBytes: Int
    /// Bytes of a request body: 413 beyond (from `Content-Length` before the body is read, or
    /// while it is read).
    public var maxBodyBytes: Int
    /// Requests per second and burst for one bearer token (0: no limit): 429 with `Retry-After` beyond.
    public var tokenRate: Double, tokenBurst: Double
    /// Requests per second and burst for one client address without a token (0: no limit).
    public var addressRate: Double, addressBurst: Double
    /// Whether the client address is the last one in `X-Forwarded-For` (set by the load balancer
    /// in front) instead of the connection's peer: only behind a proxy that sets the header.
    public var trustForwardedFor: Bool
    /// SensorThings writes (observations, entities) in progress or waiting for the store at
    /// once; one more is refused with 503 and `Retry-After` before anything is read or written,
    /// so a burst of gateways is told to come back instead of queueing without bound (0: no bound).
    public var sensingWriteQueue: Int

    public init(idleTimeout: Double = 60, maxHeaderBytes: Int = 16 * 1024, maxQueryBytes: Int = 16 * 1024,
                maxFilterBytes: Int = 8 * 1024, maxBodyBytes: Int = 16 << 20,
                tokenRate: Double = 50, tokenBurst: Double = 500, addressRate: Double = 20, addressBurst: Double = 200,
                trustForwardedFor: Bool = false, sensingWriteQueue: Int = 64) {
        self.idleTimeout = idleTimeout
        self.maxHeaderBytes = maxHeaderBytes
        self.maxQueryBytes = maxQueryBytes
        self.maxFilterBytes = maxFilterBytes
        self.maxBodyBytes = maxBodyBytes
        self.tokenRate = tokenRate
        self.tokenBurst = tokenBurst
        self.addressRate = addressRate
        self.addressBurst = addressBurst
        self.trustForwardedFor = trustForwardedFor
        self.sensingWriteQueue = sensingWriteQueue
    }

    /// No rate limits (the in-process test suites send many requests from one address).
    public static let unthrottled = RequestLimits(tokenRate: 0, addressRate: 0)
}
