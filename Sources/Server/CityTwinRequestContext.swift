import Hummingbird
import TwinStore

/// The per-request context: Hummingbird's core storage plus the `Caller` the request acts as
/// (set by `CallerMiddleware` from the `Authorization` header; anonymous by default).
public struct CityTwinRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is asking; the store applies sharing classes and masking for this caller.
    public var caller: Caller = .anonymous

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }
}
