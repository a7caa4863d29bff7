/// What the corridor's through traffic in one direction waits at each signal under the offsets
/// the signals run. At the first signal of the direction vehicles arrive at random, as at an
/// isolated signal; at every later one they arrive as the upstream signal let them go, carried
/// down the link: TRANSYT's cyclic flow profiles (Robertson 1969) with Robertson's platoon
/// dispersion. The uniform delay is read from that arrival profile and HCM 2000's incremental
/// delay d₂ is added, so the delay depends on the offsets as it does on the street, where the
/// isolated figure would not.
public struct DirectionDelay: Sendable, Hashable, Codable {
    public enum Direction: String, Sendable, Hashable, Codable {
        /// From the first signal to the last.
        case outbound
        /// From the last signal to the first.
        case inbound
    }

    /// One signal the direction passes, in the order it passes them.
    public struct Signal: Sendable, Hashable, Codable {
        public var intersection: String
        /// The approach (lane group) the direction arrives on.
        public var approach: String
        /// Control delay with the arrivals the upstream signal sends: uniform delay from the
        /// arrival profile plus HCM's d₂ (s/veh).
        public var delay: Double
        /// The approach's HCM control delay with random arrivals, its own plan's figure (s/veh).
        public var isolatedDelay: Double
        /// Share of the approach's arrivals that come during its effective green (HCM's P);
        /// g/C with random arrivals.
        public var arrivalsOnGreen: Double

        enum CodingKeys: String, CodingKey {
            case intersection, approach
            case delay = "delay_s"
            case isolatedDelay = "isolated_delay_s"
            case arrivalsOnGreen = "arrivals_on_green"
        }
    }

    public var direction: Direction
    public var signals: [Signal]
    /// What a vehicle travelling the whole corridor in this direction waits at its signals: Σ delay (s/veh).
    public var delay: Double
    /// The same with random arrivals at every signal (s/veh), what the offsets are worth against.
    public var isolatedDelay: Double

    public init(direction: Direction, signals: [Signal]) {
        self.direction = direction
        self.signals = signals
        delay = signals.reduce(0) { $0 + $1.delay }
        isolatedDelay = signals.reduce(0) { $0 + $1.isolatedDelay }
    }

    enum CodingKeys: String, CodingKey {
        case direction, signals
        case delay = "delay_s"
        case isolatedDelay = "isolated_delay_s"
    }
}

/// A flow profile over one signal cycle, in steps of about a second (TRANSYT's cyclic flow
/// profile): `rates[k]` is the flow (veh/s) during step k, measured from the corridor's time zero.
struct CyclicFlowProfile: Sendable, Hashable {
    var rates: [Double]
    /// Step length (s): the cycle divided into whole steps of about one second.
    var step: Double

    /// Robertson's platoon dispersion factor α and travel time factor β, TRANSYT's defaults.
    static let dispersionFactor = 0.35
    static let travelTimeFactor = 0.8
    /// A car leaving the stop line from a queue reaches the link's speed v after losing v/(2a)
    /// against cruising; a = 2.6 m/s², a passenger car's (SUMO's default). Without it the model's
    /// platoons ran ahead of SUMO's (Benchmarks/README.md, `corridor_progression.py`).
    static let startAcceleration = 2.6

    /// Stop line to stop line at `speed` (m/s) over `length` (m), with the start from the upstream stop line.
    static func travelTime(length: Double, speed: Double) -> Double {
        length / speed + speed / (2 * startAcceleration)
    }

    static func steps(in cycle: Double) -> Int { max(1, Int(cycle.rounded())) }

    static func uniform(_ flow: Double, cycle: Double) -> CyclicFlowProfile {
        let n = steps(in: cycle)
        return CyclicFlowProfile(rates: Array(repeating: flow / 3600, count: n), step: cycle / Double(n))
    }

    /// Mean flow over the cycle (veh/h).
    var meanFlow: Double { rates.reduce(0, +) / Double(max(1, rates.count)) * 3600 }

    func scaled(by factor: Double) -> CyclicFlowProfile { CyclicFlowProfile(rates: rates.map { $0 * factor }, step: step) }

    /// The profile `travelTime` seconds downstream: the platoon's head arrives after β·t and its
    /// tail spreads, q′(k + β·t) = F·q(k) + (1 − F)·q′(k + β·t − 1) with F = 1/(1 + α·β·t)
    /// (t in steps), in the steady state of a repeating cycle. That state is solved exactly: one
    /// pass from an empty link gives z, and the cyclic solution is z[j] + (1 − F)^(j+1)·q′(n − 1)
    /// with q′(n − 1) = z[n − 1] / (1 − (1 − F)^n).
    func dispersed(over travelTime: Double) -> CyclicFlowProfile {
        let n = rates.count
        let lag = Self.travelTimeFactor * travelTime / step
        let f = 1 / (1 + Self.dispersionFactor * lag)
        let r = 1 - f
        let shift = Int(lag.rounded())
        var out = Array(repeating: 0.0, count: n)
        var previous = 0.0
        for j in 0..<n {
            previous = f * rates[((j - shift) % n + n) % n] + r * previous
            out[j] = previous
        }
        var rn = 1.0
        for _ in 0..<n { rn *= r }
        let last = out[n - 1] / (1 - rn)
        var decay = r
        for j in 0..<n {
            out[j] += decay * last
            decay *= r
        }
        return CyclicFlowProfile(rates: out, step: step)
    }

