/// The annual runoff volume capture rate (年径流总量控制率) as a function of the design rainfall
/// depth (设计降雨量), by GB/T 51345-2018's statistical method: over the days of a long daily record
/// that count (rain above 2 mm, snow left out), a facility that holds `d` mm of each day's rain
/// captures min(Pᵢ, d) of day i, so
///
///     α(d) = Σ min(Pᵢ, d) / Σ Pᵢ
///
/// and the design rainfall for a target rate α is the d with α(d) = α. α is continuous, piecewise
/// linear and increasing in d, so the inverse is exact: between two sorted depths p₍ₖ₋₁₎ ≤ d ≤ p₍ₖ₎,
/// α(d) = (Σ₍ᵢ₍ₖ₎ p₍ᵢ₎ + (n − k)·d) / Σ p.
public struct CaptureRateCurve: Sendable, Hashable {
    /// The depths that count, ascending, mm.
    public let depths: [Double]
    /// prefix[k] = the sum of the k smallest depths, mm.
    private let prefix: [Double]

    /// - Parameter depths: the daily depths that count (mm, > 0); at least one.
    public init(depths: [Double]) {
        self.depths = depths.sorted()
        var sums = [0.0]
        sums.reserveCapacity(depths.count + 1)
        for p in self.depths { sums.append(sums[sums.count - 1] + p) }
        prefix = sums
    }

    /// Σ Pᵢ, mm.
    public var total: Double { prefix[prefix.count - 1] }

    /// α(d), 0…1: the share of the counted rain a facility holding `depth` mm a day captures.
    public func rate(forDepth depth: Double) -> Double {
        guard total > 0 else { return 0 }
        guard depth > 0 else { return 0 }
        // k = the number of depths ≤ depth (binary search).
        var lo = 0, hi = depths.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if depths[mid] <= depth { lo = mid + 1 } else { hi = mid }
        }
        return (prefix[lo] + Double(depths.count - lo) * depth) / total
    }

    /// The design rainfall depth for a capture rate, mm: the least d with α(d) = `rate`.
    /// - Parameter rate: in (0, 1); 1 or more answers the largest depth.
    public func depth(forRate rate: Double) -> Double {
        guard let largest = depths.last, total > 0 else { return 0 }
        if rate >= 1 { return largest }
        let target = max(0, rate) * total
        let n = depths.count
        // The first k whose depth captures the target; d lies between depths[k-1] and depths[k].
        var lo = 0, hi = n - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if prefix[mid] + Double(n - mid) * depths[mid] >= target { hi = mid } else { lo = mid + 1 }
        }
        return (target - prefix[lo]) / Double(n - lo)
    }
}
