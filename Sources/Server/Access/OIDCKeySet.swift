import AsyncHTTPClient
import Foundation
import GeoCore
import NIOCore
import JWTKit
import TwinStore

/// An OpenID provider's signing keys as the server holds them: the JWKS found through the
/// discovery document (`<issuer>/.well-known/openid-configuration` → `jwks_uri`, unless a JWKS URL
/// is configured), kept for the answer's `Cache-Control: max-age` or `keyLifetime`, and fetched
/// again when that lapses or a token names a `kid` the set lacks, but never more often than
/// `refetchInterval` (a stream of forged `kid`s cannot make the server hammer the provider).
/// Concurrent requests share one fetch. When a fetch fails, the keys fetched before stay in use;
/// with none at all the request answers 503 `identity-provider-unavailable`.
actor OIDCKeySet {
    /// The usable keys of one fetch.
    struct Keys: Sendable {
        /// The keys, each under its `kid`, its algorithm fixed (`alg` set from its type).
        let collection: JWTKeyCollection
        /// Each key's algorithm (RS256 or ES256) by `kid`.
        let algorithms: [String: String]
        /// When the set lapses.
        let expires: ContinuousClock.Instant
    }

    /// Seconds an HTTP request to the provider may take.
    static let requestTimeout: TimeInterval = 10
    /// The largest discovery document or key set read (a key set of a few keys is a few kilobytes).
    static let maximumDocumentBytes = 1 << 20

    private let configuration: OIDCConfiguration
    private var current: Keys?
    private var lastFetch: ContinuousClock.Instant?
    private var fetching: Task<Keys, any Error>?

    init(_ configuration: OIDCConfiguration) {
        self.configuration = configuration
    }

    /// The keys to verify a token naming `kid` with: the cached set while it lasts and knows
    /// `kid`, else a fresh one when the last fetch is at least `refetchInterval` old.
    func keySet(naming kid: String) async throws -> Keys {
        let now = ContinuousClock.now
        if let current, current.expires > now, current.algorithms[kid] != nil { return current }
        let mayFetch = lastFetch.map { now - $0 >= .seconds(configuration.refetchInterval) } ?? true
        guard mayFetch || fetching != nil else {
            if let current { return current }
            throw Problem(.identityProviderUnavailable, "the signing keys of \(configuration.issuer) could not be fetched; trying again shortly",
                          retryAfter: retryAfter)
        }
        let task: Task<Keys, any Error>
        if let fetching {
            task = fetching
        } else {
            lastFetch = now
            let configuration = configuration
            task = Task { try await Self.fetch(configuration) }
            fetching = task
        }
        do {
            let keys = try await task.value
            if fetching == task { fetching = nil }
            current = keys
            return keys
        } catch {
            if fetching == task { fetching = nil }
            if let current { return current }
            throw Problem(.identityProviderUnavailable, "the signing keys of \(configuration.issuer) could not be fetched: \(error)",
                          retryAfter: retryAfter)
        }
    }

    /// When a request refused for want of keys may try again: after the next fetch may start.
    private var retryAfter: Int { max(1, Int(configuration.refetchInterval.rounded(.up))) }

    /// Discovery (unless the JWKS URL is configured), then the JWKS.
    static func fetch(_ configuration: OIDCConfiguration) async throws -> Keys {
        let jwksURL: String
        if let configured = configuration.jwksURL {
            jwksURL = configured
        } else {
            let base = configuration.issuer.hasSuffix("/") ? String(configuration.issuer.dropLast()) : configuration.issuer
            let (document, _) = try await get(base + "/.well-known/openid-configuration")
            // OpenID Connect Discovery 1.0 §4.3: the document's issuer must be the one configured.
            guard document["issuer"]?.stringValue == configuration.issuer else {
                throw OIDCFetchError("the discovery document names issuer '\(document["issuer"]?.stringValue ?? "")', not '\(configuration.issuer)'")
            }
            guard let uri = document["jwks_uri"]?.stringValue else { throw OIDCFetchError("the discovery document has no jwks_uri") }
            jwksURL = uri
        }
        let (jwks, maxAge) = try await get(jwksURL)
        let collection = JWTKeyCollection()
        var algorithms: [String: String] = [:]
        for key in jwks["keys"]?.arrayValue ?? [] {
            guard var object = key.objectValue, let kid = object["kid"]?.stringValue, !kid.isEmpty,
                  object["use"].map({ $0.stringValue == "sig" }) ?? true,
                  let algorithm = Self.algorithm(of: object) else { continue }
            object["alg"] = .string(algorithm)  // fixes the key's algorithm: a token cannot choose another
            guard let data = try? JSONEncoder().encode(JSONValue.object(object)),
                  let jwk = try? JSONDecoder().decode(JWK.self, from: data),
                  (try? await collection.add(jwk: jwk)) != nil else { continue }
            algorithms[kid] = algorithm
        }
        guard !algorithms.isEmpty else { throw OIDCFetchError("the key set at \(jwksURL) has no RS256 or ES256 signing key with a kid") }
        let lifetime = min(max(maxAge ?? configuration.keyLifetime, 60), 86_400)
        return Keys(collection: collection, algorithms: algorithms, expires: .now + .seconds(lifetime))
    }

    /// RS256 for an RSA key, ES256 for a P-256 key, when the key's own `alg` (if any) agrees; else nil.
    static func algorithm(of key: [String: JSONValue]) -> String? {
        let algorithm: String
        switch key["kty"]?.stringValue {
        case "RSA": algorithm = "RS256"
        case "EC" where key["crv"]?.stringValue == "P-256": algorithm = "ES256"
        default: return nil
        }
        if let declared = key["alg"]?.stringValue, declared != algorithm { return nil }
        return algorithm
    }

    /// A JSON object over HTTP(S), with the answer's `Cache-Control: max-age` in seconds.
    static func get(_ url: String) async throws -> (JSONValue, TimeInterval?) {
        guard let address = URL(string: url), ["http", "https"].contains(address.scheme?.lowercased() ?? "") else {
            throw OIDCFetchError("'\(url)' is not an http(s) URL")
        }
        // AsyncHTTPClient on NIO, with a deadline for the whole exchange: a provider that stops
        // answering fails the fetch (and the tokens waiting on it get 503) instead of holding them.
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(requestTimeout.rounded(.up))))
        guard response.status == .ok else {
            throw OIDCFetchError("\(url) answered \(response.status.code)")
        }
        let body = try await response.body.collect(upTo: maximumDocumentBytes)
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView)), value.objectValue != nil else {
            throw OIDCFetchError("\(url) did not answer a JSON object")
        }
        let maxAge = response.headers.first(name: "cache-control")?.split(separator: ",").lazy
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("max-age=") }
            .flatMap { TimeInterval($0.dropFirst("max-age=".count)) }
        return (value, maxAge)
    }
}

/// Why the provider's keys could not be fetched.
struct OIDCFetchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
