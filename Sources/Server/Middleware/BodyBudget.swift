import Synchronization

/// The request bodies a server holds in memory at once (issue 78 §17): every route reads its body
/// whole (a feature, a process's inputs, an aggregate query, a CSV table to geocode: there is no
/// bulk import over HTTP, `citytwin import` is that), so `--max-body-bytes` bounds one request and
/// this bounds how many bytes of bodies one client address, its anonymous requests, and the whole
/// server may hold together. Like nginx's `limit_conn` beside `client_max_body_size`: a body
/// larger than one request may send is 413 (RFC 9110 §15.5.14), one that would take its address
/// over its share is 429 with `Retry-After` (RFC 6585 §4: the client is asking too much at once,
/// and may send it again when its other uploads are answered), and one the server as a whole has
/// no room for is 503 with `Retry-After` (RFC 9110 §15.6.4: a temporary overload).
///
/// A body with a `Content-Length` takes its share before a byte of it is read; a chunked one as
/// its chunks arrive. The share is given back when the request is answered.
final class BodyBudget: Sendable {
    /// Bytes of bodies one client address may have in memory at once (0: no bound).
    let perAddress: Int
    /// Bytes of bodies one address's requests without a token may have in memory at once (0: no bound).
    let anonymousPerAddress: Int
    /// Bytes of bodies the whole server may have in memory at once (0: no bound).
    let total: Int

    private struct State {
        var byAddress: [String: Int] = [:]
        var anonymousByAddress: [String: Int] = [:]
        var total = 0
    }
    private let state = Mutex(State())

    /// The budgets of `limits`, each at least one body of the largest size (`maxBodyBytes`), so
    /// that a single upload the server accepts is never refused by its budget alone.
    init(limits: RequestLimits) {
        func atLeastOneBody(_ budget: Int) -> Int { budget > 0 ? max(budget, limits.maxBodyBytes) : 0 }
        perAddress = atLeastOneBody(limits.addressBodyBudget)
        anonymousPerAddress = atLeastOneBody(limits.anonymousBodyBudget)
        total = atLeastOneBody(limits.bodyBudget)
    }

    /// One request's share, empty until it reads its body.
    func allowance(address: String, anonymous: Bool) -> Allowance {
        Allowance(budget: self, address: address, anonymous: anonymous)
    }

    /// Bytes held now by `address` (all its requests, and those without a token) and by everyone.
    func held(address: String) -> (all: Int, anonymous: Int, total: Int) {
        state.withLock { ($0.byAddress[address, default: 0], $0.anonymousByAddress[address, default: 0], $0.total) }
    }

    fileprivate func take(_ bytes: Int, address: String, anonymous: Bool) throws {
        let refusal: Problem? = state.withLock { s in
            let all = s.byAddress[address, default: 0] + bytes
            let unsigned = s.anonymousByAddress[address, default: 0] + bytes
            if anonymous, anonymousPerAddress > 0, unsigned > anonymousPerAddress {
                return Problem(.bodyBudget, "the request bodies this address is sending without a token would hold \(unsigned) bytes in memory at once, "
                               + "over the \(anonymousPerAddress) bytes allowed (--anonymous-body-budget); send this one when the others are answered, or with a token",
                               retryAfter: 1)
            }
            if perAddress > 0, all > perAddress {
                return Problem(.bodyBudget, "the request bodies this address is sending would hold \(all) bytes in memory at once, "
                               + "over the \(perAddress) bytes allowed (--address-body-budget); send this one when the others are answered",
                               retryAfter: 1)
            }
            if total > 0, s.total + bytes > total {
                return Problem(.serverBusy, "the server holds \(s.total) bytes of request bodies; this one (\(bytes) more) would pass the \(total) bytes "
                               + "it reads at once (--body-budget); try again shortly", retryAfter: 2)
            }
            s.byAddress[address] = all
            if anonymous { s.anonymousByAddress[address] = unsigned }
            s.total += bytes
            return nil
        }
        if let refusal { throw refusal }
    }

    fileprivate func give(_ bytes: Int, address: String, anonymous: Bool) {
        guard bytes > 0 else { return }
        state.withLock { s in
            let all = s.byAddress[address, default: bytes] - bytes
            s.byAddress[address] = all > 0 ? all : nil
            if anonymous {
                let unsigned = s.anonymousByAddress[address, default: bytes] - bytes
                s.anonymousByAddress[address] = unsigned > 0 ? unsigned : nil
            }
            s.total -= bytes
        }
    }

    /// One request's bytes of body in memory: taken as it is read (or whole, from its declared
    /// length), given back once when the request is answered.
    final class Allowance: Sendable {
        private let budget: BodyBudget
        private let address: String
        private let anonymous: Bool
        private let held = Mutex(0)

        fileprivate init(budget: BodyBudget, address: String, anonymous: Bool) {
            self.budget = budget
            self.address = address
            self.anonymous = anonymous
        }

        /// Makes sure `bytes` of body in all are covered (a body's declared length, or what has
        /// been read of it so far): takes the part not yet taken.
        /// - Throws: `Problem` `.bodyBudget` (429) or `.serverBusy` (503), with `Retry-After`.
        func reserve(_ bytes: Int) throws {
            let more = held.withLock { max(0, bytes - $0) }
            guard more > 0 else { return }
            try budget.take(more, address: address, anonymous: anonymous)
            held.withLock { $0 += more }
        }

        /// Gives back everything taken.
        func release() {
            let bytes = held.withLock { h -> Int in
                defer { h = 0 }
                return h
            }
            budget.give(bytes, address: address, anonymous: anonymous)
        }
    }
}
