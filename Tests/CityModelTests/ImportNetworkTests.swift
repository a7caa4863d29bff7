@testable import CityModel
import Foundation
import GeoCore
import SWMMFormat
import Testing
import TwinStore

@Suite("Import: SWMM models and pipeline survey tables", .temporaryDirectories)
struct ImportNetworkTests {
    /// EPA's Example1 from the shared data beside the repository (`../shared`, as in CI).
    static let example1 = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data/swmm/Example1.inp")
    static let drainageLayers = ["drainage_manholes", "drainage_outfalls", "drainage_storage", "drainage_pipes",
                                 "drainage_pumps", "subcatchments"]

    @Test("EPA Example1 placed at 邾城: 13 junctions, 1 outfall, 13 conduits, 8 subcatchments, in feet converted to metres",
          .enabled(if: FileManager.default.fileExists(atPath: example1.path)))
    func example1Model() async throws {
        let model = try SWMMInput(file: Self.example1)
        #expect(model.model.flowUnits.isUS)
        let network = try model.network(origin: Position(x: 114.80, y: 30.84))
        #expect(network.records("drainage_manholes").count == 13)
        #expect(network.records("drainage_outfalls").count == 1)
        #expect(network.records("drainage_pipes").count == 13)
        #expect(network.records("subcatchments").count == 8)
        let store = try await ImportFixtures.store(Self.drainageLayers)
        let summaries = try await network.run(catalog: try ImportFixtures.catalog.get(), store: store)
        #expect(summaries.map(\.count).reduce(0, +) == 35)
        let pipe = try #require(network.records("drainage_pipes").first { $0.feature.id == .string("1") })
        #expect(pipe.feature.properties["length_m"] == .number(400 * 0.3048))
        #expect(pipe.feature.properties["diameter_mm"] == .integer(457))       // 1.5 ft
        // Node 9 sits 4042.11 m east and 9600 m north of the origin (local metres).
        let toGK = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: 4547))
        let page = try await store.query(layer: "drainage_manholes", FeatureQuery(limit: 100), by: .admin)
        let nine = try #require(page.features.first { $0.id == .string("9") })
        guard case .point(let p)? = nine.geometry, let position = p.position else { Issue.record("no point"); return }
        let origin = try toGK.transform(Position(x: 114.80, y: 30.84))
        let gk = try toGK.transform(position)
        #expect(abs(gk.x - origin.x - 4042.11) < 1e-3 && abs(gk.y - origin.y - 9600) < 1e-3)
    }

    @Test("an unknown section names its line")
    func unknownSection() throws {
        let error = try #require(throws: ImportError.self) { try SWMMInput(file: ImportFixtures.url("unknown_section.inp")) }
        #expect(error.location == "line 10")
        #expect(error.field == "GARDENS")
    }

    @Test("survey tables become a snapped network: inverts from High − depth, PSize sections, an outfall")
    func survey() async throws {
        let survey = try PipelineSurvey(points: ImportFixtures.url("survey_points.csv"), lines: ImportFixtures.url("survey_lines.csv"))
        let network = try survey.network()
        #expect(network.records("drainage_manholes").count == 3)
        #expect(network.records("drainage_outfalls").count == 1)
        let pipes = network.records("drainage_pipes").map(\.feature)
        #expect(pipes.count == 3)
        let first = try #require(pipes.first)
        #expect(first.properties["diameter_mm"] == .integer(600))
        #expect(first.properties["shape"] == "CIRCULAR")
        #expect(pipes[1].properties["width_mm"] == .integer(1000) && pipes[1].properties["height_mm"] == .integer(800))
        #expect(pipes[1].properties["shape"] == "RECT_CLOSED")
        // Pipe ends are the survey points' positions exactly (topology by Exp_No).
        #expect(ImportFixtures.positions(first.geometry) == [Position(x: 576800, y: 3412500), Position(x: 576850, y: 3412500)])
        // YS002: rim 24.30; connected inverts 24.30 − 2.15 = 22.15 and 24.30 − 2.20 = 22.10 → invert 22.10.
        let ys002 = try #require(network.records("drainage_manholes").first { $0.feature.id == .string("YS002") })
        let invert = try #require(ys002.feature.properties["invert_elevation_m"]?.doubleValue)
        #expect(abs(invert - 22.10) < 1e-9)
        let inletOffset = try #require(pipes[0].properties["outlet_offset_m"]?.doubleValue)
        #expect(abs(inletOffset - 0.05) < 1e-9)
        let store = try await ImportFixtures.store(["drainage_manholes", "drainage_outfalls", "drainage_pipes"])
        _ = try await network.run(catalog: try ImportFixtures.catalog.get(), store: store)
        #expect(try await store.count(layer: "drainage_pipes", FeatureQuery(), by: .admin) == 3)
    }

    @Test("a line whose end point is not in the point table names the line row and field; nothing is written")
    func missingPoint() async throws {
        let survey = try PipelineSurvey(points: ImportFixtures.url("survey_points.csv"),
                                        lines: ImportFixtures.url("survey_lines_missing_point.csv"))
        let error = try #require(throws: ImportError.self) { try survey.network() }
        #expect(error.file == "survey_lines_missing_point.csv")
        #expect(error.location == "row 2")
        #expect(error.field == "E_Exp")
    }

    @Test("PSize text: 600 is circular, 1000X800 a box, nonsense nothing")
    func sizes() {
        #expect(SewerSection(surveySize: "600") == .circular(diameter: 600))
        #expect(SewerSection(surveySize: "1000x800") == .box(width: 1000, height: 800))
        #expect(SewerSection(surveySize: "") == nil)
        #expect(SewerSection(surveySize: "DN600") == nil)
    }
}
