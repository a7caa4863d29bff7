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

/// The sample district's signals, counts and corridor read back from a store and timed.
@Suite("Signal timing over the store")
struct SignalStoreTests {
    /// A SpatiaLite store with the district's signal layers, built once for the suite.
    static let store = Task<SpatiaLiteStore, any Error> {
        try await districtStore("signals", layers: ["signalized_intersections", "traffic_counts", "signal_plans", "signal_corridors"])
    }

    /// A new SpatiaLite store holding the sample district's `layers`.
    static func districtStore(_ name: String, layers ids: [String]) async throws -> SpatiaLiteStore {
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Layers", isDirectory: true).standardizedFileURL
        let store = try TemporaryDirectory.forProcess(name).openStore()
        let catalog = try LayerCatalog.load(directory: layers)
        let district = try SampleDistrict.generate()
        for id in ids {
            try await store.createLayer(try #require(catalog[id]))
            try await store.insert(layer: id, features: district[layer: id], by: .admin, at: nil)
        }
        return store
    }

    @Test("every district intersection reads as lane groups and a stage chain the kernel can time")
    func everyIntersectionTimes() async throws {
        let store = try await Self.store.value
        let all = try await SignalizedIntersection.all(from: store, by: .admin)
        #expect(all.count >= 20)
        for intersection in all {
            let timing = try SignalTiming.webster(intersection.demand)
            #expect(timing.plan.stages.allSatisfy { $0.green >= 10 }, "\(intersection.id)")
            // Every lane group runs in exactly one stage.
            let staged = intersection.demand.stages.flatMap { $0 }
            #expect(Set(staged) == Set(intersection.laneGroups.map(\.id)), "\(intersection.id)")
        }
        // Main-road crossings have a refuge island; 4-stage intersections run left turns in their own stages.
        #expect(all.contains { $0.demand.crossings.contains { $0.refugeIsland } })
        #expect(all.contains { $0.demand.stages.count == 4 } && all.contains { $0.demand.stages.count == 2 })
    }

    @Test("a weekday of counts: 96 intervals per intersection, an AM and a PM peak, plans per period")
    func weekdayCounts() async throws {
        let store = try await Self.store.value
        let intersection = try #require(try await SignalizedIntersection.all(from: store, by: .admin).first)
        let read = try await intersection.counts(from: store, by: .admin)
        let (counts, minutes) = (read.intervals, read.minutes)
        #expect(minutes == 15)
        #expect(counts.count == 96)
        // Counts per lane group add up to the approach counts: the lane groups' volumes sum to the rows'.
        let plans = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: nil,
                                             settings: SignalTimingSettings())
        let names = plans.map(\.period.name)
        #expect(names.contains("am-peak") && names.contains("pm-peak") && names.contains("night"))
        let am = try #require(plans.first { $0.period.name == "am-peak" })
        let night = try #require(plans.first { $0.period.name == "night" })
        #expect(am.period.start >= 6 * 60 && am.period.end <= 10 * 60 + 30, "\(am.period.label)")
        #expect(night.timing.cycle <= am.timing.cycle)
        // One period asked for: the busiest hour inside it.
        let one = try SignalPlanning.plans(for: intersection, counts: counts, intervalMinutes: minutes, period: (7 * 60, 9 * 60),
                                           settings: SignalTimingSettings())
        #expect(one.count == 1 && one[0].period.label == "07:00-09:00")
        #expect(throws: ScenarioError.self) {
            _ = try SignalPlanning.plans(for: intersection, counts: counts.filter { $0.start < 60 }, intervalMinutes: minutes,
                                         period: (7 * 60, 9 * 60), settings: SignalTimingSettings())
        }
    }

    @Test("the layer's saturation flow and turn factors are what the intersection is timed with")
    func layerSaturationFlow() async throws {
        let store = try await Self.store.value
        var feature = try #require(try await store.feature(layer: SignalizedIntersection.layer, id: "SI-001", by: .admin))
        let design = try SignalizedIntersection(feature)
        #expect(design.demand.saturationFlow == feature.properties["saturation_flow_pcu_h"]?.doubleValue)
        feature.properties["saturation_flow_pcu_h"] = 2000
        feature.properties["left_turn_factor"] = 0.9
        let measured = try SignalizedIntersection(feature)
        #expect(measured.demand.saturationFlow == 2000 && measured.demand.leftTurnFactor == 0.9)
        let before = try SignalTiming.webster(design.demand), after = try SignalTiming.webster(measured.demand)
        for (a, b) in zip(after.approaches, before.approaches) where a.flow > 0 {
            #expect(a.saturationFlow > b.saturationFlow, "\(a.id)")
        }
        feature.properties["left_turn_factor"] = 1.4
        let refused = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(try SignalizedIntersection(feature).demand) }
        #expect(refused?.field == "left_turn_factor")
    }

    @Test("a lane group's storage in the layer is what its queue is checked against: a short bay is warned of, naming it, a long one is not; a storage of 0 is refused, naming it")
    func layerStorage() async throws {
        let store = try await Self.store.value
        var feature = try #require(try await store.feature(layer: SignalizedIntersection.layer, id: "SI-009", by: .admin))
        // The district's own bays (60 m on its main road, 40 m on the other) are taken off, so only the one set here counts.
        let district = Dictionary(try #require(feature.properties["lane_groups"]?.arrayValue).compactMap { g in
            g["id"]?.stringValue.map { ($0, g["storage_m"]?.doubleValue) } }, uniquingKeysWith: { a, _ in a })
        #expect(district["NL"] == 60 && district["SL"] == 60 && district["EL"] == 40 && district["WL"] == 40 && district["N"] == .some(nil))
        var groups = try #require(feature.properties["lane_groups"]?.arrayValue).map { g -> JSONValue in
            guard var o = g.objectValue else { return g }
            o["storage_m"] = nil
            return .object(o)
        }
        let left = try #require(groups.firstIndex { $0.objectValue?["movements"]?.arrayValue == ["left"] })
        let id = try #require(groups[left].objectValue?["id"]?.stringValue)
        for (storage, warned) in [(7.5, true), (500.0, false)] {
            var group = try #require(groups[left].objectValue)
            group["storage_m"] = .number(storage)
            groups[left] = .object(group)
            feature.properties["lane_groups"] = .array(groups)
            let intersection = try SignalizedIntersection(feature)
            #expect(intersection.demand.approaches.first { $0.id == id }?.storage == storage)
            let timing = try SignalTiming.webster(intersection.demand)
            #expect(timing.warnings.contains { $0.code == .queueStorage && $0.approach == id } == warned, "\(storage) m")
            #expect(timing.warnings.filter { $0.code == .queueStorage }.allSatisfy { $0.approach == id })
        }
        var group = try #require(groups[left].objectValue)
        group["storage_m"] = .number(0)
        groups[left] = .object(group)
        feature.properties["lane_groups"] = .array(groups)
        let refused = #expect(throws: SignalTimingError.self) { try SignalTiming.webster(try SignalizedIntersection(feature).demand) }
        #expect(refused?.field.hasSuffix(".storage_m") == true)
    }

    @Test("a plan written to signal_plans carries the schema's fields and a new version replaces it")
    func writesPlans() async throws {
        let store = try await Self.store.value
        let intersection = try #require(try await SignalizedIntersection.load(id: "SI-001", from: store, by: .admin))
        let plan = try SignalPlanning.plans(for: intersection, counts: [], intervalMinutes: 15, period: nil, settings: SignalTimingSettings())[0]
        let feature = SignalPlanLayer.feature(for: intersection, plan: plan)
        let id = try #require(feature.id?.description)
        // The district ships each controller's current (manual, approved) plan.
        let current = try #require(try await store.feature(layer: SignalPlanLayer.layer, id: id, by: .admin))
        #expect(current.properties["method"] == "manual" && current.properties["approved_by"]?.stringValue != nil)
        let before = try await store.history(layer: SignalPlanLayer.layer, featureID: id, by: .admin).count
        try await store.upsert(layer: SignalPlanLayer.layer, features: [feature], by: .admin, at: nil)
        let longer = try SignalPlanning.plans(for: intersection, counts: [], intervalMinutes: 15, period: nil,
                                              settings: SignalTimingSettings(minimumCycle: 90))[0]
        try await store.upsert(layer: SignalPlanLayer.layer, features: [SignalPlanLayer.feature(for: intersection, plan: longer)],
                               by: .admin, at: nil)
        let history = try await store.history(layer: SignalPlanLayer.layer, featureID: id, by: .admin)
        #expect(history.count == before + 2)
        #expect(try await store.feature(layer: SignalPlanLayer.layer, id: id, by: .admin)?.properties["cycle_s"]?.doubleValue == 90)
        #expect(try await store.feature(layer: SignalPlanLayer.layer, id: id, by: .admin)?.properties["period"] == "all-day")
        #expect(try await SignalizedIntersection.load(id: "SI-999", from: store, by: .admin) == nil)
    }

    @Test("the district corridor runs along the main road through every inner signal on it, south to north, and coordinates")
    func corridor() async throws {
        let store = try await Self.store.value
        let page = try await store.query(layer: "signal_corridors", FeatureQuery(), by: .admin)
        let corridor = try #require(page.features.first)
        let ids = corridor.properties["intersections"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        #expect(ids.count >= 4)
        let distances = corridor.properties["distances_m"]?.arrayValue?.compactMap { $0.doubleValue } ?? []
        #expect(distances.count == ids.count - 1 && distances.allSatisfy { $0 > 0 })
        // Read as a corridor and coordinated: one common cycle, the bands its offsets give as reported.
        let stored = try await StoreSignalCorridor.load(id: "SC-001", from: store, by: .admin)
        #expect(stored.intersections.map(\.id) == ids)
        let plan = try CorridorTiming.plan(id: stored.id, intersections: try stored.coordinated(stored.intersections.map(\.demand)),
                                           links: stored.links)
        #expect(plan.timings.allSatisfy { $0.cycle == plan.cycle })
        let (b, bb) = try GreenWave.bandwidths(plan.corridor, cycle: plan.cycle, offsets: plan.wave.offsets)
        #expect(abs(b - plan.wave.outboundBandwidth) < 1e-6 && abs(bb - plan.wave.inboundBandwidth) < 1e-6)
        // A band opens in at least the direction the weighting favours (MAXBAND's k from the flows).
        #expect(plan.wave.objective > 0)
        // A one-way wave (this corridor's 83 s cycle leaves no band both ways) is named in the plan's report.
        let report = try JSONSerialization.jsonObject(with: JSONEncoder().encode(CorridorPlanReport(plan))) as? [String: Any]
        let warnings = report?["warnings"] as? [String] ?? []
        #expect((report?["progression"] as? String == "two-way") == warnings.isEmpty, "\(warnings)")
        if plan.wave.outboundBandwidth == 0 || plan.wave.inboundBandwidth == 0 {
            #expect(warnings.first?.hasPrefix("one-way progression") == true)
            // …with the shortest longer cycle (up to the maximum) whose wave runs both ways.
            let alternative = try #require(plan.twoWayAlternative?.wave)
            #expect(alternative.progression == .twoWay && alternative.cycle > plan.cycle && warnings.count == 2)
            #expect((report?["two_way_alternative"] as? [String: Any])?["cycle_s"] as? Double == alternative.cycle)
        }
        await #expect(throws: ScenarioError.self) { _ = try await StoreSignalCorridor.load(id: "SC-999", from: store, by: .admin) }
    }

    static let police = Caller.department(name: "公安局", role: .editor)

    /// Runs process `id` through the registry as `caller`, as the API and the CLI do.
    static func run(_ id: String, _ inputs: [String: JSONValue], caller: Caller = police, store: SpatiaLiteStore? = nil) async throws -> JSONValue {
        let shared = try await Self.store.value
        let store = store ?? shared
        let registry = ProcessRegistry.standard
        let process = try #require(registry[id])
        return try await registry.run(process.id, inputs: inputs, caller: caller, store: store)
    }

    @Test("a day on which an approach went uncounted in some intervals does not replace the whole day before it; read alone it is timed from its whole intervals, and its plans name those left out")
    func incompleteCounts() async throws {
        let store = try await Self.districtStore("signals-partial", layers: ["signalized_intersections", "traffic_counts", "signal_plans", "signal_corridors"])
        func row(_ approach: String, _ clock: String) -> Feature {
            Feature(id: .string("TC-SI-009-\(approach)-20260618\(clock.filter(\.isNumber))"), geometry: nil, properties: [
                "intersection": "SI-009", "approach": .string(approach), "start": .string("2026-06-18T\(clock):00+08:00"), "minutes": 15,
                "left": 20, "through": 150, "right": 25, "detector": "video",
            ])
        }
        let hour = ["07:00", "07:15", "07:30", "07:45"].flatMap { clock in ["N", "S", "E", "W"].map { row($0, clock) } }
        try await store.insert(layer: "traffic_counts", features: hour + [row("N", "08:00"), row("W", "08:15")], by: .admin, at: nil)
        let si = try #require(try await SignalizedIntersection.load(id: "SI-009", from: store, by: .admin))
        // 2026-06-18 covers an hour of its day: the plans stay those of 2026-06-17, counted whole, and say why.
        let read = try await si.counts(from: store, by: .admin)
        #expect(read.day == "2026-06-17" && read.intervals.count == 96 && read.leftOut.isEmpty)
        #expect(read.partialDays.map(\.day) == ["2026-06-18"] && read.partialDays.first?.whole == 4 && read.partialDays.first?.of == 96)
        // Read alone (no whole day), 2026-06-18 is timed from its whole intervals, naming those left out and the day as partial.
        let june18 = TemporalValue.interval(start: ISO8601DateFormatter().date(from: "2026-06-18T00:00:00+08:00")!, end: nil)
        let alone = try await si.counts(from: store, within: june18, by: .admin)
        #expect(alone.day == "2026-06-18" && alone.intervals.count == 4 && alone.minutes == 15)
        #expect(alone.leftOut.map(\.start) == [480, 495] && alone.leftOut[0].missing == ["E", "S", "W"] && alone.leftOut[1].missing == ["E", "N", "S"])
        let aloneNote = try #require(alone.leftOutNote)
        #expect(aloneNote.contains("2 15-minute intervals of 2026-06-18") && aloneNote.contains("08:00, 08:15")
                && aloneNote.contains("2026-06-18 is a partial day: its counts cover 4 of its 96 15-minute intervals (07:00-08:00)"), "\(aloneNote)")
        func marked(_ timing: JSONValue?) -> Bool {
            let notes = (timing?["warnings"]?.arrayValue ?? []).filter { $0["code"] == "counts-incomplete" }
            return notes.count == 1 && notes[0]["message"]?.stringValue?.contains("2026-06-18 is a partial day: its counts cover 4 of its 96 15-minute intervals (07:00-08:00)") == true
                && notes[0]["message"]?.stringValue?.contains("timed from 2026-06-17, the latest day counted whole") == true
        }
        let out = try await Self.run("signal-timing", ["intersections": ["SI-009"], "write": true], store: store)
        let plans = try #require(out["plans"]?.arrayValue)
        #expect(plans.count > 1)
        for plan in plans { #expect(marked(plan["timing"]), "\(plan["timing"]?["warnings"] ?? .null)") }
        // The evaluation of a stored plan and a corridor's plans read the same day, and say so too.
        let evaluated = try await Self.run("signal-evaluate", ["intersection": "SI-009", "simulate": "none"], store: store)
        #expect(marked(evaluated["evaluation"]), "\(evaluated["evaluation"]?["warnings"] ?? .null)")
        let wave = try await Self.run("green-wave", ["corridor": "SC-001", "period": "07:00-08:00"], store: store)
        let signals = try #require(wave["plan"]?["intersections"]?.arrayValue)
        #expect(signals.filter { marked($0) }.map { $0["intersection"]?.stringValue } == ["SI-009"])

        // A later day whose detectors counted the north arm alone is passed over, and said to be.
        let nextDay = ["07:00", "07:15"].map { clock in
            var f = row("N", clock)
            f.id = .string("TC-SI-009-N-20260619\(clock.filter(\.isNumber))")
            f.properties["start"] = .string("2026-06-19T\(clock):00+08:00")
            return f
        }
        try await store.insert(layer: "traffic_counts", features: nextDay, by: .admin, at: nil)
        let later = try await si.counts(from: store, by: .admin)
        #expect(later.day == "2026-06-17" && later.intervals.count == 96)
        #expect(later.passedOver.map(\.day) == ["2026-06-19"] && later.passedOver[0].intervals == 2 && later.passedOver[0].missing == ["E", "S", "W"])
        let note = try #require(later.leftOutNote)
        #expect(note.contains("the counts of 2026-06-19 (2 intervals) were passed over") && note.contains("timed from the counts of 2026-06-17")
                && note.contains("2026-06-18 is a partial day"), "\(note)")
        let retimed = try await Self.run("signal-timing", ["intersections": ["SI-009"]], store: store)
        for plan in try #require(retimed["plans"]?.arrayValue) {
            let warning = plan["timing"]?["warnings"]?.arrayValue?.first { $0["code"] == "counts-incomplete" }?["message"]?.stringValue
            #expect(warning?.contains("2026-06-19") == true, "\(warning ?? "no counts-incomplete warning")")
        }
        // With no whole interval at all, the plans fall back to the peak-hour turning counts, and say so.
        let onlyThatDay = TemporalValue.interval(start: ISO8601DateFormatter().date(from: "2026-06-19T00:00:00+08:00")!, end: nil)
        let none = try await si.counts(from: store, within: onlyThatDay, by: .admin)
        #expect(none.day == nil && none.intervals.isEmpty && none.leftOutNote?.contains("timed from the layer's peak-hour turning counts") == true,
                "\(none.leftOutNote ?? "no note")")
        // Today's counts are still being sent: a day not yet ended is not passed over.
        let sameDay = try await si.counts(from: store, now: ISO8601DateFormatter().date(from: "2026-06-19T09:00:00+08:00")!, by: .admin)
        #expect(sameDay.day == "2026-06-17" && sameDay.passedOver.isEmpty && sameDay.partialDays.map(\.day) == ["2026-06-18"])
    }

    @Test("signal-timing times every intersection per period; with write its plans become signal_plans versions of the owner")
    func timingProcess() async throws {
        let store = try await Self.store.value
        let all = try await Self.run("signal-timing", [:])
        let plans = try #require(all["plans"]?.arrayValue)
        let intersections = Set(plans.compactMap { $0["intersection"]?.stringValue })
        #expect(intersections.count == (try await SignalizedIntersection.all(from: store, by: .admin)).count)
        #expect(plans.allSatisfy { $0["counts"] == "traffic_counts" && ($0["timing"]?["cycle_s"]?.doubleValue ?? 0) >= 30 })
        #expect(all["written"] == [])
        // One period, written: a new version under the period's feature id, a proposal (not approved).
        let written = try await Self.run("signal-timing", ["intersections": ["SI-002"], "period": "07:00-09:00", "write": true])
        #expect(written["written"] == ["SP-SI-002-0700"])
        let stored = try #require(try await store.feature(layer: SignalPlanLayer.layer, id: "SP-SI-002-0700", by: .admin))
        let answered = try #require(written["plans"]?.arrayValue?.first?["timing"])
        #expect(stored.properties["cycle_s"]?.doubleValue == answered["cycle_s"]?.doubleValue)
        #expect(stored.properties["approved_by"] == .null && stored.properties["period_start"] == "07:00")
        // Evaluating the written plan for its own period gives the timing's own performance.
        let evaluated = try await Self.run("signal-evaluate", ["intersection": "SI-002", "plan": "SP-SI-002-0700", "period": "07:00-09:00", "simulate": "none"])
        for (id, a) in answered["approaches"]?.objectValue ?? [:] {
            let d = try #require(evaluated["evaluation"]?["approaches"]?[id]?["delay_s"]?.doubleValue)
            #expect(abs(d - (a["delay_s"]?.doubleValue ?? -1)) < 1e-6, "\(id)")
        }
        // An hour's analysis period: the same plan, a longer incremental delay wherever traffic runs below saturation.
        let hour = try await Self.run("signal-timing", ["intersections": ["SI-002"], "period": "07:00-09:00", "analysisPeriod": 1])
        let timedForHour = try #require(hour["plans"]?.arrayValue?.first?["timing"])
        #expect(timedForHour["cycle_s"] == answered["cycle_s"] && timedForHour["stages"] == answered["stages"])
        for (id, a) in answered["approaches"]?.objectValue ?? [:] where (a["x"]?.doubleValue ?? 1) < 1 && (a["flow_veh_h"]?.doubleValue ?? 0) > 0 {
            let d2 = try #require(timedForHour["approaches"]?[id]?["incremental_delay_s"]?.doubleValue)
            #expect(d2 > (a["incremental_delay_s"]?.doubleValue ?? .infinity), "\(id)")
        }
    }

    @Test("signal processes refuse before work: anonymous (counts are shared with departments), writing without the owner's editor role")
    func timingRefusals() async throws {
        let store = try await Self.store.value
        let registry = ProcessRegistry.standard
        let process = try #require(registry["signal-timing"])
        func refusal(_ inputs: [String: JSONValue], _ caller: Caller) async -> StoreError? {
            do { try await registry.validate(inputs, for: process, store: store, caller: caller); return nil } catch { return error as? StoreError }
        }
        #expect(await refusal(["intersections": ["SI-003"]], .anonymous)?.code == .unauthenticated)
        let planner = Caller.department(name: "自然资源和规划局", role: .editor)
        #expect(await refusal(["intersections": ["SI-003"]], planner) == nil)
        let forbidden = await refusal(["intersections": ["SI-003"], "write": true], planner)
        #expect(forbidden?.code == .forbidden && forbidden?.layer == SignalPlanLayer.layer)
        #expect(await refusal(["intersections": ["SI-003"], "write": true], Caller.department(name: "公安局", role: .viewer))?.code == .forbidden)
        #expect(await refusal(["intersections": ["SI-003"], "write": true], Self.police) == nil)
    }

    @Test("bad signal inputs are input errors naming the input")
    func badInputs() async throws {
        func named(_ id: String, _ inputs: [String: JSONValue]) async -> String? {
            do { _ = try await Self.run(id, inputs); return nil } catch let e as ProcessInputError { return e.input } catch { return "\(error)" }
        }
        #expect(await named("signal-timing", ["intersections": ["SI-999"]]) == "intersections")
        #expect(await named("signal-timing", ["intersections": ["SI-001"], "period": "09:00-07:00"]) == "period")
        #expect(await named("signal-timing", ["intersections": ["SI-001"], "period": "7-9"]) == "period")
        #expect(await named("signal-timing", ["minimumCycle": 120, "maximumCycle": 60]) == "maximumCycle")
        #expect(await named("signal-timing", ["intersections": ["SI-001"], "analysisPeriod": 0]) == "analysisPeriod")
        #expect(await named("signal-evaluate", ["intersection": "SI-001", "analysisPeriod": "1h"]) == "analysisPeriod")
        #expect(await named("signal-evaluate", ["intersection": "SI-001", "plan": "SP-SI-006-ALL"]) == "plan")
        #expect(await named("signal-evaluate", ["intersection": "SI-001", "plan": "SP-NOPE"]) == "plan")
        #expect(await named("green-wave", ["corridor": "SC-999"]) == "corridor")
        #expect(await named("green-wave", ["corridor": "SC-001", "cycleRange": [90]]) == "cycleRange")
        #expect(await named("green-wave", ["corridor": "SC-001", "cycleRange": [110, 90]]) == "cycleRange")
        // Below the cycle the corridor's critical intersection needs.
        #expect(await named("green-wave", ["corridor": "SC-001", "cycleRange": [40, 50]]) == "cycleRange")
        #expect(await named("green-wave", ["corridor": "SC-001", "compareOffsets": [0, 10]]) == "compareOffsets")
        #expect(await named("green-wave", ["corridor": "SC-001", "cycleObjective": "delay"]) == "cycleObjective")
        #expect(await named("green-wave", ["corridor": "SC-001", "cycleRange": [80, 100], "cycleObjective": "speed"]) == "cycleObjective")
        #expect(await named("green-wave", ["corridor": "SC-001", "compareOffsets": ["0", 10]]) == "compareOffsets")
        #expect(await named("green-wave", ["corridor": "SC-001", "offsetObjective": "bandwidth"]) == "offsetObjective")
        #expect(await named("green-wave", ["corridor": "SC-001", "cycleRange": [80, 100], "cycleObjective": "band", "offsetObjective": "delay"]) == "cycleObjective")
    }

    /// A JSON file of `Models/signals` as a process input value.
    static func model(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Models/signals/\(name)").standardizedFileURL
        return try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
    }

    @Test("an intersection or a corridor given inline is timed as signal plan --input and signal corridor --input time it, reads no layer (an anonymous caller may run it), and what is wrong in it names its JSON path")
    func inlineDocuments() async throws {
        let intersection = try Self.model("intersection-example.json")
        let timed = try await Self.run("signal-timing", ["intersection": intersection], caller: .anonymous)
        let demand = try SignalDocument.decode(IntersectionDemand.self, from: JSONEncoder().encode(intersection))
        let expected = try SignalProcessInputs.json(IntersectionTimingReport(try SignalTiming.webster(demand, settings: SignalTimingSettings())))
        #expect(timed["plans"]?.arrayValue?.first?["timing"] == expected)
        #expect(timed["plans"]?.arrayValue?.first?["intersection"] == "IX-0043")
        #expect(timed["written"] == [])
        // signal-evaluate replays that plan: evaluated at the flows it was timed for, it is the same plan.
        let evaluated = try await Self.run("signal-evaluate", ["intersection": intersection, "simulate": "none"], caller: .anonymous)
        #expect(evaluated["counts"] == "input" && evaluated["plan_id"] == "")
        #expect(evaluated["evaluation"]?["approaches"] == expected["approaches"] && evaluated["evaluation"]?["cycle_s"] == expected["cycle_s"])
        #expect(evaluated["evaluation"]?["stages"] == expected["stages"])
        let corridor = try Self.model("corridor-example.json")
        let waved = try await Self.run("green-wave", ["corridor": corridor, "offsetObjective": "delay"], caller: .anonymous)
        let plan = try #require(waved["plan"])
        #expect(plan["corridor"] == "EXAMPLE" && plan["offset_objective"] == "delay")
        #expect(plan["intersections"]?.arrayValue?.count == 4)
        #expect(waved["diagram"]?.stringValue?.hasPrefix("<svg") == true)

        func refused(_ id: String, _ inputs: [String: JSONValue]) async -> ProcessInputError? {
            do { _ = try await Self.run(id, inputs, caller: .anonymous); return nil } catch { return error as? ProcessInputError }
        }
        func with(_ document: JSONValue, _ change: (inout [String: JSONValue]) -> Void) -> JSONValue {
            var object = document.objectValue ?? [:]
            change(&object)
            return .object(object)
        }
        let unknownStage = with(intersection) { $0["stages"] = [["N", "Q"], ["W", "E"]] }
        var e = await refused("signal-timing", ["intersection": unknownStage])
        #expect(e?.input == "intersection" && e?.reason.hasPrefix("stages[0][1]: names no approach: 'Q'") == true)
        let misspelt = with(intersection) { $0["all_red"] = 2 }
        e = await refused("signal-timing", ["intersection": misspelt])
        #expect(e?.input == "intersection" && e?.reason.hasPrefix("all_red: unknown field") == true)
        let noLanes = with(intersection) { $0["approaches"] = [["id": "N", "flows_veh_h": ["through": 100]]] }
        e = await refused("signal-timing", ["intersection": noLanes])
        #expect(e?.input == "intersection" && e?.reason == "approaches[0].lanes: is required")
        let negative = with(intersection) { $0["approaches"] = [["id": "N", "lanes": 1, "flows_veh_h": ["through": -5]]] }
        e = await refused("signal-timing", ["intersection": negative])
        #expect(e?.input == "intersection" && e?.reason.hasPrefix("approaches[0].flows_veh_h.through: must be a number ≥ 0") == true)
        #expect(await refused("signal-timing", ["intersection": "SI-001"])?.input == "intersection")
        #expect(await refused("signal-evaluate", ["intersection": intersection, "plan": "SP-SI-001-ALL", "simulate": "none"])?.input == "plan")
        let armless = with(intersection) { $0["approaches"] = [["id": "A", "lanes": 1, "flows_veh_h": ["through": 100]]]; $0["stages"] = [["A"]] }
        e = await refused("signal-evaluate", ["intersection": armless, "simulate": "none"])
        #expect(e?.input == "intersection" && e?.reason.hasPrefix("approaches[0].arm:") == true)
        #expect(await refused("signal-timing", ["intersection": intersection, "write": true])?.input == "write")
        #expect(await refused("signal-timing", ["intersection": intersection, "intersections": ["SI-001"]])?.input == "intersections")
        let oneSignal = with(corridor) {
            $0["intersections"] = .array(Array(corridor["intersections"]?.arrayValue?.prefix(1) ?? []))
            $0["links"] = []
        }
        e = await refused("green-wave", ["corridor": oneSignal])
        #expect(e?.input == "corridor" && e?.reason.hasPrefix("intersections: a corridor needs at least two signals") == true)
        #expect(await refused("green-wave", ["corridor": corridor, "period": "07:00-09:00"])?.input == "period")
        #expect(await refused("green-wave", ["corridor": corridor, "cycleRange": [10, 20]])?.input == "cycleRange")
        // A stored intersection still needs a token: the counts are shared with departments.
        await #expect(throws: StoreError.self) { _ = try await Self.run("signal-timing", ["intersections": ["SI-001"]], caller: .anonymous) }
    }

    @Test("green-wave coordinates SC-001 on one cycle, draws its diagram, and writes the corridor's plans with their offsets")
    func greenWaveProcess() async throws {
        let store = try await Self.store.value
        let result = try await Self.run("green-wave", ["corridor": "SC-001", "period": "17:00-18:00", "write": true])
        let plan = try #require(result["plan"])
        let cycle = try #require(plan["cycle_s"]?.doubleValue)
        let timings = try #require(plan["intersections"]?.arrayValue)
        #expect(timings.allSatisfy { $0["cycle_s"]?.doubleValue == cycle })
        #expect(result["diagram"]?.stringValue?.hasPrefix("<svg") == true)
        let written = (result["written"]?.arrayValue ?? []).compactMap { $0.stringValue }
        #expect(written.count == timings.count)
        for (id, timing) in zip(written, timings) {
            let feature = try #require(try await store.feature(layer: SignalPlanLayer.layer, id: id, by: .admin))
            #expect(feature.properties["corridor"] == "SC-001" && feature.properties["method"] == "green-wave")
            let offset = try #require(feature.properties["offset_s"]?.doubleValue)
            #expect(abs(offset - (timing["offset_s"]?.doubleValue ?? -1)) < 1e-9 && feature.properties["period_start"] == "17:00")
        }
        // A cycle range: the common cycle is chosen in it, never below what the critical intersection needs.
        let ranged = try #require(try await Self.run("green-wave", ["corridor": "SC-001", "period": "17:00-18:00", "cycleRange": [60, 120]])["plan"])
        let chosen = try #require(ranged["cycle_s"]?.doubleValue)
        #expect(ranged["cycle_range_s"] == [60, 120] && ranged["critical_cycle_s"]?.doubleValue == cycle)
        #expect(chosen >= cycle && chosen <= 120 && ranged["two_way_alternative"] == nil)
        // Each direction's delay under the wave, and the same plans at the offsets given to compare.
        let directions = try #require(plan["directions"]?.arrayValue)
        #expect(directions.map { $0["direction"]?.stringValue } == ["outbound", "inbound"])
        #expect(directions.allSatisfy { $0["signals"]?.arrayValue?.count == timings.count && ($0["delay_s"]?.doubleValue ?? -1) > 0 })
        let zero = Array(repeating: JSONValue.number(0), count: timings.count)
        let compared = try #require(try await Self.run("green-wave", ["corridor": "SC-001", "period": "17:00-18:00",
                                                                       "compareOffsets": .array(zero)])["plan"]?["at_compared_offsets"])
        #expect(compared["offsets_s"]?.arrayValue?.map(\.doubleValue) == Array(repeating: 0, count: timings.count))
        #expect(compared["directions"]?.arrayValue?.count == 2)
        #expect(compared["mean_control_delay_s"]?.doubleValue != nil)
        // Offsets for the corridor's delay: the same cycle and greens, no more delay than the band's, whose figures come beside.
        #expect(plan["offset_objective"] == "band" && plan["at_band_offsets"] == nil)
        let lowest = try #require(try await Self.run("green-wave", ["corridor": "SC-001", "period": "17:00-18:00", "offsetObjective": "delay"])["plan"])
        #expect(lowest["offset_objective"] == "delay" && lowest["cycle_s"]?.doubleValue == cycle)
        #expect(lowest["intersections"]?.arrayValue?.map { $0["stages"] } == timings.map { $0["stages"] })
        let band = try #require(lowest["at_band_offsets"])
        #expect(band["mean_control_delay_s"] == plan["mean_control_delay_s"] && band["outbound_bandwidth_s"] == plan["outbound_bandwidth_s"])
        #expect((lowest["mean_control_delay_s"]?.doubleValue ?? .infinity) <= (plan["mean_control_delay_s"]?.doubleValue ?? 0) + 1e-9)
    }
}
