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

/// Adaptive re-timing (自适应配时) of the stored plans: one bounded step from the hour of counts before it,
/// once per counted interval when asked.
extension SignalStoreTests {
    @Test("adaptive re-timing steps the plan running at 'at' from the hour of counts before it, within the limits, as a new version of it")
    func retiming() async throws {
        let store = try await Self.store.value
        let stored = try await SignalPlanLayer.plans(of: "SI-004", from: store, by: .admin)
        let running = try #require(SignalPlanLayer.running(at: 8 * 60, among: stored))
        let id = try #require(running.feature.id?.description)
        // The controller's manual plan runs greens below the pedestrian minimums: the first step
        // raises them at once and says so; it is written as a new version of the running plan.
        let first = try await Self.run("signal-timing", ["intersections": ["SI-004"], "method": "webster-retiming", "at": "08:00", "write": true])
        let raised = try #require(first["plans"]?.arrayValue?.first)
        #expect(raised["from_plan"]?.stringValue == id && raised["feature_id"]?.stringValue == id && first["written"] == [.string(id)])
        #expect(raised["timing"]?["warnings"]?.arrayValue?.contains { $0["message"]?.stringValue?.contains("in one step") == true } == true)
        #expect(raised["period"]?["design_hour_start"] == "07:00")
        let after = try #require(SignalPlanLayer.running(at: 8 * 60, among: try await SignalPlanLayer.plans(of: "SI-004", from: store, by: .admin)))
        // From there on every step stays within the limits.
        for method in ["webster-retiming", "saturation-balancing"] {
            let result = try await Self.run("signal-timing", ["intersections": ["SI-004"], "method": .string(method), "at": "17:30",
                                                               "maximumCycleChange": 6, "maximumGreenChange": 4])
            let plan = try #require(result["plans"]?.arrayValue?.first)
            let timing = try #require(plan["timing"])
            #expect(timing["method"]?.stringValue == method)
            let cycle = try #require(timing["cycle_s"]?.doubleValue)
            #expect(abs(cycle - after.plan.cycle) <= 6 + 1e-6, "\(method): \(cycle) vs \(after.plan.cycle)")
            for (stage, now) in zip(timing["stages"]?.arrayValue ?? [], after.plan.stages) {
                #expect(abs((stage["green_s"]?.doubleValue ?? -99) - now.green) <= 4 + 1e-6, "\(method)")
            }
        }
        func named(_ inputs: [String: JSONValue]) async -> String? {
            do { _ = try await Self.run("signal-timing", inputs); return nil } catch let e as ProcessInputError { return e.input } catch { return "\(error)" }
        }
        #expect(await named(["intersections": ["SI-004"], "method": "scats"]) == "method")
        #expect(await named(["intersections": ["SI-004"], "method": "webster-retiming", "at": "25:00"]) == "at")
        #expect(await named(["intersections": ["SI-004"], "method": "webster-retiming", "at": "00:00"]) == "at")
        #expect(await named(["intersections": ["SI-004"], "at": "08:00"]) == "at")
        #expect(await named(["intersections": ["SI-004"], "method": "webster-retiming", "period": "07:00-09:00"]) == "period")
    }

    @Test("re-timing once per counted interval: a second run from the same counts takes no step and says which plan it skipped; without once every run steps")
    func retimingOnce() async throws {
        let store = try await Self.districtStore("signals-once", layers: ["signalized_intersections", "traffic_counts", "signal_plans"])
        let inputs: [String: JSONValue] = ["intersections": ["SI-004"], "method": "webster-retiming", "at": "08:00", "write": true, "once": true]
        let first = try await Self.run("signal-timing", inputs, store: store)
        let id = try #require(first["written"]?.arrayValue?.first?.stringValue)
        #expect(first["skipped"] == [])
        let versions = try await store.history(layer: SignalPlanLayer.layer, featureID: id, by: .admin).count
        let stepped = try #require(try await store.feature(layer: SignalPlanLayer.layer, id: id, by: .admin))
        let at = try #require(stepped.properties["inputs"]?["retimed_at"]?.stringValue)
        #expect(at.hasSuffix("T08:00"))

        let again = try await Self.run("signal-timing", inputs, store: store)
        #expect(again["written"] == [] && again["plans"] == [])
        #expect(again["skipped"] == [["intersection": "SI-004", "plan": .string(id), "retimed_at": .string(at)]])
        #expect(try await store.history(layer: SignalPlanLayer.layer, featureID: id, by: .admin).count == versions)
        #expect(try await store.feature(layer: SignalPlanLayer.layer, id: id, by: .admin) == stepped)

        // Without once, a run steps again (a planner converging by hand); at another time, once steps too.
        var always = inputs
        always["once"] = nil
        #expect(try await Self.run("signal-timing", always, store: store)["written"] == [.string(id)])
        var later = inputs
        later["at"] = "08:15"
        #expect(try await Self.run("signal-timing", later, store: store)["written"] == [.string(id)])
        #expect(try await store.history(layer: SignalPlanLayer.layer, featureID: id, by: .admin).count == versions + 2)

        func named(_ inputs: [String: JSONValue]) async -> String? {
            do { _ = try await Self.run("signal-timing", inputs, store: store); return nil } catch let e as ProcessInputError { return e.input } catch { return "\(error)" }
        }
        #expect(await named(["intersections": ["SI-004"], "once": true]) == "once")
    }
}
