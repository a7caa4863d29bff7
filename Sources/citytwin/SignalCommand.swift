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
    var method: SignalTimingMethod = .webster

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
        if input != nil, period != nil || write || at != nil || method != .webster || once {
            throw ValidationError("--period, --write, --method, --at and --once need --intersection or --all")
        }
    }

    func run() async throws {
        if intersection != nil || all {
            var inputs = timing.processInputs
            if let intersection { inputs["intersections"] = [.string(intersection)] }
            if let period { inputs["period"] = .string(period) }
            if write { inputs["write"] = true }
            if method != .webster { inputs["method"] = .string(method.rawValue) }
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
        var inputs = timing.processInputs
        inputs["intersection"] = try readSignalJSON(JSONValue.self, from: input)
        let result = try await inlineDocument(input) { try await ProcessRunner.runReadingNoLayer("signal-timing", inputs) }
        let plan = result["plans"]?.arrayValue?.first
        let report = plan?["timing"] ?? .null
        if json { return try printJSONDocument(report) }
        printTiming(report, title: plan?["intersection"]?.stringValue ?? "")
    }
}

/// Runs a process on a document read from `path` (a signal command's `--input`): what is wrong in
/// it is said with the file's name.
func inlineDocument<T>(_ path: String, _ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch let failure as CommandFailure {
        throw CommandFailure("\(path): \(failure.description)")
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
