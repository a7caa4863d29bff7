import ArgumentParser
import Foundation
import GeoCore
import SignalSim
import Scenarios
import Signals

/// `citytwin signal …`: signal timing for traffic engineers.
struct SignalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Traffic-signal timing: plans from counts, corridor green waves, time–space diagrams.",
        subcommands: [SignalPlanCommand.self, SignalCorridorCommand.self, SignalEvaluateCommand.self, SignalExportSumoCommand.self])
}

/// Timing bounds shared by the signal commands.
struct SignalTimingOptions: ParsableArguments {
    @Option(name: .customLong("min-cycle"), help: "Shortest cycle a controller may run (s).")
    var minimumCycle: Double = 30

    @Option(name: .customLong("max-cycle"), help: "Longest cycle a controller may run (s).")
    var maximumCycle: Double = 180

    @Option(name: .customLong("min-green"), help: "Shortest displayed vehicle green of any stage (s).")
    var minimumGreen: Double = 10

    @Option(name: .customLong("walking-speed"), help: "Design walking speed for pedestrian minimum greens (m/s).")
    var walkingSpeed: Double = 1.0

    @Option(name: .customLong("analysis-period"),
            help: "HCM analysis period T of the incremental delay and overflow queue (h): 0.25 for 15-minute flow rates, 1 for an hour of steady flow.")
    var analysisPeriod: Double = 0.25

    func validate() throws { try Self.check(analysisPeriod: analysisPeriod) }

    /// `--analysis-period` within `SignalTimingSettings.analysisPeriods`, for every command that takes it.
    static func check(analysisPeriod t: Double) throws {
        let range = SignalTimingSettings.analysisPeriods
        guard t.isFinite, range.contains(t) else {
            throw ValidationError("--analysis-period must be between \(range.lowerBound) and \(range.upperBound) hours (got \(t))")
        }
    }

    var settings: SignalTimingSettings {
        SignalTimingSettings(minimumCycle: minimumCycle, maximumCycle: maximumCycle, minimumGreen: minimumGreen,
                             walkingSpeed: walkingSpeed, analysisPeriod: analysisPeriod)
    }

    /// The bounds as the signal processes' inputs.
    var processInputs: [String: JSONValue] {
        ["minimumCycle": .number(minimumCycle), "maximumCycle": .number(maximumCycle), "minimumGreen": .number(minimumGreen),
         "walkingSpeed": .number(walkingSpeed), "analysisPeriod": .number(analysisPeriod)]
    }
}

