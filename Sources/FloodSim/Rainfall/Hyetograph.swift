import Foundation

/// Rainfall at one gauge as a step function of time: intensity held constant over each interval.
///
/// `starts` are interval start times in seconds from the simulation start (increasing); interval k
/// ends at `starts[k+1]`, the last one `lastInterval` seconds after it starts. Intensities are in
/// mm/h. Outside the intervals it does not rain.
public struct Hyetograph: Sendable, Hashable {
    public var starts: [Double]
    /// mm/h per interval.
    public var intensities: [Double]
    /// Length of the last interval, seconds.
    public var lastInterval: Double

    public init(starts: [Double], intensities: [Double], lastInterval: Double) {
        self.starts = starts
        self.intensities = intensities
        self.lastInterval = lastInterval
    }

    /// Equal intervals of `interval` seconds from time `start`, with depths in mm per interval.
    public init(depthsMillimetres depths: [Double], interval: Double, start: Double = 0) {
        starts = depths.indices.map { start + Double($0) * interval }
        intensities = depths.map { $0 / interval * 3600 }
        lastInterval = interval
    }

    /// End of the interval that starts at index `k`, seconds.
    public func end(_ k: Int) -> Double { k + 1 < starts.count ? starts[k + 1] : starts[k] + lastInterval }

    /// Depth of each interval, mm.
    public var depths: [Double] { intensities.indices.map { intensities[$0] * (end($0) - starts[$0]) / 3600 } }

    /// Total depth, mm.
    public var totalDepth: Double { depths.reduce(0, +) }

    /// Rain between two times (seconds), intensity units × hours (mm for mm/h).
    public func depth(from t0: Double, to t1: Double) -> Double {
        var total = 0.0
        for k in starts.indices {
            let a = max(t0, starts[k]), b = min(t1, end(k))
            if b > a { total += intensities[k] * (b - a) / 3600 }
        }
        return total
    }

    /// Intensity at `time` seconds, mm/h (0 outside the record).
    public func intensity(at time: Double) -> Double {
        guard let first = starts.first, time >= first, let k = index(at: time) else { return 0 }
        return time < end(k) ? intensities[k] : 0
    }

    /// The first time after `time` at which the intensity may change, seconds (∞ after the record).
    public func nextChange(after time: Double) -> Double {
        guard let first = starts.first else { return .infinity }
        if time < first { return first }
        guard let k = index(at: time) else { return .infinity }
        let e = end(k)
        return e > time ? e : .infinity
    }

    private func index(at time: Double) -> Int? {
        var lo = 0, hi = starts.count - 1
        guard hi >= 0, time >= starts[0] else { return nil }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= time { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }
}
