import Foundation
import GeoCore
import Testing
@testable import SignalSim

/// What every Webster plan must say of itself, on seeded random intersections of every shape the
/// kernel times (two stages with permitted lefts, four with left bays, leading lefts, free right
/// turns, crossings, odd intergreens, measured saturation flows): the figures agree with each
/// other and with the plan, whatever order the approaches come in. The fuzz-signal harness looks
/// for traps and negative greens in any input; this looks for plans that are wrong while valid.
@Suite("Webster plans: properties on random intersections")
struct PlanPropertyTests {
    static func randomIntersection(_ n: Int, _ rng: inout SplitMix64) -> IntersectionDemand {
        let arms = rng.chance(0.8) ? ["N", "S", "E", "W"] : rng.pick([["N", "S", "E"], ["N", "S", "W"], ["E", "W", "N"]])
        let pattern = rng.pick(["two", "four", "leading-left"])
        var approaches: [ApproachDemand] = []
        var bays: [String: String] = [:]
        for arm in arms {
            let lanes = rng.integer(1...3)
            var flows = MovementFlows(through: rng.uniform(80, 450 * Double(lanes)).rounded())
            if pattern == "two", rng.chance(0.6) { flows.left = rng.uniform(10, 150).rounded() }
            if rng.chance(0.5) { flows.right = rng.uniform(10, 150).rounded() }
            approaches.append(ApproachDemand(id: arm, lanes: lanes, saturationPerLane: rng.chance(0.3) ? rng.uniform(1500, 1900).rounded() : nil,
                                             flows: flows))
            if pattern != "two" {
                approaches.append(ApproachDemand(id: arm + "L", lanes: rng.integer(1...2), flows: MovementFlows(left: rng.uniform(30, 300).rounded()),
                                                 arm: arm, storage: rng.chance(0.5) ? rng.pick([30, 45, 60, 90]) : nil))
                bays[arm] = arm + "L"
            }
            if rng.chance(0.15) {
                approaches.append(ApproachDemand(id: arm + "R", lanes: 1, flows: MovementFlows(right: rng.uniform(50, 300).rounded()), arm: arm))
            }
        }
        let ns = arms.filter { $0 == "N" || $0 == "S" }, ew = arms.filter { $0 == "E" || $0 == "W" }
        var stages: [[String]]
        switch pattern {
        case "two": stages = [ns, ew]
        case "four": stages = [ns, ns.compactMap { bays[$0] }, ew, ew.compactMap { bays[$0] }]
        default:
            // A leading left: the first arm of each axis keeps its green from its left bay's stage
            // into the through stage; the other arm's left turns after, in a stage of its own.
            stages = []
            for axis in [ns, ew] where !axis.isEmpty {
                stages.append([axis[0], bays[axis[0]]!])
                stages.append(axis)
                stages += axis.dropFirst().map { [bays[$0]!] }
            }
        }
        stages = stages.filter { !$0.isEmpty }
        var demand = IntersectionDemand(id: "R-\(n)", amber: rng.pick([3, 3, 4]), allRed: rng.pick([0, 1, 2, 3]),
                                        startupLost: rng.pick([2, 3, 3.5]), approaches: approaches, stages: stages)
        if rng.chance(0.4) {
            demand.crossings = (0..<rng.integer(1...3)).map {
                PedestrianCrossing(id: "P\($0)", length: rng.uniform(8, 32).rounded(), refugeIsland: rng.chance(0.3), stage: rng.integer(0...(stages.count - 1)))
            }
        }
        return demand
    }

    /// The mean Webster delay (s/veh) of the plan at each whole-second cycle from `low` to the
    /// maximum that has one, greens split as the plan splits them: what the cycle is chosen by when
    /// minimum greens bind.
    static func meanWebsterDelays(_ demand: IntersectionDemand, from low: Double) -> [(cycle: Double, delay: Double)] {
        stride(from: low, through: SignalTimingSettings().maximumCycle, by: 1).compactMap { cycle in
            guard let t = try? SignalTiming.webster(demand, settings: SignalTimingSettings(minimumCycle: cycle, maximumCycle: cycle)) else { return nil }
            let flow = t.approaches.reduce(0) { $0 + $1.flow }
            return (cycle, t.approaches.reduce(0) { $0 + $1.flow * ($1.websterDelay ?? .infinity) } / flow)
        }
    }

