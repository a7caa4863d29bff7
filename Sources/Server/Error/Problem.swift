import Foundation
import GeoCore
import Hummingbird

/// An RFC 9457 problem detail: the only error body the server writes
/// (`application/problem+json`). `type` is a stable URI under `https://citytwin.dev/problems/`
/// so clients can branch on it; `detail` names the offending parameter or field and the reason.
public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable problem kinds and their HTTP status.
    public struct Kind: Hashable, Sendable {
        /// The last path segment of the `type` URI, e.g. `invalid-parameter`.
        public var slug: String
        public var title: String
        public var status: HTTPResponse.Status
        /// The `type` URI a standard defines for this problem (OGC API Processes exceptions such
        /// as `no-such-job`); `nil` uses `https://citytwin.dev/problems/<slug>`.
        public var standardType: String? = nil

        public var typeURI: String { standardType ?? "https://citytwin.dev/problems/\(slug)" }

        /// A query parameter has a malformed or out-of-range value.
        public static let invalidParameter = Kind(slug: "invalid-parameter", title: "Invalid parameter", status: .badRequest)
        /// A query parameter that the operation does not declare.
        public static let unknownParameter = Kind(slug: "unknown-parameter", title: "Unknown parameter", status: .badRequest)
        /// A CRS identifier the server cannot use (`crs`, `bbox-crs`).
        public static let invalidCRS = Kind(slug: "invalid-crs", title: "Unsupported coordinate reference system", status: .badRequest)
        /// A geometry in the request is malformed.
        public static let invalidGeometry = Kind(slug: "invalid-geometry", title: "Invalid geometry", status: .badRequest)
        /// A feature in a request body breaks the layer schema.
        public static let invalidFeature = Kind(slug: "invalid-feature", title: "Invalid feature", status: .badRequest)
        /// The path names no resource (unknown route, method or route parameter).
        public static let notFound = Kind(slug: "not-found", title: "Not found", status: .notFound)
        /// The collection does not exist or the caller may not know that it exists.
        public static let collectionNotFound = Kind(slug: "collection-not-found", title: "Collection not found", status: .notFound)
        /// The feature does not exist in the collection.
        public static let featureNotFound = Kind(slug: "feature-not-found", title: "Feature not found", status: .notFound)
        /// The request needs credentials and has none (a write without a bearer token).
        public static let unauthorized = Kind(slug: "unauthorized", title: "Unauthorized", status: .unauthorized)
        /// The bearer token is malformed, badly signed or expired (RFC 6750 `invalid_token`).
        public static let invalidToken = Kind(slug: "invalid-token", title: "Invalid token", status: .unauthorized)
        /// A `filter` (CQL2) cannot be parsed or names something the collection cannot be filtered on.
        public static let invalidFilter = Kind(slug: "invalid-filter", title: "Invalid filter", status: .badRequest)
        /// A request body is malformed: not JSON, not a GeoJSON feature, or a bad member.
        public static let invalidBody = Kind(slug: "invalid-body", title: "Invalid request body", status: .badRequest)
        /// The request body is not in a media type the operation accepts.
        public static let unsupportedMediaType = Kind(slug: "unsupported-media-type", title: "Unsupported media type",
                                                      status: .unsupportedMediaType)
        /// The request body is larger than the server accepts.
        public static let bodyTooLarge = Kind(slug: "body-too-large", title: "Request body too large", status: .contentTooLarge)
        /// The query string (or the whole request target) is longer than the server accepts (`RequestLimits.maxQueryBytes`).
        public static let queryTooLong = Kind(slug: "query-too-long", title: "Query string too long", status: .uriTooLong)
        /// The request's header fields are larger than the server accepts (`RequestLimits.maxHeaderBytes`).
        public static let headersTooLarge = Kind(slug: "headers-too-large", title: "Request header fields too large",
                                                 status: .requestHeaderFieldsTooLarge)
        /// The request is not HTTP/1.1 the server can read (a character not allowed in a URL, a broken header line).
        public static let malformedRequest = Kind(slug: "malformed-request", title: "Malformed request", status: .badRequest)
        /// The caller sent more requests than its rate allows (`RequestLimits`); `Retry-After` says when to try again.
        public static let rateLimited = Kind(slug: "rate-limited", title: "Too many requests", status: .tooManyRequests)
        /// The caller's request bodies in memory at once would pass its address's budget (`BodyBudget`):
        /// `Retry-After` says when to send it again.
        public static let bodyBudget = Kind(slug: "body-budget", title: "Too many request bodies at once", status: .tooManyRequests)
        /// The caller has as many event streams open as it may (`LiveStreams`): `Retry-After` says when to try again.
        public static let tooManyStreams = Kind(slug: "too-many-streams", title: "Too many event streams", status: .tooManyRequests)
        /// The server is at one of its overall bounds (event streams, request bodies in memory, SUMO runs
        /// waiting): nothing was done, `Retry-After` says when to try again.
        public static let serverBusy = Kind(slug: "server-busy", title: "Server busy", status: .serviceUnavailable)
        /// A token that opened an event stream is no longer valid (revoked, expired, its secret rotated):
        /// the stream's last event before it ends (`LiveStreams`).
        public static let tokenNoLongerValid = Kind(slug: "token-no-longer-valid", title: "Token no longer valid", status: .unauthorized)
        /// `If-Match` does not match the current entity tag, or names a resource that does not exist.
        public static let preconditionFailed = Kind(slug: "precondition-failed", title: "Precondition failed",
                                                    status: .preconditionFailed)
        /// The caller may not do this.
        public static let forbidden = Kind(slug: "forbidden", title: "Forbidden", status: .forbidden)
        /// The resource already exists.
        public static let conflict = Kind(slug: "conflict", title: "Conflict", status: .conflict)
        /// The store cannot be reached.
        public static let storeUnavailable = Kind(slug: "store-unavailable", title: "Store unavailable", status: .serviceUnavailable)
        /// Too many writes are waiting (`RequestLimits.sensingWriteQueue`); nothing was written, `Retry-After` says when to try again.
        public static let writeQueueFull = Kind(slug: "write-queue-full", title: "Write queue full", status: .serviceUnavailable)
        /// A fault of the server (never the caller's input); details go to the log only.
        public static let internalError = Kind(slug: "internal-error", title: "Internal server error", status: .internalServerError)
    }

    public var kind: Kind
    /// What went wrong, naming the parameter or field and the reason.
    public var detail: String
    /// The parameter or field at fault (also an extension member `parameter` in the body).
    public var parameter: String?
    /// Where in the parameter or body the fault is: `offset 27` in a cql2-text filter, a JSON
    /// path such as `$.properties.capacity` in a body (also an extension member `position`).
    public var position: String?
    /// Seconds after which the same request may succeed (the `Retry-After` header), for a
    /// problem that passes by itself, such as an unreachable store.
    public var retryAfter: Int?

    public init(_ kind: Kind, _ detail: String, parameter: String? = nil, position: String? = nil, retryAfter: Int? = nil) {
        self.kind = kind
        self.detail = detail
        self.parameter = parameter
        self.position = position
        self.retryAfter = retryAfter
    }

    /// The `Retry-After` of a 503 for an unreachable store, in seconds: about the time a
    /// restarted PostgreSQL takes to accept connections again.
    public static let storeRetrySeconds = 5

    /// `invalid-parameter` naming `name`: "parameter 'limit': must be an integer ≥ 1".
    public static func invalid(_ name: String, _ reason: String) -> Problem {
        Problem(.invalidParameter, "parameter '\(name)': \(reason)", parameter: name)
    }

    public var description: String { "\(kind.slug) (\(kind.status.code)): \(detail)" }

    /// The problem document; `instance` is the request path (none when it could not be read).
    func document(instance: String) -> JSONValue {
        var o: [String: JSONValue] = [
            "type": .string(kind.typeURI),
            "title": .string(kind.title),
            "status": .integer(Int64(kind.status.code)),
            "detail": .string(detail),
        ]
        if !instance.isEmpty { o["instance"] = .string(instance) }
        if let parameter { o["parameter"] = .string(parameter) }
        if let position { o["position"] = .string(position) }
        return .object(o)
    }
}
