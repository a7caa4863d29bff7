import Foundation
import Testing
@testable import SignalSim

/// Delays and queues beyond the cycle: pedestrians at their crossings, the 95th-percentile back of queue,
/// and turn bays a queue passes.
extension WebsterTimingTests {
    @Test("pedestrian delay at each crossing: (C − g)²/(2C) through their stage's red, HCM 2000's LOS, the wait on a refuge island")
    func pedestrianDelay() throws {
        var demand = Self.crossroads(ns: 200, ew: 100)
        demand.crossings = [PedestrianCrossing(id: "P-N", length: 16, stage: 0), PedestrianCrossing(id: "P-W", length: 30, refugeIsland: true, stage: 1)]
        let plan = SignalPlan(stages: [StageTiming(approaches: ["N", "S"], green: 40, amber: 3, allRed: 2),
                                       StageTiming(approaches: ["W", "E"], green: 20, amber: 3, allRed: 2)])
        let timing = try SignalTiming.evaluate(plan, for: demand)
        #expect(timing.cycle == 70)
        let n = try #require(timing.crossings.first { $0.id == "P-N" })
        // Red 70 − 40 = 30 s: 30² / 140 = 6.43 s, LOS A; 16 m walk in 4 + 16 s fits the 40 s green.
        #expect(n.stage == 0 && n.green == 40 && n.longestWait == 30 && n.islandWait == nil)
        #expect(abs(n.delay - 900.0 / 140) < 1e-9 && n.levelOfService == .a)
        let w = try #require(timing.crossings.first { $0.id == "P-W" })
        // Red 50 s: 2500 / 140 = 17.9 s, LOS B; 30 m needs 34 s, the 20 s green covers the half to the island,
        // so a late starter waits the red there.
        #expect(w.green == 20 && w.longestWait == 50 && abs(w.delay - 2500.0 / 140) < 1e-9 && w.levelOfService == .b)
        #expect(w.islandWait == 50)
        // The report carries them by id.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(IntersectionTimingReport(timing))) as? [String: Any]
        let crossings = try #require(json?["crossings"] as? [String: [String: Any]])
        #expect(Set(crossings.keys) == ["P-N", "P-W"])
        #expect(crossings["P-W"]?["los"] as? String == "B" && crossings["P-W"]?["island_wait_s"] as? Double == 50)
        #expect(crossings["P-N"]?["island_wait_s"] == nil)
        // HCM 2000 Exhibit 18-9's bounds.
        let bounds: [(Double, LevelOfService)] = [(9.9, .a), (10, .b), (20, .b), (20.1, .c), (30, .c), (40, .d), (40.1, .e), (60, .e), (60.1, .f), (.infinity, .f)]
        for (delay, los) in bounds { #expect(LevelOfService(pedestrianDelay: delay) == los, "\(delay) s") }
    }

    @Test("the 95th-percentile back of queue: Poisson's quantile without discharge arrivals, the simulated queue's with them, per lane and in metres, none at x ≥ 1")
    func backOfQueuePercentile() throws {
        // ρ → 0: nobody joins while the queue discharges, the back of queue is the red's Poisson arrivals.
        // Poisson(3): P(≤ 5) = 0.916, P(≤ 6) = 0.966; Poisson(10): P(≤ 15) = 0.951.
        #expect(SignalTiming.backOfQueuePercentile(0.95, startingQueue: 3, flowRatio: 1e-12) == 6)
        #expect(SignalTiming.backOfQueuePercentile(0.95, startingQueue: 10, flowRatio: 1e-12) == 15)
        #expect(SignalTiming.backOfQueuePercentile(0.95, startingQueue: 0, flowRatio: 0.3) == 0)
        #expect(SignalTiming.backOfQueuePercentile(0.95, startingQueue: 3, flowRatio: 1) == nil)
        // The queue itself, simulated (seeded): a Poisson number waiting at green, one departure a headway,
        // Poisson(ρ) arrivals in each headway, counted until the queue first clears.
        var state: UInt64 = 16
        func uniform() -> Double {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        func poisson(_ mean: Double) -> Int {  // Knuth's product of uniforms
            var k = 0, product = uniform()
            let limit = exp(-mean)
            while product > limit { k += 1; product *= uniform() }
            return k
        }
        for (theta, rho) in [(2.5, 0.15), (4.0, 0.3), (6.0, 0.45)] {
            var backs: [Int] = []
            for _ in 0..<40_000 {
                var waiting = poisson(theta), served = 0
                while waiting > 0 { waiting += poisson(rho) - 1; served += 1 }
                backs.append(served)
            }
            backs.sort()
            let simulated = Double(backs[Int(0.95 * Double(backs.count)) - 1])
            let mean = Double(backs.reduce(0, +)) / Double(backs.count)
            #expect(abs(mean - theta / (1 - rho)) < 0.05 * theta / (1 - rho), "θ \(theta), ρ \(rho): simulated mean \(mean)")
            let computed = try #require(SignalTiming.backOfQueuePercentile(0.95, startingQueue: theta, flowRatio: rho))
            #expect(abs(computed - simulated) <= 1, "θ \(theta), ρ \(rho): \(computed) against the simulated \(simulated)")
        }
        // In a plan: per lane, the whole group's queue shared by its lanes; in the report with its metres.
        var demand = Self.crossroads(ns: 600, ew: 300)
        demand.approaches[0].lanes = 2
        let timing = try SignalTiming.webster(demand)
        let n = try #require(timing.approaches.first { $0.id == "N" })
        let s = try #require(timing.approaches.first { $0.id == "S" })
        #expect(n.backOfQueue95 == SignalTiming.backOfQueuePercentile(0.95, startingQueue: n.queue / 2, flowRatio: n.flowRatio))
        #expect(try #require(n.backOfQueue95) < #require(s.backOfQueue95))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(IntersectionTimingReport(timing))) as? [String: Any]
        let north = try #require((json?["approaches"] as? [String: [String: Any]])?["N"])
        #expect(north["queue_95_veh_lane"] as? Double == n.backOfQueue95)
        #expect(north["queue_95_m"] as? Double == n.backOfQueue95.map { $0 * 7.5 })
        // A bay shorter than that queue is warned of, with how often the queue passes it (the same
        // distribution): Poisson(3) exceeds 5 with probability 1 − 0.9161.
        #expect(abs(try #require(SignalTiming.backOfQueueExceedance(5, startingQueue: 3, flowRatio: 1e-12)) - 0.0839) < 1e-3)
        #expect(SignalTiming.backOfQueueExceedance(5, startingQueue: 3, flowRatio: 1) == nil)
        let q95 = try #require(n.backOfQueue95)
        for (storage, warned) in [(q95 * 7.5 - 1, true), (q95 * 7.5, false)] {
            var bay = demand
            bay.approaches[0].storage = storage
            let t = try SignalTiming.webster(bay)
            #expect(t.warnings.contains { $0.code == .queueStorage && $0.approach == "N" } == warned, "\(storage) m")
            let report = try JSONSerialization.jsonObject(with: JSONEncoder().encode(IntersectionTimingReport(t))) as? [String: Any]
            // N is the whole northern arm: no lanes beside it for its queue to block, so it affects no other group.
            let warning = (report?["warnings"] as? [[String: Any]])?.first { $0["code"] as? String == "queue-storage" }
            #expect((warning != nil) == warned && warning?["approach"] as? String == (warned ? "N" : nil) && warning?["affects"] == nil)
            let row = try #require((report?["approaches"] as? [String: [String: Any]])?["N"])
            #expect(row["storage_m"] as? Double == storage)
            #expect(abs(try #require(row["queue_storage_ratio"] as? Double) - q95 * 7.5 / storage) < 1e-9)
        }
        // Over capacity the queue does not clear: no percentile, the over-capacity warning speaks.
        let plan = SignalPlan(stages: [StageTiming(approaches: ["N", "S"], green: 10, amber: 3, allRed: 2),
                                       StageTiming(approaches: ["W", "E"], green: 60, amber: 3, allRed: 2)])
        let squeezed = try SignalTiming.evaluate(plan, for: Self.crossroads(ns: 600, ew: 300))
        let over = try #require(squeezed.approaches.first { $0.id == "N" })
        #expect(over.degreeOfSaturation > 1 && over.backOfQueue95 == nil)
        // A bay there is passed by a queue that never clears: said so, whatever its length.
        var bayed = Self.crossroads(ns: 600, ew: 300)
        bayed.approaches[0].storage = 5_000
        let spilled = try SignalTiming.evaluate(plan, for: bayed)
        #expect(spilled.warnings.contains { $0.code == .queueStorage && $0.approach == "N" && $0.message.contains("over capacity") })
    }

    @Test("a bay whose entry the queue beside it passes is warned of (bay-blocked), naming the bay, with how often; over capacity the queue always passes it")
    func bayEntryBlocked() throws {
        // The crossroads with NL, a left bay on the northern arm beside N's through lane.
        var demand = Self.crossroads(ns: 600, ew: 300)
        demand.approaches.append(ApproachDemand(id: "NL", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(left: 60), arm: "N"))
        demand.approaches.append(ApproachDemand(id: "SL", lanes: 1, saturationPerLane: 1800, flows: MovementFlows(left: 60), arm: "S"))
        demand.stages = [["N", "S"], ["NL", "SL"], ["W", "E"]]
        let n = try #require(try SignalTiming.webster(demand).approaches.first { $0.id == "N" })
        let reach = try #require(n.backOfQueue95) * SignalTiming.queuedVehicleSpacing
        for (storage, warned) in [(reach - 1, true), (reach, false)] {
            var bay = demand
            bay.approaches[4].storage = storage
            let t = try SignalTiming.webster(bay)
            let w = t.warnings.filter { $0.code == .bayBlocked }
            #expect(w.map(\.approach) == (warned ? ["NL"] : []), "\(storage) m")
            // The bay's vehicles wait in N's lanes: N's figures carry the blocking too, and say so.
            #expect(w.map(\.affects) == (warned ? [["N"]] : []), "\(storage) m")
            if warned {
                let report = try JSONSerialization.jsonObject(with: JSONEncoder().encode(IntersectionTimingReport(t))) as? [String: Any]
                let json = (report?["warnings"] as? [[String: Any]])?.first { $0["code"] as? String == "bay-blocked" }
                #expect(json?["approach"] as? String == "NL" && json?["affects"] as? [String] == ["N"])
                // How often: N's queue per lane passes the vehicles the bay's length holds.
                let share = try #require(n.backOfQueueExceedance(Int((storage / SignalTiming.queuedVehicleSpacing).rounded(.down))))
                #expect(w[0].message.contains("lane group N's 95th-percentile queue") && w[0].message.contains(String(format: "in about %.0f %% of cycles", share * 100)), "\(w[0].message)")
            }
        }
        // A bay whose arm is not known (no arm given, an id not a compass arm) is not placed beside any queue.
        var unnamed = demand
        unnamed.approaches[4].storage = 1
        unnamed.approaches[4].arm = nil
        #expect(!(try SignalTiming.webster(unnamed)).warnings.contains { $0.code == .bayBlocked })
        // Over capacity, N's queue grows past any bay's opening.
        var over = demand
        over.approaches[4].storage = 500
        let plan = SignalPlan(stages: [StageTiming(approaches: ["N", "S"], green: 10, amber: 3, allRed: 2),
                                       StageTiming(approaches: ["NL", "SL"], green: 10, amber: 3, allRed: 2),
                                       StageTiming(approaches: ["W", "E"], green: 60, amber: 3, allRed: 2)])
        let squeezed = try SignalTiming.evaluate(plan, for: over)
        #expect(squeezed.warnings.contains { $0.code == .bayBlocked && $0.approach == "NL" && $0.affects == ["N"] && $0.message.contains("runs over capacity") })
        // NL's own queue past its bay blocks N's lanes beside it: a queue-storage warning that names N as affected.
        var short = demand
        short.approaches[4].storage = 1
        let spilled = try SignalTiming.webster(short).warnings.first { $0.code == .queueStorage && $0.approach == "NL" }
        #expect(spilled?.affects == ["N"], "\(String(describing: spilled))")
    }
}
