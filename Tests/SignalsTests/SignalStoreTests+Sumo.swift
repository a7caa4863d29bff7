import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import SignalSim
import TestSupport
import Testing
import TwinStore
@testable import Scenarios
@testable import Signals

/// The signal processes' SUMO bridge over the store: the evaluation's check in SUMO, the district's export
/// (vehicles, legs, turn bays) and how SUMO's delays and their sampling errors are read.
extension SignalStoreTests {
    @Test("signal-evaluate's SUMO check: simulate is auto, sumo or none; without SUMO, auto marks it not installed beside the unchanged analytic answer and sumo is refused naming the input")
    func evaluateWithoutSumo() async throws {
        let store = try await Self.store.value
        let registry = ProcessRegistry([SignalEvaluateProcess(sumoTools: { nil })])
        let process = try #require(registry["signal-evaluate"])
        func run(_ inputs: [String: JSONValue]) async throws -> JSONValue {
            return try await registry.run(process.id, inputs: inputs, caller: Self.police, store: store)
        }
        func named(_ inputs: [String: JSONValue]) async -> String? {
            do { _ = try await run(inputs); return nil } catch let e as ProcessInputError { return e.input } catch { return "\(error)" }
        }
        let base: [String: JSONValue] = ["intersection": "SI-006", "period": "17:00-18:00"]
        #expect(await named(base.merging(["simulate": "sumo"]) { $1 }) == "simulate")
        #expect(await named(base.merging(["simulate": "maybe"]) { $1 }) == "simulate")
        #expect(await named(base.merging(["simulate": "none", "sumoSeconds": 10]) { $1 }) == "sumoSeconds")
        #expect(await named(base.merging(["simulate": "none", "sumoSeconds": 600.5]) { $1 }) == "sumoSeconds")
        #expect(await named(base.merging(["simulate": "none", "seed": -1]) { $1 }) == "seed")
        let analytic = try await run(base.merging(["simulate": "none"]) { $1 })
        #expect(analytic["sumo"] == nil)
        let auto = try await run(base)
        let marker = try #require(auto["sumo"])
        #expect(marker["status"] == "not installed" && marker["simulate"] == "auto")
        #expect(marker["message"]?.stringValue?.contains("netconvert") == true)
        // Outputs are additive: everything else is the analytic answer as it was.
        var rest = auto.objectValue ?? [:]
        rest["sumo"] = nil
        #expect(JSONValue.object(rest) == analytic)
    }

    @Test("signal-evaluate: a SUMO that fails is a failed analysis naming SUMO and the plan, not a crash")
    func evaluateWithFailingSumo() async throws {
        let store = try await Self.store.value
        let broken = URL(fileURLWithPath: "/bin/false")
        let registry = ProcessRegistry([SignalEvaluateProcess(sumoTools: { (broken, broken) })])
        let process = try #require(registry["signal-evaluate"])
        let inputs: [String: JSONValue] = ["intersection": "SI-006", "period": "17:00-18:00", "simulate": "sumo"]
        try await registry.validate(inputs, for: process, store: store, caller: Self.police)
        do {
            _ = try await registry.run(process.id, inputs: inputs, caller: Self.police, store: store)
            Issue.record("a failing SUMO answered")
        } catch let e as JobFailure {
            #expect(e.kind == .failed)
            // The plan in force for the period: the all-day one, or the 17:00 one once the suite's green-wave
            // test (same store, run concurrently) has written SC-001's period plans.
            let named = ["SP-SI-006-ALL", "SP-SI-006-1700"].contains { e.message.contains("SUMO could not replay plan \($0) of SI-006") }
            #expect(named && e.message.contains("false failed (exit status 1)"), "\(e.message)")
        }
    }

    @Test("SumoExport's explicit vehicles: the same seed draws the same vehicles, each flow on its own generator, at the counted rates")
    func sumoVehicles() async throws {
        let store = try await Self.store.value
        let export = try await SumoExport.load(from: store, intersection: "SI-006", corridor: nil, period: (420, 480), by: .admin)
        let flows = export.flows()
        #expect(!flows.isEmpty)
        let a = export.vehicles(seed: 7), b = export.vehicles(seed: 7), c = export.vehicles(seed: 8)
        #expect(a == b && a != c)
        #expect(zip(a, a.dropFirst()).allSatisfy { $0.depart <= $1.depart })
        #expect(a.allSatisfy { $0.depart >= 420 * 60 && $0.depart < 480 * 60 })
        let expected = flows.reduce(0) { $0 + $1.perHour * Double($1.end - $1.begin) / 3600 }
        #expect(abs(Double(a.count) - expected) < 4 * expected.squareRoot(), "Poisson count \(a.count) for a mean of \(expected)")
        // A flow's vehicles do not depend on which other flows are drawn: a baseline keeps them.
        let first = try #require(flows.first)
        let alone = try SumoExport(signals: export.signals, period: export.period).vehicles(seed: 7).filter { $0.flow.id == first.id }
        #expect(alone == a.filter { $0.flow.id == first.id })
        let routes = export.routes(Array(a.prefix(3)))
        #expect(routes.components(separatedBy: "<trip ").count == 4 && routes.contains("departLane=\"best\""))
    }