    /// Serves the profile at a signal that gives `saturation` (veh/h) during `green` (the share of
    /// each step inside the effective green), in the steady state of a repeating cycle: the
    /// departures, the uniform delay (queue area over arrivals, the queue piecewise linear within a
    /// step) and the share of arrivals on green. `nil` when a cycle brings more than it can serve.
    func served(saturation: Double, green: [Double]) -> (departures: CyclicFlowProfile, uniformDelay: Double, arrivalsOnGreen: Double)? {
        let n = rates.count
        let arriving = rates.reduce(0, +) * step
        let capacity = green.reduce(0, +) * saturation / 3600 * step
        guard arriving > 0 else { return (self, 0, 0) }
        guard arriving < capacity * (1 - 1e-9) else { return nil }
        var queue = 0.0
        var departures = Array(repeating: 0.0, count: n)
        var area = 0.0
        // From an empty queue the cycles settle once a green clears what the red gathered.
        for _ in 0..<64 {
            let start = queue
            area = 0
            for k in 0..<n {
                let a = rates[k], s = saturation / 3600 * green[k]
                let q0 = queue
                if a >= s || q0 >= (s - a) * step {
                    queue = q0 + (a - s) * step
                    area += (q0 + queue) / 2 * step
                    departures[k] = s
                } else {
                    let clear = q0 / (s - a)  // the queue is gone after `clear` seconds; then arrivals go straight through
                    area += q0 / 2 * clear
                    queue = 0
                    departures[k] = (q0 + a * step) / step
                }
            }
            if abs(queue - start) < 1e-9 { break }
        }
        let onGreen = zip(rates, green).reduce(0) { $0 + $1.0 * $1.1 } * step / arriving
        return (CyclicFlowProfile(rates: departures, step: step), area / arriving, onGreen)
    }
}

extension CorridorTiming {
    /// Each direction's delay at the corridor's signals under the offsets their plans carry
    /// (`timings[i].plan.offset`, the first stage's green start), all at one common cycle.
    /// - Parameters:
    ///   - intersections: the corridor's intersections in order, with their coordinated approaches.
    ///   - links: `intersections.count − 1` links; travel times at their progression speeds, plus
    ///     the start from the stop line.
    ///   - timings: each intersection's timing, all at the same cycle.
    public static func progression(intersections: [CorridorIntersection], links: [CorridorLink],
                                   timings: [IntersectionTiming]) -> [DirectionDelay] {
        let order = Array(intersections.indices)
        let outbound = direction(.outbound, order, intersections: intersections, timings: timings,
                                 approach: \.outboundApproach) { CyclicFlowProfile.travelTime(length: links[$0].length, speed: links[$0].outboundSpeed) }
        let inbound = direction(.inbound, order.reversed(), intersections: intersections, timings: timings,
                                approach: \.inboundApproach) { CyclicFlowProfile.travelTime(length: links[$0 - 1].length, speed: links[$0 - 1].inboundSpeed) }
        return [outbound, inbound]
    }

    /// TRANSYT's offset search (Robertson 1969) over the model above: from the plans' offsets, each
    /// signal's offset in turn (the first signal's held as the reference) moves to the whole-second
    /// step of the cycle that lowers the corridor's mean control delay (`CorridorPlan.meanControlDelay`)
    /// most, sweep after sweep until no move lowers it. Every step is tried, not TRANSYT's few step
    /// sizes, so a sweep ends at each offset's best given the others; the result is never worse than
    /// the start (a local optimum, not a proven global one).
    /// - Returns: the timings at the offsets found, and the directions' delays under them.
    static func lowestDelayOffsets(intersections: [CorridorIntersection], links: [CorridorLink],
                                   timings start: [IntersectionTiming], maximumSweeps: Int = 20) -> (timings: [IntersectionTiming], directions: [DirectionDelay]) {
        var timings = start
        var directions = progression(intersections: intersections, links: links, timings: timings)
        var best = CorridorPlan.meanControlDelay(timings, directions: directions)
        guard let cycle = timings.first?.cycle, cycle > 0 else { return (timings, directions) }
        let steps = CyclicFlowProfile.steps(in: cycle)
        let step = cycle / Double(steps)
        for _ in 0..<maximumSweeps {
            var moved = false
            for i in timings.indices.dropFirst() {
                let current = timings[i].plan.offset
                var chosen: (offset: Double, directions: [DirectionDelay])?
                for k in 1..<steps {
                    timings[i].plan.offset = mod(current + Double(k) * step, cycle)
                    let candidate = progression(intersections: intersections, links: links, timings: timings)
                    let delay = CorridorPlan.meanControlDelay(timings, directions: candidate)
                    // A move must gain more than rounding; ties keep the current offset.
                    if delay < best - 1e-6 {
                        best = delay
                        chosen = (timings[i].plan.offset, candidate)
                    }
                }
                timings[i].plan.offset = chosen?.offset ?? current
                if let chosen {
                    directions = chosen.directions
                    moved = true
                }
            }
            if !moved { break }
        }
        return (timings, directions)
    }

