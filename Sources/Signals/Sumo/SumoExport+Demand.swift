import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// The traffic SUMO drives: the counts as flows from edge to edge, and the seeded vehicles
/// and routes of one run.
extension SumoExport {
    /// One counted stream: an interval's vehicles of a lane group and movement, from edge to edge.
    public struct Flow: Sendable, Hashable {
        public var id: String
        /// The signal and the lane group (its `approach` the compass arm) it was counted on.
        public var signal: String
        public var laneGroup: String
        public var approach: String
        /// Simulation seconds (time of day).
        public var begin: Int
        public var end: Int
        public var from: String
        public var to: String
        public var perHour: Double
        /// The share of its vehicles that are heavy (the lane group's `heavy_vehicles_pct` / 100),
        /// driven as SUMO's trucks.
        public var heavyShare: Double = 0
    }

    /// The counted streams of the simulated period, in departure order.
    public func flows() -> [Flow] {
        var flows: [Flow] = []
        for (k, s) in signals.enumerated() {
            let here = exits(k)
            let intervals: [(start: Int, minutes: Int, volumes: [String: MovementFlows])] = s.counts.isEmpty
                ? [(period.start, period.end - period.start, s.intersection.demand.flowsByApproach.mapValues { $0.scaled(by: Double(period.end - period.start) / 60) })]
                : s.counts.filter { $0.start >= period.start && $0.start < period.end }.sorted { $0.start < $1.start }
                    .map { ($0.start, s.intervalMinutes, $0.volumes) }
            let heavy = Dictionary(s.intersection.demand.approaches.map { ($0.id, ($0.conditions.heavyVehicles ?? 0) / 100) },
                                   uniquingKeysWith: { a, _ in a })
            for d in arms(k) {
                let fromSignal = neighbour(k, d) != armNode(k, d)
                for (group, _, _) in lanes(k, d) {
                    for movement in ["right", "through", "left"] where group.movements.contains(movement) {
                        guard let t = Self.exit(from: d, movement), here.contains(t) else { continue }
                        guard let (from, to) = route(k, from: d, to: t, arrivingFromSignal: fromSignal) else { continue }
                        for i in intervals {
                            let f = i.volumes[group.id] ?? MovementFlows()
                            let n = movement == "through" ? f.through : movement == "left" ? f.left : f.right
                            guard n > 0, i.minutes > 0 else { continue }
                            flows.append(Flow(id: "\(group.id)_\(movement)_\(s.intersection.id)_\(i.start)", signal: s.intersection.id,
                                              laneGroup: group.id, approach: d, begin: i.start * 60, end: (i.start + i.minutes) * 60,
                                              from: from, to: to, perHour: n * 60 / Double(i.minutes), heavyShare: heavy[group.id] ?? 0))
                        }
                    }
                }
            }
        }
        return flows.sorted { ($0.begin, $0.id) < ($1.begin, $1.id) }
    }

    /// The car, and the truck heavy vehicles are driven as: SUMO's own for its `truck` class (its
    /// length, acceleration and deceleration), at most the design speed.
    var vehicleTypes: String {
        "    <vType id=\"car\" accel=\"2.6\" decel=\"4.5\" sigma=\"0.5\" length=\"5\" minGap=\"2.5\" maxSpeed=\"\(Self.format(speed))\"/>\n"
            + "    <vType id=\"truck\" vClass=\"truck\" sigma=\"0.5\" maxSpeed=\"\(Self.format(speed))\"/>\n"
    }

    /// Routes from the counts: one `flow` per interval, lane group and movement, with Poisson
    /// arrivals at the counted rate (its heavy vehicles a second flow of trucks at their share of
    /// it, so the two together are the counted Poisson stream). On a corridor, through traffic of
    /// the first and last signals' corridor approaches drives the whole corridor; traffic from a
    /// side street that turns onto it drives on to the corridor's end.
    public func routes() -> String {
        var out = "<routes>\n" + vehicleTypes
        for f in flows() {
            for (type, suffix, rate) in [("car", "", f.perHour * (1 - f.heavyShare)), ("truck", ".heavy", f.perHour * f.heavyShare)] where rate > 0 {
                out += "    <flow id=\"\(Self.escape(f.id + suffix))\" type=\"\(type)\" begin=\"\(f.begin)\" end=\"\(f.end)\" period=\"exp(\(Self.format(rate / 3600, digits: 6)))\" from=\"\(Self.escape(f.from))\" to=\"\(Self.escape(f.to))\" departLane=\"best\" departSpeed=\"max\"/>\n"
            }
        }
        return out + "</routes>\n"
    }