/// Prints one timing as a table: cycle and Y, each stage's greens, each lane group's performance.
func printTiming(_ t: JSONValue, title: String) {
    func n(_ v: JSONValue?, _ format: String = "%.0f") -> String { v?.doubleValue.map { String(format: format, $0) } ?? "-" }
    print("\(title): cycle \(n(t["cycle_s"])) s, offset \(n(t["offset_s"])) s, Y = \(n(t["Y"], "%.3f")), lost time \(n(t["lost_time_s"])) s, mean delay \(n(t["mean_delay_s"], "%.1f")) s/veh")
    for (i, s) in (t["stages"]?.arrayValue ?? []).enumerated() {
        let named = (s["approaches"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: "+")
        let groups = named.isEmpty ? "(pedestrians only)" : named
        print("  stage \(i + 1) \(groups): green \(n(s["green_s"])) s, amber \(n(s["amber_s"])) s, all-red \(n(s["all_red_s"])) s")
    }
    // An approach a warning is about, or whose figures its blocking changes, shows the warning's code beside
    // its figures, so its delay is never read alone.
    var marks: [String: [String]] = [:]
    for w in t["warnings"]?.arrayValue ?? [] {
        guard let code = w["code"]?.stringValue else { continue }
        let groups = [w["approach"]?.stringValue].compactMap { $0 } + (w["affects"]?.arrayValue ?? []).compactMap(\.stringValue)
        for g in groups where !(marks[g]?.contains(code) ?? false) { marks[g, default: []].append(code) }
    }
    for (id, a) in (t["approaches"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
        let marked = marks[id].map { " (see warning: \($0.joined(separator: ", ")))" } ?? ""
        if a["uncontrolled"]?.boolValue == true {
            let chain = (t["stages"]?.arrayValue ?? []).map { ($0["approaches"]?.arrayValue ?? []).compactMap(\.stringValue) }
            let (kind, wait) = StageChain.alwaysGreen(id, in: chain)
                ? ("always green (in every stage", "") : ("free right turn (in no stage", " without the wait to yield")
            print("  \(id): \(kind): the signal never stops it), x = \(n(a["x"], "%.2f")) of its saturation flow, delay \(n(a["delay_s"], "%.1f")) s/veh\(wait), LOS \(a["los"]?.stringValue ?? "-")\(marked)")
            continue
        }
        let storage = a["storage_m"]?.doubleValue.map { String(format: " of %.0f m storage", $0) } ?? ""
        let queue95 = a["queue_95_veh_lane"]?.doubleValue.map { String(format: " (95th percentile %.0f veh a lane, %.0f m%@)", $0, a["queue_95_m"]?.doubleValue ?? 0, storage) } ?? ""
        // The site conditions the lane group gave, with the factor each put on its saturation flow.
        let site = (a["saturation_factors"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
            .map { "\($0.key.replacingOccurrences(of: "_", with: " ")) ×\(n($0.value, "%.2f"))" }
        let conditions = site.isEmpty ? "" : ", saturation \(n(a["saturation_veh_h"])) veh/h (site: \(site.joined(separator: ", ")))"
        print("  \(id): x = \(n(a["x"], "%.2f"))\(conditions), delay \(n(a["delay_s"], "%.1f")) s/veh, queue \(n(a["queue_veh"], "%.1f")) veh\(queue95), LOS \(a["los"]?.stringValue ?? "-")\(marked)")
    }
    for (id, c) in (t["crossings"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
        let island = c["island_wait_s"]?.doubleValue.map { String(format: ", then up to %.0f s on the refuge island", $0) } ?? ""
        let stage = (c["stage"]?.doubleValue).map { String(format: "%.0f", $0 + 1) } ?? "-"
        print("  crossing \(id) (stage \(stage)): pedestrian delay \(n(c["delay_s"], "%.1f")) s, longest wait \(n(c["longest_wait_s"])) s\(island), LOS \(c["los"]?.stringValue ?? "-")")
    }
    for w in t["warnings"]?.arrayValue ?? [] {
        print("  warning: \(w["code"]?.stringValue ?? ""): \(w["message"]?.stringValue ?? "")")
    }
}

/// Reads a JSON document of type `T` from a file (`-` for standard input), naming the file and
/// the JSON path of whatever is wrong.
func readSignalJSON<T: Decodable>(_ type: T.Type, from path: String) throws -> T {
    let data: Data
    do {
        data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CommandFailure("\(path): cannot be read (\(error.localizedDescription))")
    }
    do {
        return try SignalDocument.decode(T.self, from: data)
    } catch {
        throw CommandFailure("\(path): \(error)")
    }
}

/// `citytwin signal plan`: a Webster plan for one intersection, from a JSON description
/// (`--input`) or from the store's layers and counts (`--intersection`, the `signal-timing` process).
struct SignalPlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Times one intersection (Webster; HCM delay and LOS per approach), from a JSON file or from the store's counts.",
        discussion: """
        --input reads one intersection as JSON: {"id", "amber_s", "all_red_s", "startup_lost_s",
        "approaches": [{"id", "lanes", "saturation_veh_h_lane", "flows_veh_h": {"through", "left", "right"}, "arm", "storage_m"}],
        "stages": [["N", "S"], ["W", "E"]], "crossings": [{"id", "length_m", "refuge_island", "stage"}]}; optional, as measured
        at the site: "saturation_flow_pcu_h" (through lane, for approaches without their own), "left_turn_factor",
        "right_turn_factor", "permitted_left_critical_gap_s", "permitted_left_follow_up_s", "incremental_delay_factor".
        An approach's "saturation_veh_h_lane" is what a lane of its through traffic discharges (GB 50647's basic
        saturation flow, HCM's s0): its left and right turns are discounted from it by the turn factors, and lefts
        through opposing traffic in their stage by that flow, as from the intersection's base.
        An approach's site conditions, optional, each a factor on its saturation flow: "lane_width_m" (GB 50647: 1 for
        lanes of 3.0-3.5 m), "grade_pct" (uphill positive), "heavy_vehicles_pct" (a heavy vehicle worth 2 cars) and
        "buses_stopping_veh_h" (buses stopping within 75 m of the stop line), the last three HCM 2000's; leave them out
        where "saturation_veh_h_lane" was measured on those lanes. SUMO replays the heavy vehicles as its own (lighter) trucks, not the rest.
        "arm" (N, S, E or W) is where an approach whose id is not a compass arm arrives from, for the lefts it opposes.
        An approach of right turns alone may run in no stage: a free right turn (渠化右转), never stopped by the signal.
        An approach in every stage (of two or more) is never stopped either (常绿, e.g. the far side's through at a T junction).
        A stage may name no approach when a crossing is walked in it: a pedestrian-only stage (行人专用相位阶段).
        A field not listed here is refused, naming it (a misspelt optional field would otherwise time with its default).
        --intersection times a stored signalized_intersections feature (--all: every one) from its latest ended day of
        traffic_counts (the intervals in which every approach was counted): one plan per time-of-day period, or for
        --period; --write stores them as signal_plans versions. Re-timing reads the newest counts, also today's.
        """)

    @Option(help: "The intersection as JSON (a file, or - for standard input).")
    var input: String?

    @Option(help: "A stored intersection id (signalized_intersections), e.g. SI-006.")
    var intersection: String?

    @Flag(help: "Every stored intersection (the district re-timed).")
    var all = false

    @Option(help: "A time of day HH:MM-HH:MM to time (with --intersection or --all): the busiest hour of the counts in it.")
    var period: String?

    @Flag(help: "Write the plans as signal_plans versions (with --intersection or --all).")
    var write = false

    @Option(help: "webster (new plans per period), or adaptive re-timing of the running plan: webster-retiming or saturation-balancing.")
    var method: String = "webster"

    @Option(help: "HH:MM when a re-timing step is taken (default: the end of the last counted interval).")
    var at: String?

    @Flag(help: "Re-timing: skip a plan already re-timed from the same counted interval (a scheduled run before new counts arrive takes no second step).")
    var once = false

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    @OptionGroup var timing: SignalTimingOptions
    @OptionGroup var store: StoreOption

    func validate() throws {
        guard [input != nil, intersection != nil, all].filter({ $0 }).count == 1 else {
            throw ValidationError("give one of --input FILE, --intersection ID or --all")
        }
        if input != nil, period != nil || write || at != nil || method != "webster" || once {
            throw ValidationError("--period, --write, --method, --at and --once need --intersection or --all")
        }
    }

    func run() async throws {
        if intersection != nil || all {
            var inputs = timing.processInputs
            if let intersection { inputs["intersections"] = [.string(intersection)] }
            if let period { inputs["period"] = .string(period) }
            if write { inputs["write"] = true }
            if method != "webster" { inputs["method"] = .string(method) }
            if let at { inputs["at"] = .string(at) }
            if once { inputs["once"] = true }
            let result = try await ProcessRunner(store: store.path).run("signal-timing", inputs)
            if json { return try printJSONDocument(result) }
            for plan in result["plans"]?.arrayValue ?? [] {
                let p = plan["period"]
                let step = plan["from_plan"]?.stringValue.map { "re-timed step of \($0), " } ?? ""
                printTiming(plan["timing"] ?? .null, title: "\(step)\(plan["feature_id"]?.stringValue ?? "") \(p?["name"]?.stringValue ?? "") \(p?["start"]?.stringValue ?? "")-\(p?["end"]?.stringValue ?? "") (design hour from \(p?["design_hour_start"]?.stringValue ?? "-"), \(plan["counts"]?.stringValue ?? ""))")
            }
            for s in result["skipped"]?.arrayValue ?? [] {
                print("\(s["plan"]?.stringValue ?? "") of \(s["intersection"]?.stringValue ?? ""): not stepped, already re-timed from the counts up to \(s["retimed_at"]?.stringValue ?? "")")
            }
            if let written = result["written"]?.arrayValue, !written.isEmpty {
                print("written to signal_plans: \(written.compactMap(\.stringValue).joined(separator: ", "))")
            }
            return
        }
        let input = input ?? "-"
        let demand = try readSignalJSON(IntersectionDemand.self, from: input)
        let result: IntersectionTiming
        do { result = try SignalTiming.webster(demand, settings: timing.settings) } catch let e as SignalTimingError {
            throw CommandFailure(presenting: e, in: input)
        }
        if json { return try printJSONDocument(IntersectionTimingReport(result)) }
        let report = try JSONOutput.value(IntersectionTimingReport(result))
        printTiming(report, title: result.intersection)
    }
}

/// `citytwin signal evaluate --intersection ID [--plan ID] [--period HH:MM-HH:MM]`: how a stored
/// plan performs for the counts (the `signal-evaluate` process).
struct SignalEvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Evaluates a stored signal plan against an intersection's counts: x, delay, queue and LOS per lane group.",
        discussion: """
        --sumo also replays the plan in SUMO (sumo and netconvert on PATH, in $SUMO_HOME/bin or in .venv/bin: PyPI
        eclipse-sumo) at the period's design-hour flows, after a 600 s warm-up, and prints per lane group the predicted
        delay beside SUMO's baseline-corrected delay (time lost under the plan minus time lost in a run of the vehicle's
        approach alone, permanently green: the same vehicles, no crossing or opposing traffic; time lost is SUMO's
        timeLoss plus departDelay, the wait to enter an arm a queue fills).
        """)

    @Option(help: "A stored intersection id (signalized_intersections), e.g. SI-006.")
    var intersection: String?

    @Option(help: "An intersection as JSON, as signal plan --input reads it (a file, or - for standard input): its own Webster plan at its own flows; no store is read.")
    var input: String?

    @Option(help: "A signal_plans feature id (default: the plan running at the period's start, else the all-day plan).")
    var plan: String?

    @Option(help: "A time of day HH:MM-HH:MM whose busiest hour of counts to evaluate against (default: the plan's period).")
    var period: String?

    @Flag(help: "Also replay the plan in SUMO (the signal-evaluate process's simulate=sumo): predicted vs baseline-corrected SUMO delay per lane group.")
    var sumo = false

    @Option(name: .customLong("sumo-seconds"), help: "Seconds of traffic measured in SUMO after the warm-up (300…7200).")
    var sumoSeconds: Int = 3600

    @Option(help: "Seed of the simulated arrivals and of SUMO (the same seed replays the same vehicles).")
    var seed: Int = 1

    @Option(help: "SUMO runs, with seeds --seed, --seed + 1, …: each lane group's SUMO delay is their mean (1…10; the signals reference checks three).")
    var replications: Int = 1

    @Option(name: .customLong("analysis-period"),
            help: "HCM analysis period T of the predicted incremental delay (h, default 0.25; 1 for an hour of steady flow).")
    var analysisPeriod: Double?

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    @OptionGroup var store: StoreOption

    func validate() throws {
        if !sumo, sumoSeconds != 3600 || seed != 1 || replications != 1 { throw ValidationError("--sumo-seconds, --seed and --replications need --sumo") }
        if let analysisPeriod { try SignalTimingOptions.check(analysisPeriod: analysisPeriod) }
        guard (input == nil) != (intersection == nil) else { throw ValidationError("give either --intersection ID or --input FILE") }
        if input != nil, plan != nil || period != nil { throw ValidationError("--plan and --period need --intersection") }
    }

    func run() async throws {
        let inline = try input.map { try readSignalJSON(JSONValue.self, from: $0) }
        var inputs: [String: JSONValue] = ["intersection": inline ?? .string(intersection ?? ""), "simulate": .string(sumo ? "sumo" : "none")]
        if let plan { inputs["plan"] = .string(plan) }
        if let period { inputs["period"] = .string(period) }
        if let analysisPeriod { inputs["analysisPeriod"] = .number(analysisPeriod) }
        if sumo {
            inputs["sumoSeconds"] = .number(Double(sumoSeconds))
            inputs["seed"] = .number(Double(seed))
            inputs["replications"] = .number(Double(replications))
        }
        let bar = sumo ? ProgressBar("SUMO replay of \(intersection ?? inline?["id"]?.stringValue ?? "")") : nil
        let progress = bar?.progress ?? .ignored
        let result = try await inline != nil ? ProcessRunner.runReadingNoLayer("signal-evaluate", inputs, progress: progress)
            : ProcessRunner(store: store.path).run("signal-evaluate", inputs, progress: progress)
        bar?.finish(.stage("done", fraction: 1))
        if json { return try printJSONDocument(result) }
        let p = result["period"]
        let title = inline.map { "\($0["id"]?.stringValue ?? "")'s Webster plan under its own flows" }
            ?? "\(result["plan_id"]?.stringValue ?? "") under \(p?["start"]?.stringValue ?? "")-\(p?["end"]?.stringValue ?? "") flows (design hour from \(p?["design_hour_start"]?.stringValue ?? "-"), \(result["counts"]?.stringValue ?? ""))"
        printTiming(result["evaluation"] ?? .null, title: title)
        guard let s = result["sumo"] else { return }
        func n(_ v: JSONValue?, _ format: String = "%.1f") -> String { v?.doubleValue.map { String(format: format, $0) } ?? "-" }
        let seeds = (s["seeds"]?.arrayValue ?? []).map { n($0, "%.0f") }
        print("SUMO \(s["version"]?.stringValue ?? "") (\(seeds.count > 1 ? "seeds \(seeds.joined(separator: ", ")), each" : "seed \(n(s["seed"], "%.0f")),") \(n(s["measured_s"], "%.0f")) s measured from \(s["measured_from"]?.stringValue ?? "-") after a \(n(s["warm_up_s"], "%.0f")) s warm-up, \(n(s["vehicles_measured"], "%.0f")) of \(n(s["vehicles_departed"], "%.0f")) vehicles measured): baseline-corrected delay")
        for (id, a) in (s["approaches"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
            let margin = a["sumo_delay_ci95_s"]?.doubleValue
            let noise = margin.map { " ± \(String(format: "%.1f", $0))" } ?? ""
            let inside = margin.flatMap { m in a["difference_s"]?.doubleValue.map { abs($0) <= m ? " (within SUMO's sampling error)" : "" } } ?? ""
            let bySeed = a["sumo_delay_by_seed_s"]?.arrayValue ?? []
            let each = bySeed.count > 1 ? " (\(bySeed.map { n($0) }.joined(separator: ", ")))" : ""
            print("  \(id): x = \(n(a["x"], "%.2f")), predicted \(n(a["predicted_delay_s"])) s/veh (Webster \(n(a["webster_delay_s"]))), SUMO \(n(a["sumo_delay_s"]))\(noise) s/veh\(each) over \(n(a["vehicles"], "%.0f")) vehicles, difference \(n(a["difference_s"], "%+.1f")) s\(inside)")
        }
        if let g = s["agreement"], (g["lane_groups"]?.doubleValue ?? 0) > 0 {
            print("  lane groups with x ≤ \(n(g["x_at_most"])): mean |difference| \(n(g["mean_abs_difference_s"], "%.2f")) s, max \(n(g["max_abs_difference_s"], "%.2f")) s; \(n(g["within_sampling_error"], "%.0f")) of \(n(g["lane_groups"], "%.0f")) within SUMO's 95 % sampling error (the ± above)")
            let marked = (g["marked_lane_groups"]?.arrayValue ?? []).compactMap(\.stringValue)
            if !marked.isEmpty, let u = g["unmarked"] {
                print("  without the lane groups a warning marks (\(marked.joined(separator: ", "))): \(n(u["lane_groups"], "%.0f")) lane groups, mean |difference| \(n(u["mean_abs_difference_s"], "%.2f")) s, max \(n(u["max_abs_difference_s"], "%.2f")) s")
            }
        }
        let bays = (s["bays"]?.arrayValue ?? []).map { b in
            "\((b["lane_groups"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: "+")) \(n(b["storage_m"], "%.0f")) m (built \(n(b["built_m"])) m)"
        }
        if !bays.isEmpty { print("  turn bays replayed at their storage: \(bays.joined(separator: ", "))") }
        for w in s["warnings"]?.arrayValue ?? [] { print("  warning: \(w.stringValue ?? "")") }
    }
}

/// `citytwin signal corridor`: a common cycle and green-wave offsets, for a corridor in a JSON file
/// (`--input`) or a stored one (`--id`, the `green-wave` process).
struct SignalCorridorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corridor",
        abstract: "Coordinates a corridor: common cycle, stage greens and offsets for the widest two-way green band.",
        discussion: """
        --input reads {"id", "intersections": [{"intersection": {…as for signal plan…}, "outbound_approach",
        "inbound_approach"}], "links": [{"length_m", "outbound_speed_m_s", "inbound_speed_m_s"}], "inbound_weight"};
        a field not listed is refused, naming it.
        --id coordinates a stored signal_corridors feature (flows from --period's counts, else the layer's peak hour);
        --write stores the plans as signal_plans versions.
        """)

    @Option(help: "The corridor as JSON (a file, or - for standard input).")
    var input: String?

    @Option(help: "A stored corridor id (signal_corridors), e.g. SC-001.")
    var id: String?

    @Option(help: "A time of day HH:MM-HH:MM whose busiest hour of counts sets the flows (with --id).")
    var period: String?

    @Flag(help: "Write the plans as signal_plans versions (with --id).")
    var write = false

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    @Option(help: "Write the time–space diagram to this file: SVG (.svg), or PNG (.png, drawn by librsvg's rsvg-convert).")
    var diagram: String?

    @Option(name: .customLong("cycle-range"), help: "MIN-MAX: search the common cycles from MIN to MAX s (from the critical intersection's own cycle up) for --cycle-objective; default the critical cycle.")
    var cycleRange: String?

    @Option(name: .customLong("cycle-objective"), help: "What --cycle-range is searched for: delay (the corridor's lowest mean control delay under each cycle's wave, the default) or band (MAXBAND's band efficiency).")
    var cycleObjective: CycleObjective?

    @Option(name: .customLong("offset-objective"), help: "What the offsets are set for: band (the widest weighted two-way band, MAXBAND; the default) or delay (the corridor's lowest mean control delay, TRANSYT's hill climb from the band's offsets).")
    var offsetObjective: OffsetObjective?

    @Option(name: .customLong("compare-offsets"), help: "O1,O2,…: also evaluate the same plans at these offsets (s, one per signal, first stage's green start), e.g. the ones the signals run now: each direction's delay beside the wave's.")
    var compareOffsets: String?

    @OptionGroup var timing: SignalTimingOptions
    @OptionGroup var store: StoreOption

    func validate() throws {
        guard (input == nil) != (id == nil) else { throw ValidationError("give either --input FILE or --id CORRIDOR") }
        if input != nil, period != nil || write { throw ValidationError("--period and --write need --id") }
        _ = try cycles
        _ = try comparedOffsets
        if cycleObjective != nil, cycleRange == nil { throw ValidationError("--cycle-objective needs --cycle-range") }
        if let diagram, !["svg", "png"].contains(URL(fileURLWithPath: diagram).pathExtension.lowercased()) {
            throw ValidationError("--diagram must name a .svg or .png file (got '\(diagram)')")
        }
    }

    /// `--compare-offsets` as seconds.
    var comparedOffsets: [Double]? {
        get throws {
            guard let compareOffsets else { return nil }
            let values = compareOffsets.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard values.allSatisfy({ $0?.isFinite == true }) else {
                throw ValidationError("--compare-offsets must be seconds separated by commas, one per signal, e.g. 0,25.7,51.4,77.1 (got '\(compareOffsets)')")
            }
            return values.compactMap { $0 }
        }
    }

    /// `--cycle-range` as seconds.
    var cycles: ClosedRange<Double>? {
        get throws {
            guard let cycleRange else { return nil }
            let parts = cycleRange.split(separator: "-", omittingEmptySubsequences: false).map { Double($0) }
            guard parts.count == 2, let lower = parts[0], let upper = parts[1], lower.isFinite, upper.isFinite,
                  lower > 0, lower <= upper else {
                throw ValidationError("--cycle-range must be MIN-MAX in seconds, the shorter first, e.g. 80-110 (got '\(cycleRange)')")
            }
            return lower...upper
        }
    }

    func run() async throws {
        let report: JSONValue
        let svg: String
        if let id {
            var inputs = timing.processInputs
            inputs["corridor"] = .string(id)
            if let period { inputs["period"] = .string(period) }
            if write { inputs["write"] = true }
            if let cycles = try cycles { inputs["cycleRange"] = [.number(cycles.lowerBound), .number(cycles.upperBound)] }
            if let cycleObjective { inputs["cycleObjective"] = .string(cycleObjective.rawValue) }
            if let offsetObjective { inputs["offsetObjective"] = .string(offsetObjective.rawValue) }
            if let offsets = try comparedOffsets { inputs["compareOffsets"] = .array(offsets.map { .number($0) }) }
            let bar = cycleRange != nil ? ProgressBar("coordinating \(id) over cycles \(cycleRange ?? "")") : nil
            let result = try await ProcessRunner(store: store.path).run("green-wave", inputs, progress: bar?.progress ?? .ignored)
            bar?.finish(.stage("done", fraction: 1))
            report = result["plan"] ?? .null
            svg = result["diagram"]?.stringValue ?? ""
        } else {
            let input = input ?? "-"
            let corridor = try readSignalJSON(CorridorInput.self, from: input)
            let plan: CorridorPlan
            let bar = cycleRange != nil ? ProgressBar("coordinating \(corridor.id) over cycles \(cycleRange ?? "")") : nil
            do {
                plan = try CorridorTiming.plan(id: corridor.id, intersections: corridor.intersections, links: corridor.links,
                                               settings: timing.settings, inboundWeight: corridor.inboundWeight, cycleRange: try cycles, cycleObjective: cycleObjective ?? .standard,
                                               offsetObjective: offsetObjective ?? .standard, comparedOffsets: try comparedOffsets) { done, count in
                    bar?.update(WorkProgress(stage: "coordinated", completed: Double(done), total: Double(count), unit: "cycles"))
                }
            } catch let e as SignalTimingError {
                throw CommandFailure(presenting: e, in: input)
            }
            bar?.finish(.stage("done", fraction: 1))
            report = try JSONOutput.value(CorridorPlanReport(plan))
            svg = TimeSpaceDiagram.svg(corridor: plan.corridor, wave: plan.wave)
        }
        if let diagram {
            try await writeDiagram(svg, to: diagram)
        }
        if json { return try printJSONDocument(report) }
        func n(_ v: JSONValue?, _ format: String = "%.1f") -> String { v?.doubleValue.map { String(format: format, $0) } ?? "-" }
        let critical = report["critical_intersection"]?.stringValue ?? ""
        let setBy = report["cycle_range_s"]?.arrayValue.map { r in
            (report["cycle_objective"]?.stringValue == "delay" ? "the lowest corridor delay of" : "the most efficient band of")
            + " \(n(r.first, "%.0f"))–\(n(r.last, "%.0f")) s; \(critical) needs \(n(report["critical_cycle_s"], "%.0f")) s"
        } ?? "set by \(critical)"
        print("\(report["corridor"]?.stringValue ?? ""): common cycle \(n(report["cycle_s"], "%.0f")) s (\(setBy)), outbound band \(n(report["outbound_bandwidth_s"])) s, inbound band \(n(report["inbound_bandwidth_s"])) s (k = \(n(report["inbound_weight"], "%.2f")))")
        for warning in report["warnings"]?.arrayValue ?? [] { print("  warning: \(warning.stringValue ?? "")") }
        func directions(_ list: JSONValue?, _ which: String) {
            for d in list?.arrayValue ?? [] {
                let signals = (d["signals"]?.arrayValue ?? []).map { "\($0["intersection"]?.stringValue ?? "") \(n($0["delay_s"]))" }.joined(separator: ", ")
                print("  \(d["direction"]?.stringValue ?? "") through traffic: \(n(d["delay_s"])) s/veh and \(n(d["stops_per_vehicle"], "%.2f")) stops at the signals \(which) (\(n(d["isolated_delay_s"])) s/veh and \(n(d["isolated_stops_per_vehicle"], "%.2f")) stops with random arrivals): \(signals)")
            }
        }
        let offsetsFor = report["offset_objective"]?.stringValue == "delay" ? "under the offsets for the lowest delay" : "under the wave's offsets"
        directions(report["directions"], offsetsFor)
        if let compared = report["at_compared_offsets"] {
            let offsets = (compared["offsets_s"]?.arrayValue ?? []).map { n($0) }.joined(separator: ", ")
            directions(compared["directions"], "at the compared offsets \(offsets) s")
            print("  mean control delay: \(n(report["mean_control_delay_s"])) s/veh \(offsetsFor), \(n(compared["mean_control_delay_s"])) s/veh at the compared offsets")
        }
        for t in report["intersections"]?.arrayValue ?? [] {
            let greens = (t["stages"]?.arrayValue ?? []).map { n($0["green_s"], "%.0f") }.joined(separator: "/")
            print("  \(t["intersection"]?.stringValue ?? ""): offset \(n(t["offset_s"])) s, greens \(greens)")
        }
    }
}

