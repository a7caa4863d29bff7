/// One RTK triangular unit hydrograph (SWMM's `[HYDROGRAPHS]` SHORT, MEDIUM or LONG line): the
/// fraction `r` of the rain volume that enters the sewer, spread over a triangle rising to its
/// peak at `timeToPeak` and falling to zero at `baseTime` (= T·(1 + K)), after an initial
/// abstraction that rain must fill first.
///
/// Depths are in millimetres (the reader converts inches), times in whole seconds as SWMM keeps
/// them (it truncates T and T·(1 + K) hours to seconds).
public struct RTKUnitHydrograph: Sendable, Hashable {
    /// Fraction of rainfall volume that becomes RDII (SWMM's R).
    public var responseRatio: Double
    /// Time to peak, whole seconds (SWMM's T, in hours on input).
    public var timeToPeak: Int
    /// Base time T·(1 + K), whole seconds; 0 means this hydrograph does not exist.
    public var baseTime: Int
    /// Maximum initial abstraction depth, mm (SWMM's Dmax).
    public var maxAbstraction: Double
    /// Recovery rate of the initial abstraction while it does not rain, mm/day (SWMM's Drec).
    public var recoveryRate: Double
    /// Initial abstraction already used at the start of the run, mm (SWMM's Do).
    public var initialAbstractionUsed: Double

    public init(responseRatio: Double = 0, timeToPeak: Int = 0, baseTime: Int = 0, maxAbstraction: Double = 0,
                recoveryRate: Double = 0, initialAbstractionUsed: Double = 0) {
        self.responseRatio = responseRatio
        self.timeToPeak = timeToPeak
        self.baseTime = baseTime
        self.maxAbstraction = maxAbstraction
        self.recoveryRate = recoveryRate
        self.initialAbstractionUsed = initialAbstractionUsed
    }

    /// The hydrograph from SWMM's R, T (hours) and K, with its abstraction parameters (mm, mm/day).
    public init(r: Double, tHours: Double, k: Double, maxAbstraction: Double = 0, recoveryRate: Double = 0,
                initialAbstractionUsed: Double = 0) {
        // Seconds truncated as SWMM does; clamped so that no input can overflow the conversion.
        func seconds(_ h: Double) -> Int { Int(max(-1e12, min(1e12, h * 3600))) }
        self.init(responseRatio: r, timeToPeak: seconds(tHours), baseTime: seconds(tHours * (1 + k)),
                  maxAbstraction: maxAbstraction, recoveryRate: recoveryRate, initialAbstractionUsed: initialAbstractionUsed)
    }

    /// The ordinate at `t` seconds after the rain, per hour (it integrates to 1 over the base),
    /// before the response ratio is applied.
    func ordinate(at t: Double) -> Double {
        let base = Double(baseTime)
        if t >= base { return 0 }
        let peak = 2 / base * 3600
        let t1 = Double(timeToPeak), t2 = base - t1
        let f = t <= t1 ? t / t1 : 1 - (t - t1) / t2
        return max(f, 0) * peak
    }
}

/// A set of unit hydrographs (SWMM's `[HYDROGRAPHS]` group): short-, medium- and long-term
/// responses for each month, driven by the rain of one gauge.
public struct UnitHydrographGroup: Sendable, Hashable {
    /// The group's name (for messages).
    public var name: String
    /// Index of the rain gauge in `RDIISetup.gauges`.
    public var gauge: Int
    /// Twelve months (January first) of three hydrographs (short, medium, long term).
    public var months: [[RTKUnitHydrograph]]

    public init(name: String, gauge: Int, months: [[RTKUnitHydrograph]]) {
        self.name = name
        self.gauge = gauge
        self.months = months
    }
}

/// A node's sewershed: the area whose rain, through one unit hydrograph group, enters the node
/// as RDII (SWMM's `[RDII]` line).
public struct RDIISewershed: Sendable, Hashable {
    /// Index of the receiving node.
    public var node: Int
    /// Index of the group in `RDIISetup.groups`.
    public var group: Int
    /// Sewershed area, m².
    public var area: Double

    public init(node: Int, group: Int, area: Double) {
        self.node = node
        self.group = group
        self.area = area
    }
}

/// The RDII one node receives: a flow held over each interval of `step` seconds from the start
/// (SWMM's RDII interface file, which the routing reads at the start of each routing step).
public struct RDIIInflow: Sendable, Hashable {
    /// Index of the receiving node.
    public var node: Int
    /// Length of each interval, seconds (SWMM's wet runoff step).
    public var step: Double
    /// Flow over each interval, m³/s; zero after the last.
    public var flows: [Double]

    public init(node: Int, step: Double, flows: [Double]) {
        self.node = node
        self.step = step
        self.flows = flows
    }

    /// The RDII at `time` seconds, m³/s. SWMM looks the file up 1 ms into the routing step, so a
    /// step starting on an interval's start takes that interval.
    public func flow(at time: Double) -> Double {
        guard step > 0 else { return 0 }
        let k = Int(((time + 0.001) / step).rounded(.down))
        return k >= 0 && k < flows.count ? flows[k] : 0
    }

    /// The volume delivered between 0 and `duration` seconds, m³.
    public func volume(until duration: Double) -> Double {
        var v = 0.0
        for (k, q) in flows.enumerated() {
            let a = Double(k) * step, b = min(duration, a + step)
            if b > a { v += q * (b - a) }
        }
        return v
    }

    /// The largest flow before `duration` seconds, m³/s.
    public func peak(until duration: Double) -> Double {
        var p = 0.0
        for (k, q) in flows.enumerated() where Double(k) * step < duration { p = max(p, q) }
        return p
    }
}
