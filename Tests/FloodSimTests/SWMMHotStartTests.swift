@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// SWMM 5.2 hot-start files (`[FILES] SAVE/USE HOTSTART`) against SWMM 5.2.4 (Fixtures/swmm/hotstart,
/// by Scripts/reference/make_swmm_hotstart_fixtures.py): a run started from the file SWMM saved
/// matches SWMM's run from it, the file CityTwin saves holds SWMM's state in SWMM's layout, and only
/// a caller with leave (the command line) may read or write the files a model names.
@Suite("Hot-start files: read and written as SWMM 5.2.4 does")
struct SWMMHotStartTests {
    struct Reference: Decodable {
        struct Use: Decodable { var flooding_m3: Double; var outflow_m3: Double; var max_depth_m: [String: Double] }
        struct Saved: Decodable { var node_depth_m: [String: Double]; var link_flow_m3s: [String: Double] }
        var use: Use
        var saved: Saved
    }

    static func fixture(_ name: String, _ ext: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures/swmm/hotstart"))
    }

    static func parsed(_ name: String) throws -> (SWMMModel, SWMMSourceLines, URL) {
        let url = try fixture(name, "inp")
        let (model, lines) = try SWMMModel.parsing(try String(contentsOf: url, encoding: .utf8))
        return (model, lines, url.deletingLastPathComponent())
    }