    @Test("300 random intersections: stage times add up to the cycle, greens keep their minimums, x = q/c, d = d₁ + d₂, LOS by delay, over-capacity said, the approaches' order changes nothing, a cycle set by delay the shortest within the tolerance of the least")
    func properties() throws {
        var rng = SplitMix64(seed: 16)
        let settings = SignalTimingSettings()
        var grownByDelay = 0
        for n in 0..<300 {
            let demand = Self.randomIntersection(n, &rng)
            let timing = try SignalTiming.webster(demand, settings: settings)
            let label = "\(demand.id) \(demand.stages)"
            let plan = timing.plan
            #expect(abs(plan.stages.reduce(0) { $0 + $1.green + $1.amber + $1.allRed } - timing.cycle) < 1e-9, "\(label)")
            #expect(timing.cycle >= settings.minimumCycle && timing.cycle <= settings.maximumCycle, "\(label): C = \(timing.cycle)")
            let minimums = try SignalTiming.minimumGreens(demand, stages: demand.stages, settings: settings)
            for (s, stage) in plan.stages.enumerated() {
                // Displayed greens are whole seconds, rounded by largest remainder.
                #expect(stage.green >= minimums[s] - 1 + 1e-9, "\(label): stage \(s + 1) green \(stage.green) below \(minimums[s])")
            }
            for a in timing.approaches where a.flow > 0 {
                #expect(abs(a.degreeOfSaturation - a.flow / a.capacity) < 1e-9, "\(label) \(a.id)")
                #expect(a.capacity <= a.saturationFlow + 1e-9, "\(label) \(a.id)")
                #expect(abs(a.controlDelay - a.uniformDelay - a.incrementalDelay) < 1e-9, "\(label) \(a.id)")
                #expect(a.levelOfService == LevelOfService(controlDelay: a.controlDelay, degreeOfSaturation: a.degreeOfSaturation), "\(label) \(a.id)")
            }
            let over = timing.approaches.contains { $0.degreeOfSaturation > 1 }
            #expect(over == timing.warnings.contains { $0.code == .overCapacity }, "\(label)")
            var reversed = demand
            reversed.approaches.reverse()
            let other = try SignalTiming.webster(reversed, settings: settings)
            #expect(other.plan == plan, "\(label): the approaches' order changed the plan")
            for a in timing.approaches {
                #expect(other.approaches.first { $0.id == a.id } == a, "\(label) \(a.id)")
            }
            if let note = timing.warnings.first(where: { $0.code == .minimumGreen && $0.message.contains("the cycle is") }) {
                grownByDelay += 1
                let json = String(decoding: try JSONEncoder().encode(demand), as: UTF8.self)
                let delays = Self.meanWebsterDelays(demand, from: (timing.websterCycle ?? settings.minimumCycle).rounded(.up))
                let least = delays.map(\.delay).min() ?? .infinity
                guard least.isFinite else {
                    #expect(timing.cycle == settings.maximumCycle, "\(label): no cycle serves every approach below x = 1, so the longest")
                    continue
                }
                let chosen = delays.first { $0.cycle == timing.cycle }?.delay ?? .infinity
                #expect(chosen <= least + SignalTiming.cycleDelayTolerance, "\(label): \(note.message) \(json)")
                #expect(delays.filter { $0.cycle < timing.cycle }.allSatisfy { $0.delay > least + SignalTiming.cycleDelayTolerance },
                        "\(label): a shorter cycle comes within the tolerance \(json)")
            }
        }
        #expect(grownByDelay > 0, "the draw holds intersections whose minimum greens set the cycle")
    }
}
