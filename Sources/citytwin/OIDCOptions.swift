import ArgumentParser
import Foundation
import Server

/// `citytwin serve`'s OpenID Connect options: tokens of an external provider accepted beside
/// CityTwin's own (docs/security.md, "Identity"). Each option has an environment variable,
/// used when the option is not given (`CITYTWIN_OIDC_ISSUER`, …), so a deployment can keep the
/// provider's settings beside `CITYTWIN_TOKEN_SECRET`.
struct OIDCOptions: ParsableArguments {
    @Option(help: "The OpenID Connect provider's issuer URL (its tokens' iss); discovery at <issuer>/.well-known/openid-configuration. Env: CITYTWIN_OIDC_ISSUER.")
    var oidcIssuer: String?

    @Option(help: "The audience (client id) the provider's tokens must name in aud. Env: CITYTWIN_OIDC_AUDIENCE.")
    var oidcAudience: String?

    @Option(help: "The claim naming the caller's department, as layer definitions name owners (a dotted path reaches into objects). Env: CITYTWIN_OIDC_DEPARTMENT_CLAIM. Default: department.")
    var oidcDepartmentClaim: String?

    @Option(help: "The claim naming the role: viewer, editor or admin (a string, or an array such as realm_access.roles). Env: CITYTWIN_OIDC_ROLE_CLAIM. Default: role.")
    var oidcRoleClaim: String?

    @Option(help: "The provider's JWKS URL, instead of the discovery document's jwks_uri. Env: CITYTWIN_OIDC_JWKS.")
    var oidcJwks: String?

    /// The provider's configuration, `nil` when no issuer is given.
    /// - Throws: `ValidationError` for an issuer without an audience (or the reverse) or a URL that is not http(s).
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OIDCConfiguration? {
        func value(_ option: String?, _ variable: String) -> String? {
            (option ?? environment[variable]).flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        let issuer = value(oidcIssuer, "CITYTWIN_OIDC_ISSUER")
        let audience = value(oidcAudience, "CITYTWIN_OIDC_AUDIENCE")
        let jwks = value(oidcJwks, "CITYTWIN_OIDC_JWKS")
        guard let issuer else {
            if audience != nil || jwks != nil { throw ValidationError("--oidc-audience and --oidc-jwks need --oidc-issuer (or CITYTWIN_OIDC_ISSUER)") }
            return nil
        }
        guard let audience else { throw ValidationError("--oidc-issuer needs --oidc-audience (or CITYTWIN_OIDC_AUDIENCE): the client id its tokens must be for") }
        for (name, url) in [("--oidc-issuer", issuer), ("--oidc-jwks", jwks)] {
            guard let url else { continue }
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw ValidationError("\(name) must be an http(s) URL, got '\(url)'")
            }
        }
        return OIDCConfiguration(issuer: issuer, audience: audience,
                                 departmentClaim: value(oidcDepartmentClaim, "CITYTWIN_OIDC_DEPARTMENT_CLAIM") ?? "department",
                                 roleClaim: value(oidcRoleClaim, "CITYTWIN_OIDC_ROLE_CLAIM") ?? "role",
                                 jwksURL: jwks)
    }
}
