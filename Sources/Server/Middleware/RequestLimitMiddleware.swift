import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Refuses what `RequestLimits` bounds before any route works on it: a caller over its rate
/// (429 with `Retry-After`), a query string or CQL2 filter too long (414, 400), a body whose
/// `Content-Length` is too large (413); and hands the body limit to the routes that read bodies
/// (`CityTwinRequestContext.maxUploadSize`). Runs inside `ProblemMiddleware` (problem+json) and
/// before `CallerMiddleware`: a flood of requests with bad tokens is limited too, per token text.
struct RequestLimitMiddleware: RouterMiddleware {
    let limits: RequestLimits
    let tokens: RateLimiter?
    let addresses: RateLimiter?

    init(limits: RequestLimits) {
        self.limits = limits
        tokens = limits.tokenRate > 0 ? RateLimiter(rate: limits.tokenRate, burst: limits.tokenBurst) : nil
        addresses = limits.addressRate > 0 ? RateLimiter(rate: limits.addressRate, burst: limits.addressBurst) : nil
    }

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        if let authorization = request.headers[.authorization] {
            if let tokens, let wait = tokens.take(authorization) {
                throw Problem(.rateLimited, "this token sent more than \(Self.rate(limits.tokenRate, limits.tokenBurst)); try again in \(wait) s",
                              retryAfter: wait)
            }
        } else if let addresses, let address = clientAddress(request, context), let wait = addresses.take(address) {
            throw Problem(.rateLimited, "this address sent more than \(Self.rate(limits.addressRate, limits.addressBurst)) without a token; try again in \(wait) s",
                          retryAfter: wait)
        }
        if let query = request.uri.query {
            guard query.utf8.count <= limits.maxQueryBytes else {
                throw Problem(.queryTooLong, "the query string has \(query.utf8.count) bytes; at most \(limits.maxQueryBytes) are accepted")
            }
            if query.contains("filter="), let filter = try? QueryParameters(query)["filter"], filter.utf8.count > limits.maxFilterBytes {
                throw Problem.invalid("filter", "has \(filter.utf8.count) bytes; at most \(limits.maxFilterBytes) are accepted")
            }
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limits.maxBodyBytes {
            throw Problem(.bodyTooLarge, "the body has \(length) bytes; at most \(limits.maxBodyBytes) are accepted")
        }
        var context = context
        context.maxUploadSize = limits.maxBodyBytes
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
