import ArgumentParser
import CityModel
import Foundation
import GeoCore
import TwinStore

/// `citytwin token`: bearer tokens for the write API.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Issue bearer tokens that let a department write to the layers it owns, and revoke them.",
        subcommands: [TokenCreateCommand.self, TokenRevokeCommand.self, TokenRotateSecretCommand.self])
}

/// `citytwin token revoke TOKEN`: puts a token on the store's revocation list; every server on
/// the store refuses it within `RevocationList.refreshInterval` (2 s), though its signature and
/// expiry are good. CityTwin's own tokens (JWTs, and the earlier `ct1.` ones) must verify with this
/// store's secret and not have expired; they are listed by their `jti` (a `ct1.` token by its
/// text). A token of another issuer (an OpenID Connect provider's) is listed by its issuer and
/// `jti`, or by issuer, `sub` and `iat` when it has no `jti` (RevocationKey); its signature is not
/// checked here (listing a token only ever refuses it), its `exp` must be in the future.
struct TokenRevokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a bearer token (CityTwin's own, or an OpenID Connect provider's JWT): every server on the store refuses it from then on.")

    @Argument(help: "The token, as token create printed it (or as the OpenID provider issued it).")
    var token: String

    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        let location = try StoreLocation(storeOption.path)
        let entry: (key: String, expiresAt: Int64, description: String)
        do {
            entry = try await Self.entry(for: token, location: location)
        } catch let e as StoreError {
            throw CommandFailure(presenting: e, in: "not revoked")
        }
        guard let store = try await location.openExisting() as? any TokenRevocations else {
            throw CommandFailure("the store at \(storeOption.path) keeps no revocation list")
        }
        try await store.revokeToken(digest: entry.key, expiresAt: entry.expiresAt)
        let expiry = RFC3339.formatSeconds(Date(timeIntervalSince1970: TimeInterval(entry.expiresAt)))
        print("revoked \(entry.description) (it would have expired \(expiry))")
    }

    /// The token's revocation key, expiry and a description of whose it is.
    static func entry(for token: String, location: StoreLocation) async throws -> (key: String, expiresAt: Int64, description: String) {
        if !token.hasPrefix(TokenAuthority.legacyPrefix + "."),
           let jwt = try? UnverifiedJWT(token), let issuer = jwt.issuer, issuer != TokenAuthority.issuer {
            return try external(jwt, issuer: issuer)
        }
        let claims = try await location.tokenAuthority().verify(token)
        return (claims.revocationKey(token: token), claims.expiresAt,
                "the \(claims.role.rawValue) token of \(claims.department.isEmpty ? "the platform" : claims.department)"
                + (claims.subject.map { " for \($0)" } ?? ""))
    }

    /// An OpenID provider's token: named by issuer and `jti`, else issuer, `sub` and `iat`.
    static func external(_ jwt: UnverifiedJWT, issuer: String) throws -> (key: String, expiresAt: Int64, description: String) {
        func reject(_ why: String) -> StoreError { StoreError(.invalidToken, why, field: "token") }
        guard let exp = jwt.claims["exp"]?.integerValue else { throw reject("the token of \(issuer) has no exp claim") }
        guard Double(exp) > TwinClock.current.now.timeIntervalSince1970 else {
            throw reject("the token of \(issuer) has expired already; every server refuses it")
        }
        let subject = jwt.claims["sub"]?.stringValue
        let description = "the token of \(issuer)" + (subject.map { " for \($0)" } ?? "")
        if let id = jwt.claims["jti"]?.stringValue, !id.isEmpty {
            return (RevocationKey.jwt(issuer: issuer, id: id), exp, description + " (jti \(id))")
        }
        guard let subject, let iat = jwt.claims["iat"]?.integerValue else {
            throw reject("the token of \(issuer) has neither a jti nor sub and iat claims: nothing names it on the revocation list")
        }
        return (RevocationKey.jwt(issuer: issuer, subject: subject, issuedAt: iat), exp, description + " issued at \(iat)")
    }
}

