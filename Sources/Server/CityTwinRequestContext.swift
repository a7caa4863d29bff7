import Hummingbird
import NIOCore
import TwinStore

/// The per-request context: Hummingbird's core storage plus the `Caller` the request acts as
/// (set by `CallerMiddleware` from the `Authorization` header; anonymous by default).
public struct CityTwinRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is asking; the store applies sharing classes and masking for this caller.
    public var caller: Caller = .anonymous
    /// The connection's peer (the load balancer's address behind one).
    public let remoteAddress: SocketAddress?
    /// The largest request body accepted, in bytes (`RequestLimits.maxBodyBytes`, set by `RequestLimitMiddleware`).
    public var maxUploadSize: Int = RequestLimits().maxBodyBytes

    public init(source: Source) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
