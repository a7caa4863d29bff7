import Hummingbird

/// Cache headers by who asks, decided once for every response (`Representation.response`), so
/// no route can forget them.
///
/// What a request answers depends on its bearer token: sharing classes hide layers, masks
/// blank attributes, and a department sees its own layers in clear. A shared cache (nginx, a
/// CDN, a city proxy) must never hand a department's answer to someone else, nor keep serving
/// the anonymous answer after sign-in. So:
/// - every response varies on `Authorization` (besides `Accept`, `Accept-Encoding`): caches key
///   anonymous and signed-in answers apart;
/// - a response to a request that carries `Authorization` is `private` (browser cache only),
///   keeping the route's `max-age`; routes say `public` only for what the public may see.
enum CallerCaching {
    /// The request headers a response varies on.
    static let vary = "Accept, Accept-Encoding, Authorization"
    /// The headers an HTML page varies on: also `Accept-Language` (`PageLanguage`).
    static let pageVary = vary + ", Accept-Language"

    /// Sets `Vary` and, for a request with credentials, makes `Cache-Control` private.
    static func apply(to headers: inout HTTPFields, for request: Request, page: Bool = false) {
        headers[.vary] = page ? pageVary : vary
        guard request.headers[.authorization] != nil else { return }
        headers[.cacheControl] = privateControl(headers[.cacheControl])
    }

    /// `Cache-Control` for an answer to one caller: `private`, with the route's own directives
    /// except `public` and `s-maxage` (both speak to shared caches).
    static func privateControl(_ control: String?) -> String {
        let kept = (control ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { directive in
            let name = directive.split(separator: "=").first.map { $0.lowercased() } ?? ""
            return !name.isEmpty && name != "public" && name != "private" && name != "s-maxage"
        }
        return (["private"] + kept).joined(separator: ", ")
    }
}
