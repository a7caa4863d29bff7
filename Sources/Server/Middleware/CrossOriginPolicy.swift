import HTTPTypes
import Hummingbird
import NIOCore

/// Which other web origins' pages may call the API from a browser (CORS). Reads are open to
/// `origins` (default every origin: the layers a caller may read are public data or need its
/// token anyway); writes (POST, PUT, PATCH, DELETE) are not offered cross-origin unless
/// `allowsWrites`, so a page elsewhere cannot edit the city's layers through a user's browser
/// even when it holds a token. `origins` empty: no CORS headers at all.
public struct CrossOriginPolicy: Sendable, Hashable {
    /// Allowed origins (`https://map.example.gov.cn`), or `["*"]` for every origin.
    public var origins: [String]
    public var allowsWrites: Bool

    public init(origins: [String] = ["*"], allowsWrites: Bool = false) {
        self.origins = origins
        self.allowsWrites = allowsWrites
    }

    /// No cross-origin access.
    public static let closed = CrossOriginPolicy(origins: [])

    var methods: [HTTPRequest.Method] {
        [.get, .head, .options] + (allowsWrites ? [.post, .put, .patch, .delete] : [])
    }
}

/// Applies a `CrossOriginPolicy` through Hummingbird's `CORSMiddleware`; a request from an
/// origin outside the list bypasses it and gets no CORS headers.
struct CrossOriginMiddleware: RouterMiddleware {
    let policy: CrossOriginPolicy
    let cors: CORSMiddleware<CityTwinRequestContext>

    init(policy: CrossOriginPolicy) {
        self.policy = policy
        cors = CORSMiddleware(allowOrigin: policy.origins == ["*"] ? .all : .originBased,
                              allowHeaders: [.accept, .authorization, .contentType, .ifMatch, .ifNoneMatch, .init("Prefer")!],
                              allowMethods: policy.methods,
                              exposedHeaders: ["ETag", "Location", "Retry-After", "Preference-Applied", "Link"],
                              maxAge: .seconds(3600))
    }

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], !policy.origins.isEmpty else {
            return try await next(request, context)
        }
        if policy.origins == ["*"] || policy.origins.contains(origin) {
            return try await cors.handle(request, context: context, next: next)
        }
        return try await next(request, context)  // another origin: no CORS headers, so its page cannot read the answer
    }
}
