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
            #expect(e.message.contains("SUMO could not replay plan SP-SI-006-ALL of SI-006") && e.message.contains("false failed (exit status 1)"), "\(e.message)")
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