    static func reference() throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: try fixture("hotstart", "json")))
    }

    @Test("SWMM's own file reads and writes back byte for byte")
    func roundTrip() throws {
        let (model, lines, _) = try Self.parsed("HS_SAVE")
        let data = try Data(contentsOf: try Self.fixture("HS_SAVE.swmm", "hsf"))
        let file = try SWMMHotStart(data: data, layout: model.hotStartLayout(lines))
        #expect(file.version == 4 && file.nodes.count == 5 && file.links.count == 4)
        #expect(file.nodes.filter { $0.residenceTime != nil }.count == 1, "one storage unit carries a residence time")
        #expect(file.encoded() == data)
    }

    @Test("a run started from SWMM's hot-start file matches SWMM's run from it")
    func useSWMMsFile() throws {
        let (model, lines, dir) = try Self.parsed("HS_USE")
        let swmm = try Self.reference().use
        let result = try DrainageRun.run(model, baseDirectory: dir, interfaceFiles: SWMMInterfaceFiles(directory: dir, lines: lines))
        for (k, name) in result.nodeNames.enumerated() {
            let mine = result.nodes[k].maxDepth, theirs = try #require(swmm.max_depth_m[name])
            guard theirs >= 0.01 else { continue }
            #expect(abs(mine - theirs) <= 0.05 * theirs, "\(name): max depth \(mine) m, SWMM \(theirs) m")
        }
        #expect(abs(result.routing.flooding - swmm.flooding_m3) <= max(0.02 * swmm.flooding_m3, 5),
                "flooding \(result.routing.flooding) m³, SWMM \(swmm.flooding_m3) m³")
        #expect(abs(result.routing.externalOutflow - swmm.outflow_m3) <= 0.02 * swmm.outflow_m3,
                "outflow \(result.routing.externalOutflow) m³, SWMM \(swmm.outflow_m3) m³")
        // Started cold, the same hour is another answer: the file was read.
        let cold = try DrainageRun.run(try SWMMModel(parsing: String(contentsOf: try Self.fixture("HS_USE", "inp"), encoding: .utf8)
            .replacingOccurrences(of: "USE HOTSTART", with: ";USE HOTSTART")))
        #expect(abs(cold.routing.externalOutflow - swmm.outflow_m3) > 0.05 * swmm.outflow_m3)
    }

    @Test("the file CityTwin saves holds SWMM's end state in SWMM's layout")
    func saveLikeSWMM() throws {
        let (model, lines, _) = try Self.parsed("HS_SAVE")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hotstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try DrainageRun.run(model, baseDirectory: dir, interfaceFiles: SWMMInterfaceFiles(directory: dir, lines: lines))
        let layout = model.hotStartLayout(lines)
        let mine = try SWMMHotStart(data: Data(contentsOf: dir.appendingPathComponent("HS_SAVE.hsf")), layout: layout)
        let theirs = try SWMMHotStart(data: Data(contentsOf: try Self.fixture("HS_SAVE.swmm", "hsf")), layout: layout)
        #expect(mine.nodes.count == theirs.nodes.count && mine.links.count == theirs.links.count && mine.flowUnits == theirs.flowUnits)
        let order = model.swmmOrder(lines)
        for (k, name) in order.nodes.enumerated() {
            let a = Double(mine.nodes[k].depth) * 0.3048, b = Double(theirs.nodes[k].depth) * 0.3048
            #expect(abs(a - b) <= max(0.05 * b, 0.02), "\(name): saved depth \(a) m, SWMM \(b) m")
            #expect((mine.nodes[k].residenceTime == nil) == (theirs.nodes[k].residenceTime == nil))
        }
        for (k, name) in order.links.enumerated() {
            let a = Double(mine.links[k].flow) * 0.028316846592, b = Double(theirs.links[k].flow) * 0.028316846592
            #expect(abs(a - b) <= max(0.05 * abs(b), 0.01), "\(name): saved flow \(a) m³/s, SWMM \(b) m³/s")
            #expect(mine.links[k].setting == theirs.links[k].setting, "\(name): setting")
        }
    }

    @Test("without leave a model's [FILES] is refused, naming the section and the item")
    func refusedWithoutLeave() throws {
        let (model, _, dir) = try Self.parsed("HS_USE")
        do {
            _ = try DrainageRun.run(model, baseDirectory: dir)
            Issue.record("ran a model with [FILES] without leave")
        } catch let e as SWMMInputError {
            #expect(e.section == "FILES" && e.description.contains("USE HOTSTART"), "\(e)")
        }
    }

    @Test("files that do not fit are refused with SWMM's error", arguments: ["short", "stamp", "counts"])
    func badFiles(_ kind: String) throws {
        let (model, lines, _) = try Self.parsed("HS_SAVE")
        var data = try Data(contentsOf: try Self.fixture("HS_SAVE.swmm", "hsf"))
        var layout = model.hotStartLayout(lines)
        switch kind {
        case "short": data = data.prefix(data.count - 3)
        case "stamp": data.replaceSubrange(0..<5, with: Data("XXXXX".utf8))
        default: layout.links += 1
        }
        let expected = kind == "short" ? "ERROR 335" : "ERROR 333"
        do {
            _ = try SWMMHotStart(data: data, layout: layout)
            Issue.record("\(kind): read a file that does not fit")
        } catch let e as SWMMInputError {
            #expect(e.section == "FILES" && e.description.contains(expected), "\(kind): \(e)")
        }
    }

    @Test("a hot start of a model with subcatchments is refused, naming the subcatchment")
    func subcatchmentsRefused() throws {
        let text = try String(contentsOf: try Self.fixture("HS_USE", "inp"), encoding: .utf8)
            + "\n[RAINGAGES]\nRG1 INTENSITY 0:05 1 TIMESERIES R1\n[SUBCATCHMENTS]\nS1 RG1 J1 1 50 100 1 0\n[SUBAREAS]\nS1 0.01 0.1 0.05 0.05 25 OUTLET\n"
        let (model, lines) = try SWMMModel.parsing(text.replacingOccurrences(of: "Q1   01/01/2020  00:00  0", with: "Q1   01/01/2020  00:00  0\nR1 0 10"))
        let dir = FileManager.default.temporaryDirectory
        do {
            _ = try DrainageRun.run(model, baseDirectory: dir, interfaceFiles: SWMMInterfaceFiles(directory: dir, lines: lines))
            Issue.record("ran a hot start of a model with subcatchments")
        } catch let e as SWMMInputError {
            #expect(e.section == "FILES" && e.description.contains("S1") && e.description.contains("not read or written yet"), "\(e)")
        }
    }
}
