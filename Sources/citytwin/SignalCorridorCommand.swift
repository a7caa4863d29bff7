import ArgumentParser
import Foundation
import GeoCore
import SignalSim
import Scenarios
import Signals

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
        let input = input ?? "-"
        var inputs = timing.processInputs
        let corridor: JSONValue = try id.map { .string($0) } ?? readSignalJSON(JSONValue.self, from: input)
        inputs["corridor"] = corridor
        if let period { inputs["period"] = .string(period) }
        if write { inputs["write"] = true }
        if let cycles = try cycles { inputs["cycleRange"] = [.number(cycles.lowerBound), .number(cycles.upperBound)] }
        if let cycleObjective { inputs["cycleObjective"] = .string(cycleObjective.rawValue) }
        if let offsetObjective { inputs["offsetObjective"] = .string(offsetObjective.rawValue) }
        if let offsets = try comparedOffsets { inputs["compareOffsets"] = .array(offsets.map { .number($0) }) }
        let name = id ?? corridor["id"]?.stringValue ?? ""
        let bar = cycleRange != nil ? ProgressBar("coordinating \(name) over cycles \(cycleRange ?? "")") : nil
        let progress = bar?.progress ?? .ignored
        let result = try await id != nil ? ProcessRunner(store: store.path).run("green-wave", inputs, progress: progress)
            : inlineDocument(input) { try await ProcessRunner.runReadingNoLayer("green-wave", inputs, progress: progress) }
        bar?.finish(.stage("done", fraction: 1))
        let report = result["plan"] ?? .null
        let svg = result["diagram"]?.stringValue ?? ""
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
