import ArgumentParser
import Server

/// `serve`'s request limits as one option group (`RequestLimits`: time-outs, sizes, concurrency,
/// quotas, the sensing write queue), each option defaulting to `RequestLimits()`'s value.
struct RequestLimitOptions: ParsableArguments {
    @Option(help: "Seconds a connection may stay silent (idle between requests, or trickling a request head or body) before it is closed.")
    var idleTimeout: Double = RequestLimits().idleTimeout

    @Option(help: "Bytes of all request header fields together (and of one field); a larger head is refused.")
    var maxHeaderBytes: Int = RequestLimits().maxHeaderBytes

    @Option(help: "Bytes of the query string; a longer one answers 414.")
    var maxQueryBytes: Int = RequestLimits().maxQueryBytes

    @Option(help: "Bytes of a CQL2 filter parameter; a longer one answers 400.")
    var maxFilterBytes: Int = RequestLimits().maxFilterBytes

    @Option(help: "Bytes of a request body (feature writes, process execution); a larger one answers 413.")
    var maxBodyBytes: Int = RequestLimits().maxBodyBytes

    @Option(help: "Requests one bearer token may have in progress at once; one more answers 429 with Retry-After (a flood); a client reading page after page never reaches it; 0: no limit.")
    var tokenConcurrency: Int = RequestLimits().tokenConcurrency

    @Option(help: "Requests one client address without a token may have in progress at once; one more answers 429 with Retry-After; 0: no limit.")
    var addressConcurrency: Int = RequestLimits().addressConcurrency

    @Option(help: "A quota: requests per second one bearer token may send (bursts of --token-burst) before 429 with Retry-After, which a client paging fast reaches too; 0 (the default): none.")
    var tokenRate: Double = RequestLimits().tokenRate

    @Option(help: "The --token-rate quota's burst: requests one bearer token may send in one go before its rate applies.")
    var tokenBurst: Double = RequestLimits().tokenBurst

    @Option(help: "A quota: requests per second one client address may send without a token (bursts of --address-burst) before 429; 0 (the default): none.")
    var addressRate: Double = RequestLimits().addressRate

    @Option(help: "The --address-rate quota's burst: requests one client address may send in one go without a token before its rate applies.")
    var addressBurst: Double = RequestLimits().addressBurst

    @Flag(help: "Take the client address from the last X-Forwarded-For entry (only behind a load balancer that sets it).")
    var trustForwardedFor = false

    @Option(help: "SensorThings writes in progress or waiting at once; one more answers 503 with Retry-After; 0: no bound.")
    var sensingWriteQueue: Int = RequestLimits().sensingWriteQueue

    @Option(help: "Bytes of request bodies one client address may have in memory at once (all its requests; at least one body of --max-body-bytes); one more body answers 429 with Retry-After; 0: no bound.")
    var addressBodyBudget: Int = RequestLimits().addressBodyBudget

    @Option(help: "Bytes of request bodies one client address may have in memory at once in requests without a token; one more answers 429 with Retry-After; 0: no bound.")
    var anonymousBodyBudget: Int = RequestLimits().anonymousBodyBudget

    @Option(help: "Bytes of request bodies the whole server may have in memory at once; one more answers 503 with Retry-After; 0: no bound.")
    var bodyBudget: Int = RequestLimits().bodyBudget

    @Option(help: "Event streams (/changes, /alerts/events, /parking/events) one token may have open at once; one more answers 429 with Retry-After; 0: no limit.")
    var tokenStreams: Int = RequestLimits().tokenStreams

    @Option(help: "Event streams one client address may have open at once without a token; one more answers 429 with Retry-After; 0: no limit.")
    var addressStreams: Int = RequestLimits().addressStreams

    @Option(help: "Event streams the server keeps open at once; one more answers 503 with Retry-After; 0: no limit.")
    var maxStreams: Int = RequestLimits().maxStreams

    /// The limits these options give.
    var limits: RequestLimits {
        RequestLimits(idleTimeout: idleTimeout, maxHeaderBytes: maxHeaderBytes, maxQueryBytes: maxQueryBytes, maxFilterBytes: maxFilterBytes,
                      maxBodyBytes: maxBodyBytes, tokenConcurrency: tokenConcurrency, addressConcurrency: addressConcurrency, tokenRate: tokenRate, tokenBurst: tokenBurst, addressRate: addressRate,
                      addressBurst: addressBurst, trustForwardedFor: trustForwardedFor, sensingWriteQueue: sensingWriteQueue,
                      addressBodyBudget: addressBodyBudget, anonymousBodyBudget: anonymousBodyBudget, bodyBudget: bodyBudget,
                      tokenStreams: tokenStreams, addressStreams: addressStreams, maxStreams: maxStreams)
    }

    func validate() throws {
        guard idleTimeout.isFinite, idleTimeout >= 0.1, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout must be 0.1…86400 seconds, got \(idleTimeout)")
        }
        for (name, value) in [("--max-header-bytes", maxHeaderBytes), ("--max-query-bytes", maxQueryBytes),
                              ("--max-filter-bytes", maxFilterBytes), ("--max-body-bytes", maxBodyBytes)] where value < 256 {
            throw ValidationError("\(name) must be at least 256, got \(value)")
        }
        for (name, value) in [("--token-concurrency", tokenConcurrency), ("--address-concurrency", addressConcurrency)] where value < 0 {
            throw ValidationError("\(name) must be 0 (no limit) or more requests in progress, got \(value)")
        }
        for (name, value) in [("--token-streams", tokenStreams), ("--address-streams", addressStreams), ("--max-streams", maxStreams)] where value < 0 {
            throw ValidationError("\(name) must be 0 (no limit) or more event streams, got \(value)")
        }
        for (name, value) in [("--address-body-budget", addressBodyBudget), ("--anonymous-body-budget", anonymousBodyBudget), ("--body-budget", bodyBudget)]
        where value < 0 {
            throw ValidationError("\(name) must be 0 (no bound) or more bytes, got \(value)")
        }
        for (name, value) in [("--token-rate", tokenRate), ("--address-rate", addressRate)] where !(value.isFinite && value >= 0) {
            throw ValidationError("\(name) must be 0 (no limit) or more requests per second, got \(value)")
        }
        for (name, value) in [("--token-burst", tokenBurst), ("--address-burst", addressBurst)] where !(value.isFinite && value >= 1) {
            throw ValidationError("\(name) must be at least 1, got \(value)")
        }
    }
}
