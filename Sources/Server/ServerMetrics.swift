import Foundation
import Metrics
import Prometheus

/// Request counts and latency histograms per route, recorded through swift-metrics into this
/// server's own Prometheus registry (no global bootstrap, so several servers, e.g. in tests,
/// keep separate figures) and exposed at `/metrics`.
final class ServerMetrics: @unchecked Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let lock = NSLock()
    private var counters: [Key: Metrics.Counter] = [:]
    private var timers: [Key: Metrics.Timer] = [:]

    struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.factory = factory
    }

    /// Counts one request and records its duration.
    func record(route: String, method: String, status: Int, nanoseconds: UInt64) {
        let key = Key(route: route, method: method, status: status)
        let dimensions = [("route", route), ("method", method), ("status", String(status))]
        lock.lock()
        let counter = counters[key] ?? Metrics.Counter(label: "citytwin_http_requests_total", dimensions: dimensions, factory: factory)
        counters[key] = counter
        let timer = timers[key] ?? Metrics.Timer(label: "citytwin_http_request_duration_seconds", dimensions: dimensions, factory: factory)
        timers[key] = timer
        lock.unlock()
        counter.increment()
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }

    private var named: [String: Metrics.Counter] = [:]
    private var gauges: [String: Metrics.Gauge] = [:]

    /// Adds `n` to the counter `label` with `dimensions` (`citytwin_change_feed_reads_total{reader="shared"}`).
    func count(_ label: String, _ dimensions: [(String, String)] = [], by n: Int = 1) {
        guard n > 0 else { return }
        let key = label + dimensions.map { "\u{0}\($0.0)=\($0.1)" }.joined()
        lock.lock()
        let counter = named[key] ?? Metrics.Counter(label: label, dimensions: dimensions, factory: factory)
        named[key] = counter
        lock.unlock()
        counter.increment(by: n)
    }

    /// Sets the gauge `label` (`citytwin_event_streams`).
    func set(_ label: String, _ value: Int) {
        lock.lock()
        let gauge = gauges[label] ?? Metrics.Gauge(label: label, factory: factory)
        gauges[label] = gauge
        lock.unlock()
        gauge.record(value)
    }

    /// The Prometheus text exposition.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
