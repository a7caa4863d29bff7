import Hummingbird
import NIOCore
import TwinStore

/// The per-request context: Hummingbird's core storage plus the `Caller` the request acts as
/// (set by `CallerMiddleware` from the `Authorization` header; anonymous by default).
public struct CityTwinRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is asking; the store applies sharing classes and masking for this caller.
    public var caller: Caller = .anonymous
    /// The request's token as verified (`CallerMiddleware`): its identity is what the limits count
    /// (`RequestLimitMiddleware`), and a stream checks it again as long as it lasts (`TokenLife`).
    var token: HeldToken?
    /// Why the request's token was refused (401, 403), thrown once the request has been counted
    /// against its address (`RequestLimitMiddleware`).
    var tokenRefusal: (any Error)?
    /// The client's address as the limits name it (`RequestLimitMiddleware.clientAddress`), `nil`
    /// for a request that came through no socket.
    var clientAddress: String?
    /// The request body's share of its caller's in-flight budget (`BodyBudget`), set by
    /// `RequestLimitMiddleware`; `nil`: no budget (an in-process request).
    var bodyAllowance: BodyBudget.Allowance?
    /// The connection's peer (the load balancer's address behind one).
    public let remoteAddress: SocketAddress?
    /// The largest request body accepted, in bytes (`RequestLimits.maxBodyBytes`, set by `RequestLimitMiddleware`).
    public var maxUploadSize: Int = RequestLimits().maxBodyBytes

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
