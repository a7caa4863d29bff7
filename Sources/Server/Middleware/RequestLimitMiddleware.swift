import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Refuses what `RequestLimits` bounds before any route works on it: a caller with too many
/// requests in progress or over its rate (429 with `Retry-After`), a query string or CQL2 filter
/// too long (414, 400), a body whose `Content-Length` is too large (413) or would not fit its
/// address's budget of bodies in memory (429, `BodyBudget`); and hands the body limit and the
/// budget to the routes that read bodies (`CityTwinRequestContext.maxUploadSize`, `bodyAllowance`).
///
/// Runs inside `ProblemMiddleware` (problem+json) and after `CallerMiddleware`: a request is
/// counted by the identity its token verified as (`VerifiedToken.identity`: one token is one
/// caller however its header is spelt, Bearer or HTTP Basic with any user name, issue 78 §8), and
/// a request without a token, or whose token was refused, by its client address; the refusal
/// (401, 403) is thrown here once the request has been counted, so a flood of bad tokens is
/// bounded too. A request is in progress until its response head is ready (a Server-Sent Events
/// stream then goes on without counting, and is counted as a stream instead: `LiveStreams`).
struct RequestLimitMiddleware: RouterMiddleware {
    /// The bounds on one kind of caller (a bearer token, a client address without one).
    struct CallerBounds {
        /// How the caller is named in a refusal: "this token".
        let name: String
        let inProgress: ConcurrencyLimiter?
        let rate: RateLimiter?
    }

    let limits: RequestLimits
    let byToken: CallerBounds
    let byAddress: CallerBounds
    /// The request bodies in memory at once, per address and in all.
    let bodies: BodyBudget

    init(limits: RequestLimits) {
        self.limits = limits
        byToken = CallerBounds(
            name: "this token",
            inProgress: limits.tokenConcurrency > 0 ? ConcurrencyLimiter(limit: limits.tokenConcurrency) : nil,
            rate: limits.tokenRate > 0 ? RateLimiter(rate: limits.tokenRate, burst: limits.tokenBurst) : nil)
        byAddress = CallerBounds(
            name: "this address (without a token)",
            inProgress: limits.addressConcurrency > 0 ? ConcurrencyLimiter(limit: limits.addressConcurrency) : nil,
            rate: limits.addressRate > 0 ? RateLimiter(rate: limits.addressRate, burst: limits.addressBurst) : nil)
        bodies = BodyBudget(limits: limits)
    }

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        let address = clientAddress(request, context)
        // Counted against its verified identity, or else its address (an in-process request has neither).
        let caller: (key: String, bounds: CallerBounds)? = if let token = context.token { ("token\u{0}" + token.verified.identity, byToken) }
            else if let address { (address, byAddress) }
            else { nil }
        if let caller, let inProgress = caller.bounds.inProgress {
            guard inProgress.enter(caller.key) else {
                throw Problem(.rateLimited, "\(caller.bounds.name) has \(inProgress.limit) requests in progress, the most one caller may have at once; send more when they are answered (try again in 1 s)",
                              retryAfter: 1)
            }
        }
        defer { if let caller { caller.bounds.inProgress?.leave(caller.key) } }
        if let caller, let rate = caller.bounds.rate, let wait = rate.take(caller.key) {
            throw Problem(.rateLimited, "\(caller.bounds.name) sent more than \(Self.rate(rate.rate, rate.burst)); try again in \(wait) s",
                          retryAfter: wait)
        }
        if let refusal = context.tokenRefusal { throw refusal }
        if let query = request.uri.query {
            guard query.utf8.count <= limits.maxQueryBytes else {
                throw Problem(.queryTooLong, "the query string has \(query.utf8.count) bytes; at most \(limits.maxQueryBytes) are accepted")
            }
            if query.contains("filter="), let filter = try? QueryParameters(query)["filter"], filter.utf8.count > limits.maxFilterBytes {
                throw Problem.invalid("filter", "has \(filter.utf8.count) bytes; at most \(limits.maxFilterBytes) are accepted")
            }
        }
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > limits.maxBodyBytes {
            throw Problem(.bodyTooLarge, "the body has \(length) bytes; at most \(limits.maxBodyBytes) (--max-body-bytes) are accepted")
        }
        var context = context
        context.maxUploadSize = limits.maxBodyBytes
        context.clientAddress = address
        // The body's share of its address's budget, taken whole now when its length is declared
        // (refused before a byte of it is read), else as it is read (`FeatureBody.bytes`).
        let allowance = address.map { bodies.allowance(address: $0, anonymous: context.token == nil) }
        defer { allowance?.release() }
        if let allowance, let length, length > 0 { try allowance.reserve(length) }
        context.bodyAllowance = allowance
        return try await next(request, context)
    }

    /// The client's address: the connection's peer, or the last `X-Forwarded-For` entry when
    /// trusted; `nil` for a request that came through no socket (an in-process call).
    func clientAddress(_ request: Request, _ context: CityTwinRequestContext) -> String? {
        if limits.trustForwardedFor, let forwarded = request.headers[values: .xForwardedFor].last,
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return last
        }
        return context.remoteAddress?.ipAddress
    }

    static func rate(_ perSecond: Double, _ burst: Double) -> String {
        "\(perSecond.formatted(.number.grouping(.never))) requests per second (bursts of \(Int(burst)))"
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