    /// Walks one direction: `travelTime(i)` is the time from signal i to the next one the direction reaches.
    private static func direction(_ direction: DirectionDelay.Direction, _ order: [Int], intersections: [CorridorIntersection],
                                  timings: [IntersectionTiming], approach: KeyPath<CorridorIntersection, String>,
                                  travelTime: (Int) -> Double) -> DirectionDelay {
        var signals: [DirectionDelay.Signal] = []
        // The through platoon leaving the previous signal, already carried to this one.
        var platoon: CyclicFlowProfile?
        for i in order {
            let x = intersections[i], timing = timings[i]
            let id = x[keyPath: approach]
            let cycle = timing.cycle
            guard let demand = x.demand.approaches.first(where: { $0.id == id }),
                  let performance = timing.approaches.first(where: { $0.id == id }) else { continue }
            let q = demand.flows.total
            let green = effectiveGreenShares(of: id, in: timing, startupLost: x.demand.startupLost, effectiveGreen: performance.effectiveGreen)
            var signal = DirectionDelay.Signal(intersection: x.demand.id, approach: id, delay: performance.controlDelay,
                                               isolatedDelay: performance.controlDelay,
                                               arrivalsOnGreen: cycle > 0 ? performance.effectiveGreen / cycle : 0)
            var arrivals = CyclicFlowProfile.uniform(q, cycle: cycle)
            var fromUpstream = false
            if let platoon, platoon.rates.count == arrivals.rates.count, platoon.meanFlow > 0 {
                fromUpstream = true
                // The platoon is part of this approach's flow; the rest (turning in from the side
                // streets, or leaving the platoon before here) arrives at random.
                let m = platoon.meanFlow
                arrivals = q >= m
                    ? CyclicFlowProfile(rates: platoon.rates.map { $0 + (q - m) / 3600 }, step: platoon.step)
                    : platoon.scaled(by: q / m)
            }
            var departures: CyclicFlowProfile
            if let served = arrivals.served(saturation: performance.saturationFlow, green: green) {
                departures = served.departures
                if fromUpstream {
                    signal.delay = served.uniformDelay + performance.incrementalDelay
                    signal.arrivalsOnGreen = served.arrivalsOnGreen
                }
            } else {
                // Above capacity the queue never clears: the approach discharges through every green
                // and its delay stays the plan's (d₁ at x = 1 plus d₂).
                departures = CyclicFlowProfile(rates: green.map { $0 * performance.saturationFlow / 3600 }, step: arrivals.step)
            }
            signals.append(signal)
            // Only the through movement goes on along the corridor.
            let throughShare = q > 0 ? demand.flows.through / q : 0
            departures = departures.scaled(by: throughShare)
            let next = direction == .outbound ? i + 1 : i - 1
            platoon = intersections.indices.contains(next) ? departures.dispersed(over: travelTime(i)) : nil
        }
        return DirectionDelay(direction: direction, signals: signals)
    }

    /// The share of each one-second step of the cycle (from the corridor's time zero) that lies in
    /// `approach`'s effective green: its stage's green starts at the plan's offset plus the stages
    /// before it; the effective green begins after the start-up loss (up to HCM's 2 s, the rest of
    /// the loss at the end of the amber) and lasts `effectiveGreen`.
    static func effectiveGreenShares(of approach: String, in timing: IntersectionTiming, startupLost: Double,
                                     effectiveGreen: Double) -> [Double] {
        let cycle = timing.cycle
        let n = CyclicFlowProfile.steps(in: cycle)
        let step = cycle / Double(n)
        var shares = Array(repeating: 0.0, count: n)
        guard effectiveGreen > 0, cycle > 0 else { return shares }
        let (start, _) = window(of: approach, in: timing.plan)
        let begin = mod(timing.plan.offset + start + min(2, max(0, startupLost)), cycle)
        // The window may wrap past the cycle's end: lay it over two cycles and fold.
        for k in 0..<(2 * n) {
            let t0 = Double(k) * step, t1 = t0 + step
            let overlap = max(0, min(t1, begin + effectiveGreen) - max(t0, begin))
            shares[k % n] += overlap / step
        }
        return shares.map { min(1, $0) }
    }
}