    @Test("every counted movement of every district signal is driven in SUMO: a one-way street out of the junction is a leg that only leaves")
    func everyCountedMovementIsExported() async throws {
        let store = try await Self.store.value
        for intersection in try await SignalizedIntersection.all(from: store, by: .admin) {
            let export = try await SumoExport.load(from: store, intersection: intersection.id, corridor: nil, period: (1020, 1080), by: .admin)
            let driven = Set(export.flows().map { $0.id.components(separatedBy: "_").prefix(2).joined(separator: "_") })
            let flows = intersection.demand.flowsByApproach
            for g in intersection.laneGroups {
                for m in g.movements {
                    let f = flows[g.id] ?? MovementFlows()
                    guard (m == "through" ? f.through : m == "left" ? f.left : f.right) > 0 else { continue }
                    #expect(driven.contains("\(g.id)_\(m)"), "\(intersection.id): \(g.id) \(m) is counted but not driven")
                }
            }
        }
        // SI-006 stands on an eastbound one-way row: traffic leaves east, none arrives from there.
        let export = try await SumoExport.load(from: store, intersection: "SI-006", corridor: nil, period: (1020, 1080), by: .admin)
        let edges = try export.plainNetwork().edges
        #expect(edges.contains("id=\"SI-006_to_SI-006_E\"") && !edges.contains("id=\"SI-006_E_to_SI-006\""))
        #expect(export.flows().contains { $0.id.hasPrefix("W_through_") && $0.to == "SI-006_to_SI-006_E" })
    }