/// `citytwin token rotate-secret`: replaces the store's signing secret with a new random one.
/// Every token signed before is refused (401) from then on, by every server on the store within
/// a second or two, without a restart; departments need new tokens (`token create`). For a secret
/// in `CITYTWIN_TOKEN_SECRET` (a PostGIS store) it says to change the variable and restart.
struct TokenRotateSecretCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-secret",
        abstract: "Replace the token-signing secret: every token issued before stops working (401); issue new ones with token create.")

    @OptionGroup var storeOption: StoreOption

    func run() throws {
        let location = try StoreLocation(storeOption.path)
        guard case .spatiaLite(let path) = location else {
            throw CommandFailure("a PostGIS store's secret is \(TokenAuthority.secretVariable): set a new value (at least "
                                 + "\(TokenAuthority.minimumSecretLength) bytes) for every server and worker and restart them")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("no store at \(path) (build one with `citytwin district build` or give --store)")
        }
        try TokenAuthority.rotateSecret(storePath: path)
        print("rotated the token secret of \(path): every token issued before is refused from now on "
              + "(servers on this store within \(ReloadingTokenAuthority.recheckInterval)); issue new ones with `citytwin token create`")
    }
}

/// `citytwin token create --department 应急管理局 --role editor [--expires 30d] [--subject 王工]`:
/// prints one signed token. The secret is `CITYTWIN_TOKEN_SECRET`, else the file beside the
/// store (`<store>.token-secret`, created with mode 0600 on first use), the same one
/// `citytwin serve` verifies with.
struct TokenCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Print a signed bearer token for a department (editor or viewer) or the platform admin.",
        discussion: "The secret beside a SpatiaLite --store signs it; a postgresql:// store needs CITYTWIN_TOKEN_SECRET.")

    @Option(help: "The department the token acts for, as layer definitions name owners (e.g. 应急管理局).")
    var department: String?

    @Option(help: "viewer (reads what is shared with the department), editor (also writes its layers) or admin (the platform administrator).")
    var role: String = "editor"

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    @Option(help: "Lifetime: a number with unit s, m, h or d (e.g. 12h, 30d; at most 366d).")
    var expires: String = "30d"

    @Option(help: "Who the token is for; recorded as the author of versions and the actor of audit entries.")
    var subject: String?

    func validate() throws {
        guard TokenClaims.Role(rawValue: role) != nil else {
            throw ValidationError("--role must be one of \(TokenClaims.Role.allCases.map(\.rawValue).joined(separator: ", ")), got '\(role)'")
        }
        if role != TokenClaims.Role.admin.rawValue {
            guard let department, !department.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--department is required for the \(role) role")
            }
        }
        _ = try Self.lifetime(expires)
    }

    func run() async throws {
        let location = try StoreLocation(store)
        if let department, role != TokenClaims.Role.admin.rawValue {
            let known = try await KnownDepartments.of(location.openExisting())
            guard known.contains(department) else {
                throw CommandFailure("no department '\(department)' in the store at \(store): a token for it could read and write nothing. "
                                     + "The departments that own or may see layers: \(known.sorted().joined(separator: ", "))")
            }
        }
        let authority = try location.tokenAuthority()
        let claims = TokenClaims(department: department ?? "", role: TokenClaims.Role(rawValue: role) ?? .viewer,
                                 subject: subject, lifetime: try Self.lifetime(expires))
        print(try await authority.sign(claims))
    }

    /// `30d` → 2,592,000 s. Units: s, m, h, d; 1 s … 366 d.
    static func lifetime(_ text: String) throws -> TimeInterval {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last, let scale = units[unit], let n = Int(text.dropLast()), n > 0 else {
            throw ValidationError("--expires must be a positive whole number with unit s, m, h or d (e.g. 30d), got '\(text)'")
        }
        let seconds = TimeInterval(n) * scale
        guard seconds <= 366 * 86_400 else { throw ValidationError("--expires is at most 366d, got '\(text)'") }
        return seconds
    }
}
