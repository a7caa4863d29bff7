import Foundation
import GeoCore
import Synchronization
import TwinStore

/// A verified token a long-lived exchange holds (a Server-Sent Events stream, an MQTT session):
/// its text, kept in memory only to verify it again, never logged or written; what it verified as;
/// and the key epoch it was last verified under (`BearerTokenVerifier.keyEpoch`).
final class HeldToken: Sendable {
    let text: String
    let verified: VerifiedToken
    private let epoch: Mutex<Int?>

    /// - Parameter epoch: the verifier's key epoch read before the token was verified.
    init(text: String, verified: VerifiedToken, epoch: Int?) {
        self.text = text
        self.verified = verified
        self.epoch = Mutex(epoch)
    }

    /// The epoch the token was last verified under; `nil` before the first check.
    fileprivate var checkedEpoch: Int? {
        get { epoch.withLock { $0 } }
        set { epoch.withLock { $0 = newValue } }
    }
}

/// A token checked for the life of a stream (issue 78 §6): what was verified when a Server-Sent
/// Events stream or an MQTT session began is checked again for as long as it lasts, so a token
/// revoked (`citytwin token revoke`), expired, or signed with a secret since rotated (`citytwin
/// token rotate-secret`) stops what it opened, not only the requests that come after. The one
/// check every kind of stream runs, about once a second (`checkInterval`): `LiveStreams` for
/// the HTTP streams, the MQTT broker's sweep (`SensorThingsMQTT`) for its sessions and each
/// delivery and publish.
///
/// A check is cheap: the expiry against the clock, the key on the revocation list the server
/// already keeps (read again every `RevocationList.refreshInterval`), and the verifier's key epoch;
/// only when that epoch changed (the secret file was replaced) is the token verified again whole.
struct TokenLife: Sendable {
    /// How often a stream's token is checked, at most this long after it became invalid (plus the
    /// revocation list's refresh, 2 s, or the secret file's recheck, 1 s).
    static let checkInterval: Duration = .seconds(1)

    /// The checks of a request's token (signature, times, revocation list, department).
    let callers: CallerMiddleware

    /// Why `token` may no longer be used, in words for the client and the log (never the token
    /// itself); `nil` while it is good.
    func reasonToEnd(_ token: HeldToken) async -> String? {
        if let end = token.verified.refusedFrom, TwinClock.current.now.timeIntervalSince1970 >= end {
            return "the token expired at \(RFC3339.formatSeconds(Date(timeIntervalSince1970: end)))"
        }
        guard let verifier = callers.verifier else { return nil }
        let epoch = verifier.keyEpoch
        if token.checkedEpoch != epoch {
            // The keys changed (or this is the first check): the token verified again whole, as a
            // new request's would be.
            do {
                _ = try await callers.verified(token.text)
            } catch let problem as Problem {
                return Self.reason(problem.detail)
            } catch {
                return "the token can no longer be verified"
            }
            token.checkedEpoch = epoch
            return nil
        }
        if let revocations = callers.revocations {
            do {
                if try await revocations.isRevoked(key: token.verified.revocationKey) {
                    return "the token was revoked (citytwin token revoke)"
                }
            } catch {
                // The list could not be read now (a store outage): the last read stands, checked again next time.
                return nil
            }
        }
        return nil
    }

    /// A refusal's detail as the reason a stream ended: a signature that no longer matches is
    /// most likely a rotated secret, and says so.
    private static func reason(_ detail: String) -> String {
        if detail.contains("signature does not match") {
            return detail + "; the token secret may have been rotated (citytwin token rotate-secret)"
        }
        return detail
    }
}
