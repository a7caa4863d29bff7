import ArgumentParser
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import SignalSim
import Signals
import TwinStore

/// `citytwin signal export-sumo --out DIR [--intersection ID | --corridor ID] [--period HH:MM-HH:MM]`:
/// the stored signals, their plans and counts as a SUMO scenario (SUMO 1.28, PyPI `eclipse-sumo`).
struct SignalExportSumoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-sumo",
        abstract: "Writes a SUMO scenario of stored signals: network (plain XML and netconvert's .net.xml), plans as tlLogic programs switched by time of day, routes from the counts.",
        discussion: """
        Files in --out: nodes.nod.xml, edges.edg.xml, connections.con.xml (SUMO plain XML), network.net.xml (netconvert),
        programs.add.xml (one tlLogic per stored plan, a WAUT switching them at their periods), routes.rou.xml (Poisson
        flows per 15-minute count) and scenario.sumocfg; simulation time is the time of day in seconds. Run it with
        `sumo -c DIR/scenario.sumocfg --tripinfo-output trips.xml`. Without --intersection or --corridor the whole district
        is exported: the roads layer's graph (an edge per direction, lanes and speed from each road, the signals' approach
        edges with their lane groups' lanes), every signal a traffic light on its road node, and each counted movement a
        flow from the road arriving at its signal to the road it turns into. --period 00:00-24:00 (the default) is the
        whole counted day with flows changing every 15 minutes. netconvert is looked up on PATH, in $SUMO_HOME/bin, then
        in .venv/bin.
        """)

    @Option(help: "The directory to write (created if missing).")
    var out: String

    @Option(help: "One stored intersection (signalized_intersections), e.g. SI-006.")
    var intersection: String?

    @Option(help: "An intersection as JSON, as signal plan --input reads it (each approach on a compass arm): its own Webster plan at its own flows, all through --period; no store is read.")
    var input: String?

    @Option(help: "A stored corridor (signal_corridors), e.g. SC-001: its signals joined by the corridor's links.")
    var corridor: String?

    @Option(help: "The time of day to simulate, HH:MM-HH:MM (default the whole day).")
    var period: String = "00:00-24:00"

    @Option(help: "fixed: the plans' greens; actuated: SUMO's gap-based actuated control on the plans' stages, each green between its minimum and the plan's green + 30 s.")
    var control: String = "fixed"

    @OptionGroup var store: StoreOption

    func validate() throws {
        if [intersection != nil, corridor != nil, input != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --intersection, --corridor or --input")
        }
    }

    func run() async throws {
        guard let range = TimeOfDayPeriod.range(period) else {
            throw CommandFailure("--period: must be HH:MM-HH:MM with the start before the end (got '\(period)')")
        }
        guard let mode = SumoExport.Control(rawValue: control) else {
            throw CommandFailure("--control: must be fixed or actuated (got '\(control)')")
        }
        let export: SumoExport
        if let input {
            let demand = try readSignalJSON(IntersectionDemand.self, from: input)
            do { export = try SumoExport.inline(demand, period: range, control: mode) } catch let e as SignalTimingError {
                throw CommandFailure(presenting: e, in: input)
            }
        } else {
            let db = try await StoreLocation(store.path).openExisting()
            export = try await SumoExport.load(from: db, intersection: intersection, corridor: corridor, period: range, control: mode, by: .admin)
        }
        let output = try OutputDirectory(out)
        let directory = output.url
        let write = output.write
        try write(export.routes(), "routes.rou.xml")
        guard let netconvert = Self.tool("netconvert") else {
            let plain = try export.plainNetwork()
            try write(plain.nodes, "nodes.nod.xml")
            try write(plain.edges, "edges.edg.xml")
            try write(plain.connections, "connections.con.xml")
            throw CommandFailure("netconvert not found on PATH or in .venv/bin (install eclipse-sumo: Scripts/setup.sh); the plain XML files are in \(out)")
        }
        let (_, links, bays) = try await export.buildNetwork(in: directory) { try await Self.netconvert(netconvert, $0) }
        try write(try export.programs(netLinks: links), "programs.add.xml")
        try write("""
            <configuration>
                <input>
                    <net-file value="network.net.xml"/>
                    <route-files value="routes.rou.xml"/>
                    <additional-files value="programs.add.xml"/>
                </input>
                <time>
                    <begin value="\(range.start * 60)"/>
                    <end value="\(range.end * 60 + 900)"/>
                </time>
            </configuration>

            """, "scenario.sumocfg")
        let signals = export.signals.map(\.intersection.id)
        let roads = export.roads.map { " on the district's \($0.edges.count) road edges" } ?? ""
        if let longest = bays.map(\.storage).max(), let shortest = bays.map(\.storage).min() {
            let off = bays.map { abs($0.built - $0.storage) }.max() ?? 0
            print("\(bays.count) turn bay\(bays.count == 1 ? "" : "s") (storage_m \(Int(shortest))\(longest > shortest ? "-\(Int(longest))" : "") m) built at their storage, within \(String(format: "%.1f", off)) m")
            for b in bays where abs(b.built - b.storage) > SumoExport.bayTolerance {
                print("  \(b.signal) \(b.approach) (\(b.laneGroups.joined(separator: ", "))): \(Int(b.storage)) m of storage, built \(String(format: "%.1f", b.built)) m")
            }
        }
        for s in export.signals {
            if let note = s.countsNote { print("note: \(s.intersection.id): \(note)") }
        }
        print("SUMO scenario of \(signals.count) signal\(signals.count == 1 ? "" : "s") (\(signals.prefix(8).joined(separator: ", "))\(signals.count > 8 ? ", …" : ""))\(roads) for \(period) in \(out): sumo -c \(out)/scenario.sumocfg")
    }

    /// Runs SUMO's netconvert with `arguments` (as `signal-evaluate` runs SUMO's programs); its
    /// error output is the failure's message.
    static func netconvert(_ netconvert: URL, _ arguments: [String]) async throws {
        do {
            _ = try await SumoTools.run(netconvert, arguments)
        } catch let failure as SumoTools.Failure {
            throw CommandFailure("netconvert failed: \(failure.message)")
        }
    }

    /// A SUMO tool on PATH, else in `$SUMO_HOME/bin`, else in the project's virtual environment
    /// (`SumoTools.find`, as `signal-evaluate` finds SUMO).
    static func tool(_ name: String) -> URL? { SumoTools.find(name) }
}
