import Foundation

/// One signal of a coordinated corridor (干线协调), as the green wave sees it: where it stands and
/// how long the corridor's through movements have green in each direction.
public struct CorridorSignal: Sendable, Hashable, Codable {
    public var id: String
    /// Through green for traffic in the outbound direction (from the first signal to the last), s.
    public var outboundGreen: Double
    /// Through green for the inbound direction, s.
    public var inboundGreen: Double
    /// Start of the inbound green minus the start of the outbound green within the signal's cycle
    /// (s); 0 when both directions run in one stage.
    public var inboundGreenShift: Double

    public init(id: String, outboundGreen: Double, inboundGreen: Double, inboundGreenShift: Double = 0) {
        self.id = id
        self.outboundGreen = outboundGreen
        self.inboundGreen = inboundGreen
        self.inboundGreenShift = inboundGreenShift
    }

    enum CodingKeys: String, CodingKey {
        case id
        case outboundGreen = "outbound_green_s"
        case inboundGreen = "inbound_green_s"
        case inboundGreenShift = "inbound_green_shift_s"
    }
}

/// The road between two consecutive signals of a corridor.
public struct CorridorLink: Sendable, Hashable, Codable {
    /// Stop line to stop line (m).
    public var length: Double
    /// Progression (design) speed outbound and inbound (m/s).
    public var outboundSpeed: Double
    public var inboundSpeed: Double

    public init(length: Double, outboundSpeed: Double, inboundSpeed: Double? = nil) {
        self.length = length
        self.outboundSpeed = outboundSpeed
        self.inboundSpeed = inboundSpeed ?? outboundSpeed
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case length = "length_m"
        case outboundSpeed = "outbound_speed_m_s"
        case inboundSpeed = "inbound_speed_m_s"
    }

    /// The inbound speed defaults to the outbound one.
    public init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        length = try c.decode(Double.self, forKey: .length)
        outboundSpeed = try c.decode(Double.self, forKey: .outboundSpeed)
        inboundSpeed = try c.decodeIfPresent(Double.self, forKey: .inboundSpeed) ?? outboundSpeed
    }
}

/// An arterial to coordinate: its signals in order and the links between them.
public struct Corridor: Sendable, Hashable, Codable {
    public var id: String
    public var signals: [CorridorSignal]
    /// `signals.count − 1` links: `links[i]` joins `signals[i]` and `signals[i + 1]`.
    public var links: [CorridorLink]

    public init(id: String, signals: [CorridorSignal], links: [CorridorLink]) {
        self.id = id
        self.signals = signals
        self.links = links
    }

    /// The longest link between two coordinated signals (m) and the progression speeds (m/s) a
    /// corridor may give: beyond them the input is a mistake (a unit, a digit), and a band drawn
    /// across thousands of cycles of travel would only take time.
    public static let longestLink = 10_000.0
    public static let progressionSpeeds = 1.0...40.0

    /// Outbound travel time from the first signal to each signal (s).
    public var outboundTimes: [Double] {
        var t = [0.0]
        for link in links { t.append(t.last! + link.length / link.outboundSpeed) }
        return t
    }

    /// Inbound travel time from each signal to the first signal (s).
    public var inboundTimes: [Double] {
        var t = [0.0]
        for link in links { t.append(t.last! + link.length / link.inboundSpeed) }
        return t
    }

    /// Position of each signal along the corridor from the first (m).
    public var positions: [Double] {
        var p = [0.0]
        for link in links { p.append(p.last! + link.length) }
        return p
    }

