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
        /// Halts per arriving vehicle with the arrivals the upstream signal sends: those that would
        /// reach the line on red or while its queue is there (`CyclicFlowProfile.served`), plus the
        /// overflow queue's second halts (Akçelik's N₀/(q·C)). SUMO's `waitingCount` counts the same.
        public var stops: Double
        /// The same with random arrivals (the first signal of a direction, or none upstream).
        public var isolatedStops: Double

        enum CodingKeys: String, CodingKey {
            case intersection, approach
            case delay = "delay_s"
            case isolatedDelay = "isolated_delay_s"
            case arrivalsOnGreen = "arrivals_on_green"
            case stops = "stops_per_vehicle"
            case isolatedStops = "isolated_stops_per_vehicle"
        }
    }

    public var direction: Direction
    public var signals: [Signal]
    /// What a vehicle travelling the whole corridor in this direction waits at its signals: Σ delay (s/veh).
    public var delay: Double
    /// The same with random arrivals at every signal (s/veh), what the offsets are worth against.
    public var isolatedDelay: Double
    /// Halts of a vehicle travelling the whole corridor in this direction: Σ stops.
    public var stops: Double
    /// The same with random arrivals at every signal: the stops before coordination.
    public var isolatedStops: Double

    public init(direction: Direction, signals: [Signal]) {
        self.direction = direction
        self.signals = signals
        delay = signals.reduce(0) { $0 + $1.delay }
        isolatedDelay = signals.reduce(0) { $0 + $1.isolatedDelay }
        stops = signals.reduce(0) { $0 + $1.stops }
        isolatedStops = signals.reduce(0) { $0 + $1.isolatedStops }
    }

    enum CodingKeys: String, CodingKey {
        case direction, signals
        case delay = "delay_s"
        case isolatedDelay = "isolated_delay_s"
        case stops = "stops_per_vehicle"
        case isolatedStops = "isolated_stops_per_vehicle"
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
    /// step), the share of arrivals on green and the share that halt (with `halting`; else 0). `nil`
    /// when a cycle brings more than it can serve.
    func served(saturation: Double, green: [Double], halting: (shown: [Double], anticipation: Double)? = nil)
        -> (departures: CyclicFlowProfile, uniformDelay: Double, arrivalsOnGreen: Double, halts: Double)? {
        let n = rates.count
        let arriving = rates.reduce(0, +) * step
        let capacity = green.reduce(0, +) * saturation / 3600 * step
        guard arriving > 0 else {
            // No traffic departs; the figures are a vehicle's if one came (their limit as the flow vanishes),
            // as a plan's delay at zero flow is, so a direction without traffic reads a delay and its stops alike.
            let probe = CyclicFlowProfile(rates: rates.map { _ in 1e-9 }, step: step)
            guard let alone = probe.served(saturation: saturation, green: green, halting: halting) else { return (self, 0, 0, 0) }
            return (self, alone.uniformDelay, alone.arrivalsOnGreen, alone.halts)
        }
        guard arriving < capacity * (1 - 1e-9) else { return nil }
        var departures = Array(repeating: 0.0, count: n)
        var area = 0.0
        Self.steadyQueue(arrivals: rates, service: green.map { $0 * saturation / 3600 }, step: step) { k, q0, q1, clear in
            if let clear {
                area += q0 / 2 * clear
                departures[k] = (q0 + rates[k] * step) / step
            } else {
                area += (q0 + q1) / 2 * step
                departures[k] = saturation / 3600 * green[k]
            }
        }
        let onGreen = zip(rates, green).reduce(0) { $0 + $1.0 * $1.1 } * step / arriving
        var halts = 0.0
        if let (shown, anticipation) = halting, shown.count == n {
            halts = halted(saturation: saturation, shown: shown, anticipation: anticipation) / arriving
        }
        return (CyclicFlowProfile(rates: departures, step: step), area / arriving, onGreen, min(1, halts))
    }

    /// The vehicles a cycle of the profile halts at the stop line (SUMO's `waitingCount`: below 0.1 m/s).
    /// A vehicle arriving at the profile's time t would stop at t + `anticipation` (braking at b from
    /// the speed v it arrives at, it stops v/(2b) later than it would have crossed the line); it halts
    /// when the signal then shows no green (`shown`: the share of each step in the displayed green and
    /// the part of the amber a car within stopping distance of the line runs) or when the queue it
    /// reaches still stands. The queue's back stands until the start wave reaches it; with a triangular
    /// fundamental diagram (a queued car every 7.5 m, the wave back at 1/s − 7.5/v a car) a car reaches
    /// that back exactly when a point queue served at saturation from the displayed green's start would
    /// have served the cars ahead of it, so that point queue answers it. A car that comes later joins a
    /// moving queue and slows without halting. The effective green's start-up loss is not in it: a car
    /// arriving at a green with no queue rolls on.
    func halted(saturation: Double, shown: [Double], anticipation: Double) -> Double {
        let n = rates.count
        let lead = Int((anticipation / step).rounded())
        // Arrivals at the time they would halt; whether they do is read in that time.
        let stopping = (0..<n).map { rates[(($0 - lead) % n + n) % n] }
        var halting = 0.0
        Self.steadyQueue(arrivals: stopping, service: shown.map { $0 * saturation / 3600 }, step: step) { k, q0, q1, clear in
            let standing = clear.map { $0 / step } ?? (q0 > 0 || q1 > 0 ? 1 : 0)
            halting += stopping[k] * step * max(standing, 1 - shown[k])
        }
        return halting
    }

    /// A point queue in the steady state of a repeating cycle: `arrivals` and `service` (veh/s) per step.
    /// From an empty queue the cycles settle once a green clears what the red gathered; then `visit`
    /// sees each step of the settled cycle with the queue at its start and end and, when the queue
    /// clears inside it, after how many seconds.
    static func steadyQueue(arrivals: [Double], service: [Double], step: Double,
                            visit: (_ k: Int, _ start: Double, _ end: Double, _ clear: Double?) -> Void) {
        let n = arrivals.count
        var queue = 0.0
        for settled in [false, true] {
            for _ in 0..<(settled ? 1 : 64) {
                let start = queue
                for k in 0..<n {
                    let a = arrivals[k], s = service[k], q0 = queue
                    if a >= s || q0 >= (s - a) * step {
                        queue = q0 + (a - s) * step
                        if settled { visit(k, q0, queue, nil) }
                    } else {
                        queue = 0
                        // The queue is gone after this long; then arrivals go straight through.
                        if settled { visit(k, q0, 0, q0 / (s - a)) }
                    }
                }
                if !settled, abs(queue - start) < 1e-9 { break }
            }
        }
    }

    /// A passenger car's braking, m/s² (SUMO's default, as `startAcceleration` is its acceleration).
    static let braking = 4.5

    /// v/(2b): how much earlier than it would reach the stop line a car arriving at `speed` sees
    /// whether it must halt (`served`).
    static func anticipation(speed: Double) -> Double { max(0, speed) / (2 * braking) }
}

