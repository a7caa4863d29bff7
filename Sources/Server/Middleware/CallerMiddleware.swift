import Foundation
import Hummingbird
import TwinStore

/// Sets `context.caller` from `Authorization: Bearer <token>`. Without a header, or when the
/// server has no `BearerTokenVerifier`, the caller is anonymous; a verifier that rejects the
/// token answers 401 through the problem mapping, and so does a token on the store's
/// revocation list. A department an OpenID provider names must be one of the store's
/// (`DepartmentDirectory`), else 403: such a token could read and write nothing.
///
/// Runs before `RequestLimitMiddleware`, which counts a request by the verified identity
/// (`context.token`) and one whose token was refused by its address: the refusal is kept in
/// `context.tokenRefusal` and thrown there, after the request has been counted, so a flood of bad
/// tokens is bounded like any other.
struct CallerMiddleware: RouterMiddleware {
    let verifier: (any BearerTokenVerifier)?
    var revocations: RevocationList? = nil
    var departments: DepartmentDirectory? = nil

    func handle(_ request: Request, context: CityTwinRequestContext,
                next: (Request, CityTwinRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.caller = .anonymous
        context.token = nil
        if let header = request.headers[.authorization] {
            do {
                if let held = try await held(Self.token(header)) {
                    context.caller = held.verified.caller
                    context.token = held
                }
            } catch {
                context.tokenRefusal = error
            }
        }
        return try await next(request, context)
    }

    /// The token verified (`verified`) and kept for a stream to check again (`TokenLife`).
    func held(_ token: String) async throws -> HeldToken? {
        let epoch = verifier?.keyEpoch
        guard let verified = try await verified(token) else { return nil }
        return HeldToken(text: token, verified: verified, epoch: epoch)
    }

    /// The token checked as every protocol checks it (HTTP here, MQTT's CONNECT and each delivery):
    /// signature and times, the revocation list, and a department an identity provider names known
    /// to the store; `nil` when the server verifies no tokens (every caller anonymous).
    /// - Throws: `Problem` `.invalidToken` (401) for a bad or revoked token, `.forbidden` (403) for an
    ///   unknown department.
    func verified(_ token: String) async throws -> VerifiedToken? {
        guard let verifier else { return nil }
        let verified = try await verifier.verifiedToken(token)
        if let revocations, try await revocations.isRevoked(key: verified.revocationKey) {
            throw Problem(.invalidToken, "the token was revoked (citytwin token revoke)")
        }
        if verified.departmentNeedsCheck, let departments, let name = verified.caller.departmentName,
           try await !departments.knows(name) {
            throw Problem(.forbidden, "the token names department '\(name)', which owns and may see no layer of this store; "
                          + "its identity provider must name a department as layer definitions name owners")
        }
        return verified
    }

    /// The token of `Bearer <token>`, or the password of `Basic base64(user:token)`: what
    /// SensorThings clients such as FROST's send (the user name is not used).
    static func token(_ header: String) throws -> String {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { throw Problem(.invalidToken, "the Authorization header must be 'Bearer <token>' or 'Basic <user:token>'") }
        let value = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "bearer":
            return value
        case "basic":
            guard let data = Data(base64Encoded: value), let text = String(data: data, encoding: .utf8),
                  let colon = text.firstIndex(of: ":") else {
                throw Problem(.invalidToken, "the Basic credentials must be base64 of user:token")
            }
            return String(text[text.index(after: colon)...])
        default:
            throw Problem(.invalidToken, "the Authorization header must be 'Bearer <token>' or 'Basic <user:token>'")
        }
    }
}