    func validate(cycle: Double) throws {
        guard cycle.isFinite, cycle > 0 else { throw SignalTimingError(field: "cycle_s", "must be a positive number of seconds") }
        guard signals.count >= 2 else {
            throw SignalTimingError(field: "signals", "a corridor needs at least two signals to coordinate (got \(signals.count))")
        }
        guard links.count == signals.count - 1 else {
            throw SignalTimingError(field: "links", "a corridor of \(signals.count) signals needs \(signals.count - 1) links (got \(links.count))")
        }
        var seen = Set<String>()
        for (i, s) in signals.enumerated() {
            guard seen.insert(s.id).inserted else { throw SignalTimingError(field: "signals[\(i)].id", "signal '\(s.id)' is listed twice") }
            for (v, name) in [(s.outboundGreen, "outbound_green_s"), (s.inboundGreen, "inbound_green_s")] {
                guard v.isFinite, v >= 0, v <= cycle else {
                    throw SignalTimingError(field: "signals[\(i)].\(name)", "must be between 0 and the cycle \(cycle) s (got \(v))")
                }
            }
            guard s.inboundGreenShift.isFinite else { throw SignalTimingError(field: "signals[\(i)].inbound_green_shift_s", "must be a number") }
        }
        for (i, l) in links.enumerated() {
            guard l.length.isFinite, l.length > 0 else { throw SignalTimingError(field: "links[\(i)].length_m", "must be a positive length in metres") }
            guard l.length <= Self.longestLink else {
                throw SignalTimingError(field: "links[\(i)].length_m", "must be at most \(Int(Self.longestLink)) m: signals further apart form no corridor to coordinate (got \(l.length))")
            }
            for (v, name) in [(l.outboundSpeed, "outbound_speed_m_s"), (l.inboundSpeed, "inbound_speed_m_s")] {
                guard v.isFinite, v > 0 else { throw SignalTimingError(field: "links[\(i)].\(name)", "must be a positive speed in m/s") }
                guard Self.progressionSpeeds.contains(v) else {
                    throw SignalTimingError(field: "links[\(i)].\(name)", "must be \(Int(Self.progressionSpeeds.lowerBound))–\(Int(Self.progressionSpeeds.upperBound)) m/s (3.6–144 km/h; got \(v)\(v > Self.progressionSpeeds.upperBound ? ": a speed in km/h?" : ""))")
                }
            }
        }
    }
}

/// Offsets of a corridor that maximise the weighted two-way bandwidth b + k·b̄ (MAXBAND's
/// objective, Little 1966) for given greens, speeds and a common cycle.
public struct GreenWave: Sendable, Hashable, Codable {
    public var corridor: String
    public var cycle: Double
    /// Weight k of the inbound band.
    public var inboundWeight: Double
    /// Offset of each signal: start of its outbound through green after the first signal's (s, 0 ≤ o < C).
    public var offsets: [Double]
    /// Outbound and inbound bandwidth (s): the time window in which a vehicle at the design speed
    /// passes every signal on green.
    public var outboundBandwidth: Double
    public var inboundBandwidth: Double
    /// Where the bands start at the first signal (s after its outbound green starts).
    public var outboundBandStart: Double
    public var inboundBandStart: Double
    /// Whether the wave carries both directions or one only (the spacing and greens at this cycle
    /// leave no band the other way that would add to b + k·b̄), or, at offsets set otherwise than
    /// for the band (`GreenWave.at`), none.
    public var progression: Progression {
        switch (outboundBandwidth > 1e-9, inboundBandwidth > 1e-9) {
        case (true, true): .twoWay
        case (true, false): .outboundOnly
        case (false, true): .inboundOnly
        case (false, false): .noBand
        }
    }

    public enum Progression: String, Sendable, Hashable, Codable {
        case twoWay = "two-way"
        case outboundOnly = "outbound-only"
        case inboundOnly = "inbound-only"
        case noBand = "none"
    }

    /// Why one direction has no band, for a planner reading the plan; `nil` for a two-way wave
    /// (and for offsets with no band at all, which were not set for one).
    public var oneWayNote: String? {
        let direction: String
        switch progression {
        case .twoWay, .noBand: return nil
        case .outboundOnly: direction = "outbound"
        case .inboundOnly: direction = "inbound"
        }
        return String(format: "one-way progression: at the common cycle of %.0f s the signals' spacing and greens leave no band in both directions that beats a one-way wave, so the %@ direction (inbound weight k = %.2f) gets it; another cycle or stage order may allow a two-way wave",
                      cycle, direction, inboundWeight)
    }

    /// b + k·b̄.
    public var objective: Double { outboundBandwidth + inboundWeight * inboundBandwidth }

    enum CodingKeys: String, CodingKey {
        case corridor, offsets
        case cycle = "cycle_s"
        case inboundWeight = "inbound_weight"
        case outboundBandwidth = "outbound_bandwidth_s"
        case inboundBandwidth = "inbound_bandwidth_s"
        case outboundBandStart = "outbound_band_start_s"
        case inboundBandStart = "inbound_band_start_s"
    }