extension CorridorTiming {
    /// Each direction's delay at the corridor's signals under the offsets their plans carry
    /// (`timings[i].plan.offset`, the first stage's green start), all at one common cycle.
    /// - Parameters:
    ///   - intersections: the corridor's intersections in order, with their coordinated approaches.
    ///   - links: `intersections.count − 1` links; travel times at their progression speeds, plus
    ///     the start from the stop line.
    ///   - timings: each intersection's timing, all at the same cycle.
    ///   - halts: whether to count the halts too (a search that weighs delay alone skips them; its
    ///     directions' `stops` are then 0).
    public static func progression(intersections: [CorridorIntersection], links: [CorridorLink],
                                   timings: [IntersectionTiming], halts: Bool = true) -> [DirectionDelay] {
        let order = Array(intersections.indices)
        // The speed a direction arrives at signal i with: its link in, or at the first signal its link out.
        let outboundSpeed = { (i: Int) in links.isEmpty ? 0 : links[min(max(i - 1, 0), links.count - 1)].outboundSpeed }
        let inboundSpeed = { (i: Int) in links.isEmpty ? 0 : links[min(i, links.count - 1)].inboundSpeed }
        let outbound = direction(.outbound, order, intersections: intersections, timings: timings,
                                 approach: \.outboundApproach, halts: halts, speed: outboundSpeed) { CyclicFlowProfile.travelTime(length: links[$0].length, speed: links[$0].outboundSpeed) }
        let inbound = direction(.inbound, order.reversed(), intersections: intersections, timings: timings,
                                approach: \.inboundApproach, halts: halts, speed: inboundSpeed) { CyclicFlowProfile.travelTime(length: links[$0 - 1].length, speed: links[$0 - 1].inboundSpeed) }
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
        var best = CorridorPlan.meanControlDelay(timings, directions: progression(intersections: intersections, links: links,
                                                                                  timings: timings, halts: false))
        guard let cycle = timings.first?.cycle, cycle > 0 else {
            return (timings, progression(intersections: intersections, links: links, timings: timings))
        }
        let steps = CyclicFlowProfile.steps(in: cycle)
        let step = cycle / Double(steps)
        for _ in 0..<maximumSweeps {
            var moved = false
            for i in timings.indices.dropFirst() {
                let current = timings[i].plan.offset
                var chosen: Double?
                for k in 1..<steps {
                    timings[i].plan.offset = mod(current + Double(k) * step, cycle)
                    let candidate = progression(intersections: intersections, links: links, timings: timings, halts: false)
                    let delay = CorridorPlan.meanControlDelay(timings, directions: candidate)
                    // A move must gain more than rounding; ties keep the current offset.
                    if delay < best - 1e-6 {
                        best = delay
                        chosen = timings[i].plan.offset
                    }
                }
                timings[i].plan.offset = chosen ?? current
                if chosen != nil { moved = true }
            }
            if !moved { break }
        }
        return (timings, progression(intersections: intersections, links: links, timings: timings))
    }

