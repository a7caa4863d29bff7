import Foundation
import Sponge
import SWMMFormat
import TestSupport
import Testing

/// A plan's LID facilities written into a model ([LID_CONTROLS], [LID_USAGE]) through SWMMFormat's
/// writer, and read back by EPA SWMM 5.2.4 itself (swmm-toolkit in .venv), which runs the model and
/// reports each facility in its LID Performance Summary.
@Suite("LID facilities written into a model and read by SWMM 5.2.4")
struct LIDFacilityTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = repository.appendingPathComponent(".venv/bin/python").path

    static func model() throws -> SWMMModel {
        try SWMMModel(contentsOf: try DesignRainfallTests.fixture("sponge-example1", "inp"))
    }

    /// One facility of every kind SWMM offers, each on a subcatchment of Example1 (10 acres and less).
    static let plan: [LIDFacility] = [
        LIDFacility(id: "bioretention_1", kind: .bioRetention, subcatchment: "1", units: 2, unitArea: 100, fromImperviousPercent: 20),
        LIDFacility(id: "garden_2", kind: .rainGarden, subcatchment: "2", unitArea: 50, fromImperviousPercent: 10),
        LIDFacility(id: "roof_3", kind: .greenRoof, subcatchment: "3", unitArea: 400, width: 20, fromImperviousPercent: 0),
        LIDFacility(id: "trench_4", kind: .infiltrationTrench, subcatchment: "4", unitArea: 80, width: 4, fromImperviousPercent: 30),
        LIDFacility(id: "pavement_5", kind: .permeablePavement, subcatchment: "5", unitArea: 500, width: 25, fromImperviousPercent: 15,
                    layers: [.storage: [250, 0.6, 5, 0]]),
        LIDFacility(id: "barrel_6", kind: .rainBarrel, subcatchment: "6", units: 20, unitArea: 0.3, fromImperviousPercent: 5),
        LIDFacility(id: "disconnect_7", kind: .rooftopDisconnection, subcatchment: "7", unitArea: 300, width: 15, fromImperviousPercent: 0),
        LIDFacility(id: "swale_8", kind: .vegetativeSwale, subcatchment: "8", unitArea: 200, width: 5, fromImperviousPercent: 25, toPervious: true),
    ]

    @Test("every LID kind written into the model, read and run by SWMM without an error")
    func swmmReadsThePlan() async throws {
        let written = try Self.model().withLIDFacilities(Self.plan)
        let text = written.inpText()
        #expect(text.contains("[LID_CONTROLS]") && text.contains("[LID_USAGE]"))
        // Our own reader reads the plan back as the same lines.
        let reread = try SWMMModel(parsing: text)
        #expect(reread.rawSections.first { $0.name == "LID_USAGE" }?.lines.count == Self.plan.count)
        try await withTemporaryDirectory("sponge-lid") { dir in
            let inp = dir.appending("plan.inp")
            try text.write(to: inp, atomically: true, encoding: .utf8)
            guard FileManager.default.isExecutableFile(atPath: Self.python) else {
                throw HarnessFailure("no .venv/bin/python: run Scripts/setup.sh --test (swmm-toolkit is the reader)")
            }
            let script = """
                import os, sys
                from swmm.toolkit import solver
                inp = sys.argv[1]
                rpt, out = inp + ".rpt", inp + ".out"
                fd = os.dup(1); os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                try:
                    solver.swmm_run(inp, rpt, out)
                finally:
                    os.dup2(fd, 1)
                report = open(rpt).read()
                if "ERROR" in report:
                    print(report); sys.exit(1)
                lines = report.split("LID Performance Summary")[1].splitlines()
                dashed = [k for k, l in enumerate(lines) if l.strip().startswith("---")]
                rows = []
                for l in lines[dashed[1] + 1:]:
                    if not l.strip():
                        break
                    rows.append(l.split()[1])
                print("LID rows:", " ".join(sorted(rows)))
                """
            let run = try await CommandProcess.run(Self.python, ["-c", script, inp.path], within: 120)
            #expect(run.exitStatus == 0, "SWMM: \(run.output)")
            #expect(run.output.contains("LID rows: " + Self.plan.map(\.id).sorted().joined(separator: " ")), "\(run.output)")
        }
    }

    @Test("a US model's LID layers are written in inches and square feet")
    func usUnits() throws {
        let written = try Self.model().withLIDFacilities([Self.plan[0]])
        let lines = try #require(written.rawSections.first { $0.name == "LID_CONTROLS" }?.lines)
        // Berm 150 mm = 5.905511811 in; a unit of 100 m² = 1076.391042 ft².
        #expect(lines.contains(["bioretention_1", "SURFACE", "5.905511811", "0", "0.1", "1", "5"]))
        let usage = try #require(written.rawSections.first { $0.name == "LID_USAGE" }?.lines.first)
        #expect(usage.prefix(4) == ["1", "bioretention_1", "2", "1076.391042"])
    }

    @Test("bad facilities are refused naming the facility and the field")
    func refusals() throws {
        let model = try Self.model()
        func refusal(_ f: LIDFacility) -> SpongeInputError? {
            return #expect(throws: SpongeInputError.self) { try model.withLIDFacilities([f]) }
        }
        var f = Self.plan[0]
        f.subcatchment = "99"
        #expect(refusal(f)?.input == "lid_facilities[0].subcatchment")
        f = Self.plan[0]; f.id = "two words"
        #expect(refusal(f)?.input == "lid_facilities[0].id")
        f = Self.plan[0]; f.unitArea = 50_000   // 2 × 50,000 m² on 10 acres (40,469 m²)
        #expect(refusal(f)?.reason.contains("more than its") == true)
        f = Self.plan[0]; f.fromImperviousPercent = 120
        #expect(refusal(f)?.input == "lid_facilities[0].fromImperviousPercent")
        f = Self.plan[0]; f.layers = [.soil: [500, 0.5]]
        #expect(refusal(f)?.input == "lid_facilities[0].layers.SOIL")
        let twice = #expect(throws: SpongeInputError.self) { try model.withLIDFacilities([Self.plan[0], Self.plan[0]]) }
        #expect(twice?.input == "lid_facilities[1].id")
    }
}