    /// The exact optimum of b + k·b̄ over all offsets.
    ///
    /// With the outbound band fixed to start at 0, signal i is feasible for bands b, b̄ and an
    /// inbound band ending at B̄ exactly when the arcs [φᵢ − (gᵢ − b), φᵢ] and [B̄ − (ḡᵢ − b̄), B̄]
    /// meet on the cycle circle, where φᵢ = tᵢ + t̄ᵢ + dᵢ (outbound and inbound travel times and the
    /// inbound green shift). For a fixed B̄ each signal then either caps b̄ (no wrap) or caps b (one
    /// wrap); the objective is piecewise linear in B̄ with breakpoints where a cap meets another
    /// direction's green or zero, so evaluating every breakpoint, and at each every split of the
    /// signals into the two groups, finds the global optimum in O(n³): exact, not a search.
    /// - Throws: `SignalTimingError` for a corridor of fewer than two signals or bad values.
    public static func optimize(_ corridor: Corridor, cycle: Double, inboundWeight k: Double = 1) throws -> GreenWave {
        try corridor.validate(cycle: cycle)
        guard k.isFinite, k >= 0 else { throw SignalTimingError(field: "inbound_weight", "must be a number ≥ 0") }
        let c = cycle
        let t = corridor.outboundTimes, tb = corridor.inboundTimes
        let g = corridor.signals.map(\.outboundGreen), gb = corridor.signals.map(\.inboundGreen)
        let n = g.count
        let phi = (0..<n).map { mod(t[$0] + tb[$0] + corridor.signals[$0].inboundGreenShift, c) }
        let gMin = g.min()!, gbMin = gb.min()!
        var candidates: [Double] = []
        for i in 0..<n {
            candidates += [phi[i], phi[i] + c - g[i] + gMin, phi[i] + c - g[i], phi[i] + gb[i] - gbMin, phi[i] + gb[i]]
        }
        var best: (objective: Double, balance: Double, b: Double, bb: Double, end: Double)?
        // A one-way wave (no band at all the other way) puts no constraint on the other direction.
        let oneWay = max(gMin, k * gbMin)
        for raw in candidates {
            let end = mod(raw, c)
            // e⁺ᵢ = (B̄ − φᵢ) mod C: no wrap caps b̄ ≤ ḡᵢ − e⁺ᵢ; one wrap caps b ≤ gᵢ − (C − e⁺ᵢ).
            let e = (0..<n).map { mod(end - phi[$0], c) }
            let inboundCaps = (0..<n).map { gb[$0] - e[$0] }
            let outboundCaps = (0..<n).map { g[$0] - (c - e[$0]) }
            // Choose the inbound band b̄ among the caps: every signal whose inbound cap is below it
            // must wrap and so caps b.
            var levels = Set(inboundCaps.filter { $0 >= 0 })
            levels.insert(0)
            for level in levels where level <= gbMin {
                var b = gMin
                for i in 0..<n where inboundCaps[i] < level - 1e-9 { b = min(b, outboundCaps[i]) }
                if b < 0 { continue }
                var bb = level
                // The inbound band is also capped by the wrapping signals' full greens (≥ gbMin ≥ level) and
                // may grow to the smallest cap of the non-wrapping ones.
                bb = min(gbMin, (0..<n).filter { inboundCaps[$0] >= level - 1e-9 }.map { inboundCaps[$0] }.min() ?? gbMin)
                let objective = b + k * bb
                let balance = min(b, bb)
                if best == nil || objective > best!.objective + 1e-9
                    || (abs(objective - best!.objective) <= 1e-9 && balance > best!.balance + 1e-9) {
                    best = (objective, balance, b, bb, end)
                }
            }
        }
        guard let top = best, top.objective + 1e-9 >= oneWay else {
            return Self.oneWay(corridor, cycle: c, inboundWeight: k, outbound: gMin >= k * gbMin)
        }
        // Place each signal's outbound window start aᵢ in the middle of its feasible range.
        var a = [Double](repeating: 0, count: n)
        for i in 0..<n {
            let low = top.b - g[i], high = 0.0
            // aᵢ + φᵢ + mC ∈ [B̄ + b̄ − ḡᵢ, B̄]
            let inLow = top.end + top.bb - gb[i] - phi[i], inHigh = top.end - phi[i]
            var chosen = (low + high) / 2
            for m in [-2.0, -1, 0, 1, 2] {
                let lo = max(low, inLow + m * c), hi = min(high, inHigh + m * c)
                if lo <= hi + 1e-9 { chosen = (lo + hi) / 2; break }
            }
            a[i] = chosen
        }
        let theta = (0..<n).map { a[$0] + t[$0] }
        let offsets = theta.map { mod($0 - theta[0], c) }
        return GreenWave(corridor: corridor.id, cycle: c, inboundWeight: k, offsets: offsets,
                         outboundBandwidth: top.b, inboundBandwidth: top.bb,
                         outboundBandStart: mod(-theta[0], c), inboundBandStart: mod(top.end - top.bb - theta[0], c))
    }

