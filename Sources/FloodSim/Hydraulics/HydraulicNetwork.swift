// The plain SI input of the 1D drainage hydraulics engine (SWMM 5.2 compatible).
//
// Everything is in metres, square metres, cubic metres, seconds and m³/s. A SWMM `.inp` reader
// converts US units (ft, cfs) and SWMM conventions (offsets as elevations, curves by name) into
// these values; the engine never sees names it must look up.

/// A drainage network ready for hydraulic routing: nodes, links, inflows and routing options.
///
/// Links refer to nodes by index into `nodes`. All lengths in metres, areas in m², flows in m³/s,
/// times in seconds from the start of the simulation.
public struct HydraulicNetwork: Sendable, Hashable {
    /// Junctions, outfalls, storage units and flow dividers.
    public var nodes: [HydraulicNode]
    /// Conduits, pumps, orifices, weirs and outlets.
    public var links: [HydraulicLink]
    /// External inflows (time series, baseline, dry-weather flow) at nodes.
    public var inflows: [NodeInflow]
    /// Rainfall-dependent infiltration/inflow at nodes (SWMM's RDII, from `RDIIGeneration`).
    public var rdii: [RDIIInflow] = []
    /// How and for how long to route.
    public var options: RoutingOptions

    public init(nodes: [HydraulicNode], links: [HydraulicLink], inflows: [NodeInflow] = [],
                options: RoutingOptions = RoutingOptions()) {
        self.nodes = nodes
        self.links = links
        self.inflows = inflows
        self.options = options
    }

    /// The index of the node with identifier `id`, or nil (linear search: for set-up only).
    public func nodeIndex(_ id: String) -> Int? { nodes.firstIndex { $0.id == id } }
    /// The index of the link with identifier `id`, or nil (linear search: for set-up only).
    public func linkIndex(_ id: String) -> Int? { links.firstIndex { $0.id == id } }
}

// MARK: - Time series and curves

/// A piecewise-linear series of values over simulation time.
///
/// `times` are seconds from the simulation start, strictly increasing; `values` are in the unit of
/// what the series drives (m³/s for inflows, m for stages). Before the first time the first value
/// applies; after the last time the value is 0 (SWMM's lookup for inflows) unless
/// `holdsLastValue` is set (SWMM's lookup for outfall stages).
public struct TimeSeries: Sendable, Hashable {
    public var times: [Double]
    public var values: [Double]
    /// Whether the last value continues after the last time (otherwise the series is 0 there).
    public var holdsLastValue: Bool

    public init(times: [Double], values: [Double], holdsLastValue: Bool = false) {
        self.times = times
        self.values = values
        self.holdsLastValue = holdsLastValue
    }

    /// The linearly interpolated value at `time` (seconds), or 0 for an empty series.
    public func value(at time: Double) -> Double {
        let n = times.count
        guard n > 0 else { return 0 }
        if time <= times[0] { return values[0] }
        if time > times[n - 1] { return holdsLastValue ? values[n - 1] : 0 }
        if time == times[n - 1] { return values[n - 1] }
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= time { lo = mid } else { hi = mid }
        }
        return interpolated(time, lo, hi)
    }

    /// Whether `times` is strictly increasing (what `SeriesTable`'s walk from the last interval needs).
    var isStrictlyIncreasing: Bool { zip(times, times.dropFirst()).allSatisfy { $0 < $1 } }

    @inline(__always)
    private func interpolated(_ time: Double, _ lo: Int, _ hi: Int) -> Double {
        let t0 = times[lo], t1 = times[hi]
        let f = t1 > t0 ? (time - t0) / (t1 - t0) : 0
        return values[lo] + f * (values[hi] - values[lo])
    }
}

/// A piecewise-linear x → y table (storage, pump, rating, tidal curves), SI units per use.
///
/// Lookups outside the table follow SWMM: below the first x the first segment's line is used
/// down to x = 0 where noted by the user of the curve, otherwise the end values are held.
public struct Curve: Sendable, Hashable {
    public var x: [Double]
    public var y: [Double]

    public init(x: [Double], y: [Double]) {
        self.x = x
        self.y = y
    }

    public init(points: [(Double, Double)]) {
        self.x = points.map(\.0)
        self.y = points.map(\.1)
    }

    public static func == (a: Curve, b: Curve) -> Bool { a.x == b.x && a.y == b.y }
    public func hash(into h: inout Hasher) { h.combine(x); h.combine(y) }
}