    /// One vehicle of `vehicles(seed:)`: its id (`flow id.n`), the flow it belongs to, its departure (s)
    /// and whether it is a heavy vehicle (a truck).
    public struct Vehicle: Sendable, Hashable {
        public var id: String
        public var flow: Flow
        public var depart: Double
        public var heavy: Bool = false
    }

    /// The flows' Poisson arrivals drawn here rather than by SUMO, so that a run with only some
    /// of the vehicles (a baseline without the crossing traffic) has exactly the same ones:
    /// every flow draws from its own generator, seeded from `seed` and the flow's id.
    public func vehicles(seed: UInt64) -> [Vehicle] {
        var out: [Vehicle] = []
        for f in flows() where f.perHour > 0 {
            var random = SplitMix64(seed: seed ^ Self.hash(f.id))
            var kinds = SplitMix64(seed: seed ^ Self.hash(f.id + ".heavy"))
            let rate = f.perHour / 3600
            var t = Double(f.begin)
            var n = 0
            while true {
                // Exponential gap; 1 - u keeps the logarithm finite.
                t += -log(1 - Double.random(in: 0..<1, using: &random)) / rate
                guard t < Double(f.end) else { break }
                // Each vehicle heavy with the group's share, drawn from a generator of its own so the
                // departures are the same whatever the share.
                let heavy = f.heavyShare > 0 && Double.random(in: 0..<1, using: &kinds) < f.heavyShare
                out.append(Vehicle(id: "\(f.id).\(n)", flow: f, depart: (t * 100).rounded() / 100, heavy: heavy))
                n += 1
            }
        }
        return out.sorted { ($0.depart, $0.id) < ($1.depart, $1.id) }
    }

    /// `vehicles` as a SUMO route file of explicit vehicles (what `routes()` writes as flows).
    public func routes(_ vehicles: [Vehicle]) -> String {
        var out = "<routes>\n" + vehicleTypes
        for v in vehicles {
            out += "    <trip id=\"\(Self.escape(v.id))\" type=\"\(v.heavy ? "truck" : "car")\" depart=\"\(Self.format(v.depart))\" from=\"\(Self.escape(v.flow.from))\" to=\"\(Self.escape(v.flow.to))\" departLane=\"best\" departSpeed=\"max\"/>\n"
        }
        return out + "</routes>\n"
    }

    /// FNV-1a of a string: a seed that does not change between runs (Swift's `Hasher` does).
    static func hash(_ text: String) -> UInt64 { FNV1a.hash(text) }

    /// The from and to edges of traffic counted at signal `k` moving from approach `d` to exit
    /// `t`; nil for corridor traffic counted again downstream (it came from the previous signal).
    func route(_ k: Int, from d: String, to t: String, arrivingFromSignal: Bool) -> (String, String)? {
        // On the road graph each counted movement drives from the road arriving at its signal to
        // the road it turns into: every counted vehicle crosses its own signal once.
        if roads != nil { return (incoming(k, d), outgoing(k, t)) }
        if arrivingFromSignal { return nil }
        guard let c = corridor else { return (incoming(k, d), outgoing(k, t)) }
        let outward = Self.opposite[c.outboundApproach] ?? ""
        let inward = Self.opposite[c.inboundApproach] ?? ""
        let last = signals.count - 1
        // Onto the corridor: on to its end in that direction.
        if t == outward, k < last { return (incoming(k, d), outgoing(last, outward)) }
        if t == inward, k > 0 { return (incoming(k, d), outgoing(0, inward)) }
        return (incoming(k, d), outgoing(k, t))
    }
}