    /// Progression in one direction only: each signal's green starts when the band's first vehicle
    /// arrives (outbound) or the band passes it inbound; the other direction gets no band.
    static func oneWay(_ corridor: Corridor, cycle c: Double, inboundWeight k: Double, outbound: Bool) -> GreenWave {
        let t = corridor.outboundTimes, tb = corridor.inboundTimes
        let signals = corridor.signals
        if outbound {
            let band = signals.map(\.outboundGreen).min()!
            return GreenWave(corridor: corridor.id, cycle: c, inboundWeight: k, offsets: t.map { mod($0, c) },
                             outboundBandwidth: band, inboundBandwidth: 0, outboundBandStart: 0, inboundBandStart: 0)
        }
        // Inbound green of signal i starts at θᵢ + dᵢ = σ − t̄ᵢ for a band passing signal 1 at σ = d₁.
        let theta = signals.indices.map { -tb[$0] - signals[$0].inboundGreenShift }
        let band = signals.map(\.inboundGreen).min()!
        return GreenWave(corridor: corridor.id, cycle: c, inboundWeight: k, offsets: theta.map { mod($0 - theta[0], c) },
                         outboundBandwidth: 0, inboundBandwidth: band, outboundBandStart: 0,
                         inboundBandStart: mod(signals[0].inboundGreenShift, c))
    }

    /// The outbound and inbound bandwidths (s) that `offsets` (start of each signal's outbound
    /// green, s) give on `corridor` at `cycle`: the longest time window passing every signal on green.
    public static func bandwidths(_ corridor: Corridor, cycle: Double, offsets: [Double]) throws -> (outbound: Double, inbound: Double) {
        let wave = try at(corridor, cycle: cycle, offsets: offsets)
        return (wave.outboundBandwidth, wave.inboundBandwidth)
    }

    /// The wave that `offsets` (start of each signal's outbound green, s) give on `corridor` at
    /// `cycle`: its bands and where they start, for offsets set otherwise than for the band (e.g.
    /// for the corridor's delay), reported and drawn as the optimum's are.
    public static func at(_ corridor: Corridor, cycle: Double, inboundWeight k: Double = 1, offsets: [Double]) throws -> GreenWave {
        try corridor.validate(cycle: cycle)
        guard offsets.count == corridor.signals.count else {
            throw SignalTimingError(field: "offsets", "needs one offset per signal (\(corridor.signals.count), got \(offsets.count))")
        }
        let t = corridor.outboundTimes, tb = corridor.inboundTimes
        // Outbound: a vehicle leaving signal 1 at τ meets signal i's green [θᵢ, θᵢ + gᵢ] at τ + tᵢ.
        let outbound = band(starts: offsets.indices.map { offsets[$0] - t[$0] },
                            lengths: corridor.signals.map(\.outboundGreen), cycle: cycle)
        // Inbound: a vehicle passing signal 1 at σ passed signal i at σ − t̄ᵢ.
        let inbound = band(starts: offsets.indices.map { offsets[$0] + corridor.signals[$0].inboundGreenShift + tb[$0] },
                           lengths: corridor.signals.map(\.inboundGreen), cycle: cycle)
        let reference = offsets[0]
        return GreenWave(corridor: corridor.id, cycle: cycle, inboundWeight: k, offsets: offsets.map { mod($0 - reference, cycle) },
                         outboundBandwidth: outbound.width, inboundBandwidth: inbound.width,
                         outboundBandStart: mod(outbound.start - reference, cycle), inboundBandStart: mod(inbound.start - reference, cycle))
    }

    /// The longest arc inside every window [startᵢ, startᵢ + lengthᵢ] on a circle of `cycle`, and
    /// where it starts (0 when there is none).
    static func band(starts: [Double], lengths: [Double], cycle: Double) -> (width: Double, start: Double) {
        var best = (width: 0.0, start: 0.0)
        for s in starts {
            var width = Double.infinity
            for i in starts.indices {
                let into = mod(s - starts[i], cycle)
                // A start a rounding error before the window's own start counts as its start.
                let remaining = into <= lengths[i] + 1e-9 ? lengths[i] - into : (into > cycle - 1e-9 ? lengths[i] : -1)
                width = min(width, remaining)
            }
            if width > best.width { best = (width, s) }
        }
        return best
    }
}

@inline(__always) func mod(_ x: Double, _ m: Double) -> Double {
    let r = x.truncatingRemainder(dividingBy: m)
    return r < 0 ? r + m : (r >= m ? 0 : r)
}