/// Writes a time–space diagram as its path's extension asks: the SVG as drawn, or a PNG of it drawn
/// by librsvg's `rsvg-convert` (Debian librsvg2-bin, which Scripts/setup.sh installs) at twice its size,
/// on white. Any other extension is refused rather than given an SVG under another name.
func writeDiagram(_ svg: String, to path: String) async throws {
    switch URL(fileURLWithPath: path).pathExtension.lowercased() {
    case "svg":
        try writeOutputFile(svg, to: path)
    case "png":
        guard let rsvg = SumoTools.find("rsvg-convert") else {
            throw CommandFailure("--diagram \(path): a PNG is drawn by rsvg-convert (Debian librsvg2-bin; Scripts/setup.sh installs it), which is not on PATH; give a .svg path for the SVG")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-diagram-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let drawn = directory.appendingPathComponent("diagram.svg"), png = directory.appendingPathComponent("diagram.png")
        try writeOutputFile(svg, to: drawn.path)
        do {
            _ = try await SumoTools.run(rsvg, ["--format", "png", "--zoom", "2", "--background-color", "white", "--output", png.path, drawn.path])
        } catch let e as SumoTools.Failure {
            throw CommandFailure("--diagram \(path): \(e)")
        }
        // Written beside the SVG first, so a path that cannot be written fails naming it, as an SVG's does.
        do {
            let data = try Data(contentsOf: png)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CommandFailure("\(path): cannot be written (\(fileErrorReason(error)))")
        }
    default:
        throw CommandFailure("--diagram must name a .svg or .png file (got '\(path)')")
    }
}

/// `--cycle-objective band|delay`.
extension CycleObjective: ExpressibleByArgument {}

/// `--offset-objective band|delay`.
extension OffsetObjective: ExpressibleByArgument {}