    /// SI-009 with `storage_m` on the lane groups named (on no other), exported alone for 07:00-08:00.
    static func exportWithStorage(_ storage: [String: Double]) async throws -> SumoExport {
        let store = try await Self.store.value
        var feature = try #require(try await store.feature(layer: SignalizedIntersection.layer, id: "SI-009", by: .admin))
        let groups = try #require(feature.properties["lane_groups"]?.arrayValue).map { g -> JSONValue in
            guard var o = g.objectValue, let id = o["id"]?.stringValue else { return g }
            o["storage_m"] = storage[id].map { .number($0) }
            return .object(o)
        }
        feature.properties["lane_groups"] = .array(groups)
        let loaded = try await SumoExport.load(from: store, intersection: "SI-009", corridor: nil, period: (420, 480), by: .admin)
        let signal = SumoExport.Signal(intersection: try SignalizedIntersection(feature), plans: loaded.signals[0].plans,
                                       counts: loaded.signals[0].counts, intervalMinutes: loaded.signals[0].intervalMinutes)
        return try SumoExport(signals: [signal], period: loaded.period)
    }

    @Test("a turn bay is exported at its storage: the approach opens its lanes there, traffic enters upstream of it and the signal controls the part at the stop line")
    func sumoTurnBays() async throws {
        let export = try await Self.exportWithStorage(["NL": 30, "SL": 60.4, "EL": 400])
        let plain = try export.plainNetwork()
        // NL's bay: N's three lanes run the arm, a fourth (the left bay) opens 30 m back.
        #expect(plain.edges.contains("<edge id=\"SI-009_N_to_SI-009\" from=\"SI-009_N\" to=\"SI-009\" numLanes=\"3\""))
        #expect(plain.edges.contains("<split pos=\"-30\" lanes=\"0 1 2 3\" id=\"SI-009_N_to_SI-009_bay30m_opens\" idBefore=\"SI-009_N_to_SI-009\" idAfter=\"SI-009_N_to_SI-009_bay30m\"/>"), "\(plain.edges)")
        // Storage in whole metres; a bay as long as its arm (EL's 400 m of a 300 m arm) runs the whole arm.
        #expect(plain.edges.contains("pos=\"-60\"") && plain.edges.contains("SI-009_S_to_SI-009_bay60m"))
        #expect(!plain.edges.contains("SI-009_E_to_SI-009_bay") && plain.edges.contains("<edge id=\"SI-009_E_to_SI-009\" from=\"SI-009_E\" to=\"SI-009\" numLanes=\"3\""))
        // Lanes that go on keep their place; the bay is fed from the lane beside it.
        for (from, to) in [(0, 0), (1, 1), (2, 2), (2, 3)] {
            #expect(plain.connections.contains("<connection from=\"SI-009_N_to_SI-009\" to=\"SI-009_N_to_SI-009_bay30m\" fromLane=\"\(from)\" toLane=\"\(to)\"/>"))
        }
        // The signal's connections leave from the stop line's part; vehicles depart upstream of the bay.
        #expect(export.links().filter { $0.laneGroup.hasPrefix("N") }.allSatisfy { $0.from == "SI-009_N_to_SI-009_bay30m" })
        #expect(export.flows().filter { $0.approach == "N" }.allSatisfy { $0.from == "SI-009_N_to_SI-009" })
        // A bay on the right: the lanes the road brings keep their order, the new rightmost lane is fed from the road's rightmost.
        let right = SumoExport.Bays(signal: "X", approach: "N", edge: "e", throughLanes: [1, 2],
                                    openings: [.init(storage: 50, laneGroups: ["NR"], lanes: [0, 1, 2], edge: "e_bay50m"),
                                               .init(storage: 20, laneGroups: ["NL"], lanes: [0, 1, 2, 3], edge: "e_bay20m")])
        #expect(right.connections(intoPart: 1).map { [$0.from, $0.to] } == [[0, 0], [0, 1], [1, 2]])
        #expect(right.connections(intoPart: 2).map { [$0.from, $0.to] } == [[0, 0], [1, 1], [2, 2], [2, 3]])
        // An approach whose every lane group is a bay has no lane to feed them.
        let none = try await Self.exportWithStorage(["N": 50, "NL": 30])
        let refused = #expect(throws: ScenarioError.self) { try none.plainNetwork() }
        #expect(refused?.field == "signalized_intersections" && refused?.message.contains("SI-009 approach N") == true, "\(String(describing: refused))")
    }

    @Test("the district export refuses a counted movement that no road leaves by, naming the lane group, instead of dropping it")
    func aMovementWithNoRoadOutIsRefused() async throws {
        let store = try await Self.districtStore("signals-roads", layers: ["roads", "signalized_intersections", "traffic_counts", "signal_plans"])
        // Whole, the district exports.
        _ = try await SumoExport.load(from: store, intersection: nil, corridor: nil, period: (1020, 1080), by: .admin)
        // SI-006's northern approach also counted turning right, toward the west: its row is one-way eastbound.
        var feature = try #require(try await store.feature(layer: "signalized_intersections", id: "SI-006", by: .admin))
        var groups = try #require(feature.properties["lane_groups"]?.arrayValue)
        let n = try #require(groups.firstIndex { $0["id"]?.stringValue == "N" })
        var group = try #require(groups[n].objectValue)
        group["movements"] = .array((group["movements"]?.arrayValue ?? []) + [.string("right")])
        groups[n] = .object(group)
        feature.properties["lane_groups"] = .array(groups)
        var counts = try #require(feature.properties["turning_counts"]?.objectValue)
        var north = try #require(counts["N"]?.objectValue)
        north["right"] = 60
        counts["N"] = .object(north)
        feature.properties["turning_counts"] = .object(counts)
        try await store.upsert(layer: "signalized_intersections", features: [feature], by: .admin, at: nil)
        do {
            _ = try await SumoExport.load(from: store, intersection: nil, corridor: nil, period: (1020, 1080), by: .admin)
            Issue.record("a counted movement with no road out was exported")
        } catch let e as ScenarioError {
            #expect(e.field == "signalized_intersections")
            #expect(e.message.contains("SI-006 lane group N counts 60 veh/h right from N, toward W"), "\(e.message)")
        }
    }

    @Test("SUMO's time lost is timeLoss plus departDelay: the wait to enter an approach a queue has filled is the signal's too")
    func timeLostCountsTheWaitToEnter() throws {
        let trips = """
            <tripinfos>
                <tripinfo id="a" depart="600.00" departDelay="0.40" timeLoss="12.50"/>
                <tripinfo id="b" depart="601.00" departDelay="95.00" timeLoss="40.00"/>
                <tripinfo id="c" depart="602.00" timeLoss="3.00"/>
            </tripinfos>
            """
        let lost = try SumoEvaluation.timeLost(Data(trips.utf8))
        #expect(abs((lost["a"]?.lost ?? 0) - 12.9) < 1e-9 && lost["a"]?.entryWait == 0.4)
        #expect(lost["b"] == .init(lost: 135, entryWait: 95))
        #expect(lost["c"] == .init(lost: 3, entryWait: 0))
        #expect(throws: SignalTimingError.self) { try SumoEvaluation.timeLost(Data("<tripinfos><tripinfo></trip></tripinfos>".utf8)) }
    }

    @Test("SUMO's sampling error: vehicles of one cycle count as one batch, not as independent draws")
    func sumoDelayStandardErrorBatchesByCycle() throws {
        typealias Batch = SumoEvaluation.Batch
        // One batch (or none with vehicles) has no spread to measure.
        #expect(SumoEvaluation.standardError([Batch(total: 30, vehicles: 3)]) == nil)
        #expect(SumoEvaluation.standardError([Batch(total: 30, vehicles: 3), Batch()]) == nil)
        // A vehicle per batch: the textbook SD / √N (1, 2, 3, 4: SD 1.291, N 4).
        let single = try #require(SumoEvaluation.standardError((1...4).map { Batch(total: Double($0), vehicles: 1) }))
        #expect(abs(single - (5.0 / 3).squareRoot() / 2) < 1e-12)
        // Ten vehicles a cycle, each cycle's alike (delays 10, 20, 30 s): as uncertain as three draws
        // (SD 10 / √3), not thirty (≈ 1.5 s).
        let cycles = try #require(SumoEvaluation.standardError([10.0, 20, 30].map { Batch(total: 10 * $0, vehicles: 10) }))
        #expect(abs(cycles - 10 / 3.0.squareRoot()) < 1e-12)
        // Unequal batches: the mean is the vehicles' (ratio estimator), each batch weighs by its size.
        let unequal = try #require(SumoEvaluation.standardError([Batch(total: 20, vehicles: 2), Batch(total: 90, vehicles: 3)]))
        #expect(abs(unequal - (2.0 * (20 - 22.0 * 2) * (20 - 22.0 * 2) * 2).squareRoot() / 5) < 1e-12)
        // The 95 % interval is Student's t wide: few batches, a wide interval; many, the normal's.
        #expect(SumoEvaluation.studentT975(degreesOfFreedom: 1) == 12.706)
        #expect(SumoEvaluation.studentT975(degreesOfFreedom: 11) == 2.201)
        #expect(abs(SumoEvaluation.studentT975(degreesOfFreedom: 60) - 2.000) < 0.01)
        #expect(abs(SumoEvaluation.studentT975(degreesOfFreedom: 120) - 1.980) < 0.01)
        #expect(SumoEvaluation.studentT975(degreesOfFreedom: 0) == .infinity)
        let group = SumoEvaluation.GroupDelay(delay: 20, entryWait: 0, vehicles: 30, standardError: 1, batches: 12)
        #expect(group.confidence95 == 2.201)
        // Batches: five minutes of whole cycles in a long replay, shorter (down to a cycle) to make ten in a short one.
        #expect(SumoEvaluation.batchLength(cycle: 60, window: 3600) == 300)
        #expect(SumoEvaluation.batchLength(cycle: 118, window: 7200) == 354)
        #expect(SumoEvaluation.batchLength(cycle: 60, window: 600) == 60)
        #expect(SumoEvaluation.batchLength(cycle: 60, window: 1200) == 120)
        #expect(SumoEvaluation.batchLength(cycle: 90, window: 300) == 90)
    }

    @Test("replications: each lane group the mean of the runs' means, its error theirs together (degrees of freedom pooled) or, when a run has none, the spread of their means")
    func sumoReplicationsCombine() throws {
        func run(_ groups: [String: SumoEvaluation.GroupDelay], _ n: Int) -> SumoEvaluation {
            SumoEvaluation(version: "1.28.0", groups: groups, departed: n, measured: n)
        }
        let a = run(["N": .init(delay: 20, entryWait: 0, vehicles: 100, standardError: 1.2, batches: 12),
                     "S": .init(delay: 30, entryWait: 1, vehicles: 50, standardError: 2, batches: 12)], 150)
        let b = run(["N": .init(delay: 26, entryWait: 0.5, vehicles: 120, standardError: 1.6, batches: 11)], 130)
        let both = SumoEvaluation.combining([a, b])
        #expect(both.version == "1.28.0" && both.departed == 280 && both.measured == 280)
        let n = try #require(both.groups["N"])
        #expect(n.delay == 23 && n.entryWait == 0.25 && n.vehicles == 220 && n.batches == 22)
        #expect(abs((n.standardError ?? 0) - (1.2 * 1.2 + 1.6 * 1.6).squareRoot() / 2) < 1e-12)
        // A lane group one run did not measure is the other's alone.
        #expect(both.groups["S"] == a.groups["S"])
        // One run is itself.
        #expect(SumoEvaluation.combining([a]).groups == a.groups)
        // A run with too few batches for its own error: the three replications' spread gives one.
        let c = run(["N": .init(delay: 29, entryWait: 0, vehicles: 20, standardError: nil, batches: 3)], 20)
        let three = try #require(SumoEvaluation.combining([a, b, c]).groups["N"])
        #expect(three.delay == 25 && three.batches == 3)
        #expect(abs((three.standardError ?? 0) - ((25.0 + 1 + 16) / 2 / 3).squareRoot()) < 1e-12)
        #expect(abs((three.confidence95 ?? 0) - 4.303 * (three.standardError ?? 0)) < 1e-9)
        // Alone, such a run has none.
        #expect(SumoEvaluation.combining([c]).groups["N"]?.standardError == nil)
    }
}
