import ArgumentParser
import Foundation
import SignalSim

/// `citytwin signal …`: signal timing for traffic engineers.
struct SignalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Traffic-signal timing: plans from counts, corridor green waves, time–space diagrams.",
        subcommands: [SignalPlanCommand.self, SignalCorridorCommand.self])
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

    var settings: SignalTimingSettings {
        SignalTimingSettings(minimumCycle: minimumCycle, maximumCycle: maximumCycle, minimumGreen: minimumGreen,
                             walkingSpeed: walkingSpeed)
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
        return try JSONDecoder().decode(T.self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
        throw CommandFailure("\(path): \(jsonPath(context.codingPath + [key])): is required")
    } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
        throw CommandFailure("\(path): \(jsonPath(context.codingPath)): \(context.debugDescription)")
    } catch let DecodingError.dataCorrupted(context) {
        throw CommandFailure("\(path): \(context.codingPath.isEmpty ? "not JSON" : jsonPath(context.codingPath)): \(context.debugDescription)")
    } catch {
        throw CommandFailure("\(path): \(error)")
    }
}

/// `approaches[2].flows_veh_h` for a decoding path.
func jsonPath(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        if let i = key.intValue { text += "[\(i)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
    }
    return text.isEmpty ? "$" : text
}

/// `citytwin signal plan --input intersection.json [--json]`: a Webster plan for one intersection.
struct SignalPlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Times one intersection from its approach flows (Webster; HCM delay and LOS per approach).",
        discussion: """
        The input is one intersection as JSON: {"id", "amber_s", "all_red_s", "startup_lost_s",
        "approaches": [{"id", "lanes", "saturation_veh_h_lane", "flows_veh_h": {"through", "left", "right"}}],
        "stages": [["N", "S"], ["W", "E"]], "crossings": [{"id", "length_m", "refuge_island", "stage"}]}.
        """)

    @Option(help: "The intersection as JSON (a file, or - for standard input).")
    var input: String

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    @OptionGroup var timing: SignalTimingOptions

    func run() async throws {
        let demand = try readSignalJSON(IntersectionDemand.self, from: input)
        let result: IntersectionTiming
        do { result = try SignalTiming.webster(demand, settings: timing.settings) } catch let e as SignalTimingError {
            throw CommandFailure("\(input): \(e)")
        }
        if json { return try printJSONDocument(IntersectionTimingReport(result)) }
        print(String(format: "%@: cycle %.0f s, Y = %.3f, lost time %.0f s, mean delay %.1f s/veh",
                     result.intersection, result.cycle, result.flowRatioSum, result.lostTime, result.meanControlDelay))
        for (i, s) in result.plan.stages.enumerated() {
            print(String(format: "  stage %d %@: green %.0f s, amber %.0f s, all-red %.0f s", i + 1,
                         s.approaches.joined(separator: "+"), s.green, s.amber, s.allRed))
        }
        for a in result.approaches {
            print(String(format: "  %@: x = %.2f, delay %.1f s/veh, queue %.1f veh, LOS %@", a.id, a.degreeOfSaturation,
                         a.controlDelay, a.queue, a.levelOfService.rawValue))
        }
        for w in result.warnings { print("warning: \(w)") }
    }
}

/// A corridor as JSON: the intersections in order with their coordinated approaches and the links.
struct CorridorInput: Decodable {
    var id: String
    var intersections: [CorridorIntersection]
    var links: [CorridorLink]
    var inboundWeight: Double?

    enum CodingKeys: String, CodingKey {
        case id, intersections, links
        case inboundWeight = "inbound_weight"
    }
}

/// `citytwin signal corridor --input corridor.json [--json] [--diagram out.svg]`: a common cycle
/// and green-wave offsets.
struct SignalCorridorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corridor",
        abstract: "Coordinates a corridor: common cycle, stage greens and offsets for the widest two-way green band.",
        discussion: """
        The input is {"id", "intersections": [{"intersection": {…as for signal plan…}, "outbound_approach",
        "inbound_approach"}], "links": [{"length_m", "outbound_speed_m_s", "inbound_speed_m_s"}], "inbound_weight"}.
        """)

    @Option(help: "The corridor as JSON (a file, or - for standard input).")
    var input: String

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    @Option(help: "Write the time–space diagram as SVG to this file.")
    var diagram: String?

    @OptionGroup var timing: SignalTimingOptions

    func run() async throws {
        let corridor = try readSignalJSON(CorridorInput.self, from: input)
        let plan: CorridorPlan
        do {
            plan = try CorridorTiming.plan(id: corridor.id, intersections: corridor.intersections, links: corridor.links,
                                           settings: timing.settings, inboundWeight: corridor.inboundWeight)
        } catch let e as SignalTimingError {
            throw CommandFailure("\(input): \(e)")
        }
        if let diagram {
            let svg = TimeSpaceDiagram.svg(corridor: plan.corridor, wave: plan.wave)
            do { try svg.write(toFile: diagram, atomically: true, encoding: .utf8) } catch {
                throw CommandFailure("\(diagram): cannot be written (\(error.localizedDescription))")
            }
        }
        if json { return try printJSONDocument(CorridorPlanReport(plan)) }
        print(String(format: "%@: common cycle %.0f s (set by %@), outbound band %.1f s, inbound band %.1f s (k = %.2f)",
                     plan.corridor.id, plan.cycle, plan.criticalIntersection, plan.wave.outboundBandwidth,
                     plan.wave.inboundBandwidth, plan.wave.inboundWeight))
        for t in plan.timings {
            print(String(format: "  %@: offset %.1f s, greens %@", t.intersection, t.plan.offset,
                         t.plan.stages.map { String(format: "%.0f", $0.green) }.joined(separator: "/")))
        }
    }
}