    /// Walks one direction: `travelTime(i)` is the time from signal i to the next one the direction reaches.
    private static func direction(_ direction: DirectionDelay.Direction, _ order: [Int], intersections: [CorridorIntersection],
                                  timings: [IntersectionTiming], approach: KeyPath<CorridorIntersection, String>, halts: Bool,
                                  speed: (Int) -> Double, travelTime: (Int) -> Double) -> DirectionDelay {
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
            let random = CyclicFlowProfile.uniform(q, cycle: cycle)
            // The platoon is part of this approach's flow; the rest (turning in from the side streets,
            // or leaving the platoon before here) arrives at random.
            var upstream: CyclicFlowProfile?
            if let platoon, platoon.rates.count == random.rates.count, platoon.meanFlow > 0 {
                let m = platoon.meanFlow
                upstream = q >= m
                    ? CyclicFlowProfile(rates: platoon.rates.map { $0 + (q - m) / 3600 }, step: platoon.step)
                    : platoon.scaled(by: q / m)
            }
            // What a car sees: the displayed green and the amber's first 2·v/(2b) (a car reaching the line in
            // it was within stopping distance v²/(2b) when it began, and runs it).
            let anticipation = CyclicFlowProfile.anticipation(speed: speed(i))
            let displayed = timing.plan.greenWindow(of: id).green + min(x.demand.amber, 2 * anticipation)
            let halting = halts ? (shown: effectiveGreenShares(of: id, in: timing, startupLost: 0, effectiveGreen: displayed),
                                   anticipation: anticipation) : nil
            // Random arrivals are served for the signal's own figures: always at a direction's first
            // signal, and for the halts before coordination when they are counted.
            let atRandom = upstream == nil || halting != nil
                ? random.served(saturation: performance.saturationFlow, green: green, halting: halting) : nil
            let served = upstream.map { $0.served(saturation: performance.saturationFlow, green: green, halting: halting) } ?? atRandom
            // The overflow queue (Akçelik's N₀, above x₀) halts again in the next cycle.
            let overflow = q > 0 && cycle > 0 ? max(0, performance.queue - q / 3600 * (cycle - performance.effectiveGreen)) / (q * cycle / 3600) : 0
            let haltsAtRandom = halting == nil ? 0 : atRandom.map { $0.halts + overflow } ?? 1 + overflow
            var signal = DirectionDelay.Signal(intersection: x.demand.id, approach: id, delay: performance.controlDelay,
                                               isolatedDelay: performance.controlDelay,
                                               arrivalsOnGreen: cycle > 0 ? performance.effectiveGreen / cycle : 0,
                                               stops: haltsAtRandom, isolatedStops: haltsAtRandom)
            var departures: CyclicFlowProfile
            if let served {
                departures = served.departures
                if upstream != nil {
                    signal.delay = served.uniformDelay + performance.incrementalDelay
                    signal.arrivalsOnGreen = served.arrivalsOnGreen
                    signal.stops = halting == nil ? 0 : served.halts + overflow
                }
            } else {
                // Above capacity the queue never clears: the approach discharges through every green
                // and its delay stays the plan's (d₁ at x = 1 plus d₂).
                departures = CyclicFlowProfile(rates: green.map { $0 * performance.saturationFlow / 3600 }, step: random.step)
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
        let (start, _) = timing.plan.greenWindow(of: approach)
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
