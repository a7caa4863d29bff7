@testable import CityModel
import Foundation
import GeoCore
import SWMMFormat
import TestSupport
import Testing

/// The SWMM importer reads through SWMMFormat's `SWMMModel`: tokens as SWMM splits them (quoted
/// names, CRLF line ends), its errors naming the line and field.
@Suite("Import: SWMM models read as SWMM reads them", .temporaryDirectories)
struct ImportSWMMReaderTests {
    /// A small SI model: two manholes, a functional storage tank (A = 100·d⁰ + 50 = 150 m²), a
    /// pump to a gated outfall, offsets given as elevations, one vertex, two subcatchments (S1
    /// outlined clockwise and open).
    static let district = """
        [TITLE]
        Two manholes, a storage tank and a pump

        [OPTIONS]
        FLOW_UNITS CMS
        LINK_OFFSETS ELEVATION

        [RAINGAGES]
        RG1 INTENSITY 0:05 1.0 TIMESERIES TS1

        [SUBCATCHMENTS]
        S1 RG1 J1 2.5 60 100 0.5 0
        S2 RG1 J2 1.5 40 80 1.0 0

        [JUNCTIONS]
        J1 20 3
        J2 19 3

        [OUTFALLS]
        O1 17 FREE YES

        [STORAGE]
        T1 18 4 0 FUNCTIONAL 100 0 50

        [CONDUITS]
        C1 J1 J2 100 0.013 20.2 19.1
        C2 J2 T1 50 0.011 19 18.5

        [PUMPS]
        P1 T1 O1 * ON 1.5 0.5

        [XSECTIONS]
        C1 CIRCULAR 0.6 0 0 0 1
        C2 RECT_CLOSED 0.8 1.0 0 0 1

        [TIMESERIES]
        TS1 0:00 0
        TS1 1:00 10

        [COORDINATES]
        J1 0 0
        J2 100 0
        T1 150 0
        O1 200 0

        [VERTICES]
        C1 50 5

        [POLYGONS]
        S1 -50 -50
        S1 -50 50
        S1 50 50
        S1 50 -50
        S2 60 -50
        S2 160 -50
        S2 160 50
        S2 60 50
        S2 60 -50
        """

    /// Writes `text` as a `.inp` file in a fresh temporary directory.
    static func inp(_ text: String, name: String = "district.inp") throws -> URL {
        let url = try TemporaryDirectory.forTestCase("swmm").appending(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The physical line (from 1) of the first line of `text` starting with `prefix`.
    static func line(of prefix: String, in text: String) throws -> Int {
        let lines = text.components(separatedBy: "\n")
        return try #require(lines.firstIndex { $0.hasPrefix(prefix) }) + 1
    }

    static func feature(_ network: NetworkImport, _ layer: String, _ id: String) throws -> Feature {
        try #require(network.records(layer).first { $0.feature.id == .string(id) }?.feature)
    }

    @Test("a model with only options fills every drainage layer with nothing")
    func emptyModel() throws {
        let network = try SWMMInput(file: Self.inp("[OPTIONS]\nFLOW_UNITS CMS\n")).network()
        #expect(network.layers.map(\.id) == ["drainage_manholes", "drainage_outfalls", "drainage_storage", "drainage_pipes",
                                             "drainage_pumps", "subcatchments"])
        #expect(network.layers.allSatisfy { $0.records.isEmpty })
    }

    @Test("an SI model maps node, storage, pipe, pump and subcatchment fields to the CIM layers")
    func siModel() throws {
        let input = try SWMMInput(file: Self.inp(Self.district))
        #expect(!input.model.flowUnits.isUS)
        let network = try input.network()
        let j1 = try Self.feature(network, "drainage_manholes", "J1")
        #expect(j1.properties["rim_elevation_m"] == .number(23) && j1.properties["invert_elevation_m"] == .number(20))
        let o1 = try Self.feature(network, "drainage_outfalls", "O1")
        #expect(o1.properties["outfall_type"] == "FREE" && o1.properties["flap_gate"] == .bool(true))
        // 150 m² footprint centred on the node, 150 m² × 4 m deep.
        let t1 = try Self.feature(network, "drainage_storage", "T1")
        #expect(t1.properties["volume_m3"] == .number(600))
        let side = 150.0.squareRoot()
        expectSameGeometry(t1.geometry, .polygon([Position(x: 150 - side / 2, y: -side / 2), Position(x: 150 + side / 2, y: -side / 2),
                                                  Position(x: 150 + side / 2, y: side / 2), Position(x: 150 - side / 2, y: side / 2),
                                                  Position(x: 150 - side / 2, y: -side / 2)]))
        // LINK_OFFSETS ELEVATION: offsets 20.2 − 20 and 19.1 − 19 above the inverts.
        let c1 = try Self.feature(network, "drainage_pipes", "C1")
        let inOffset = try #require(c1.properties["inlet_offset_m"]?.doubleValue)
        let outOffset = try #require(c1.properties["outlet_offset_m"]?.doubleValue)
        let slope = try #require(c1.properties["slope"]?.doubleValue)
        #expect(abs(inOffset - 0.2) < 1e-12 && abs(outOffset - 0.1) < 1e-12 && abs(slope - 0.011) < 1e-12)
        #expect(c1.properties["diameter_mm"] == .integer(600) && c1.properties["material"] == "钢筋混凝土")
        #expect(ImportFixtures.positions(c1.geometry) == [Position(x: 0, y: 0), Position(x: 50, y: 5), Position(x: 100, y: 0)])
        #expect(c1.properties["catchment_ha"] == .number(2.5))
        let c2 = try Self.feature(network, "drainage_pipes", "C2")
        #expect(c2.properties["width_mm"] == .integer(1000) && c2.properties["height_mm"] == .integer(800))
        #expect(c2.properties["catchment_ha"] == .number(4))
        let p1 = try Self.feature(network, "drainage_pumps", "P1")
        #expect(p1.properties["start_level_m"] == .number(1.5) && p1.properties["stop_level_m"] == .number(0.5))
        #expect(ImportFixtures.positions(p1.geometry) == [Position(x: 150, y: 0)])
        // S1 was outlined clockwise and left open: closed and turned counter-clockwise.
        let s1 = try Self.feature(network, "subcatchments", "S1")
        let ring = ImportFixtures.positions(s1.geometry)
        #expect(ring.count == 5 && ring.first == ring.last)
        #expect(Polygon.doubledSignedArea(ofRing: ring) > 0)
        #expect(s1.properties["area_ha"] == .number(2.5) && s1.properties["outlet_node"] == "J1")
        let checked = try network.checked(catalog: try ImportFixtures.catalog.get())
        #expect(checked.map(\.features.count) == [2, 1, 1, 2, 1, 2])
    }

    @Test("quoted names with spaces are ids, node references and map keys, as SWMM reads them")
    func quotedNames() throws {
        let text = Self.district
            .replacingOccurrences(of: "J1 20 3", with: "\"MH 1\" 20 3")
            .replacingOccurrences(of: "J1 0 0", with: "\"MH 1\"\t0 0")
            .replacingOccurrences(of: "S1 RG1 J1", with: "S1 RG1 \"MH 1\"")
            .replacingOccurrences(of: "C1 J1 J2", with: "\"雨水管 1\" \"MH 1\" J2")
            .replacingOccurrences(of: "C1 CIRCULAR", with: "\"雨水管 1\" CIRCULAR")
            .replacingOccurrences(of: "C1 50 5", with: "\"雨水管 1\" 50 5")
        let network = try SWMMInput(file: Self.inp(text)).network()
        let manhole = try Self.feature(network, "drainage_manholes", "MH 1")
        #expect(ImportFixtures.positions(manhole.geometry) == [Position(x: 0, y: 0)])
        let pipe = try Self.feature(network, "drainage_pipes", "雨水管 1")
        #expect(pipe.properties["upstream_node"] == "MH 1")
        #expect(ImportFixtures.positions(pipe.geometry) == [Position(x: 0, y: 0), Position(x: 50, y: 5), Position(x: 100, y: 0)])
        #expect(try Self.feature(network, "subcatchments", "S1").properties["outlet_node"] == "MH 1")
        _ = try network.checked(catalog: try ImportFixtures.catalog.get())
    }

    @Test("a file with CRLF line ends imports the same records as with LF")
    func crlf() throws {
        let lf = try SWMMInput(file: Self.inp(Self.district)).network()
        let crlf = try SWMMInput(file: Self.inp(Self.district.replacingOccurrences(of: "\n", with: "\r\n"))).network()
        #expect(crlf.layers.map(\.id) == lf.layers.map(\.id))
        for (a, b) in zip(crlf.layers, lf.layers) {
            #expect(a.records.map(\.feature) == b.records.map(\.feature), "\(a.id)")
        }
        #expect(crlf.records("drainage_pipes").count == 2)
    }

    @Test("a bad number names its physical line and field, CRLF or not")
    func badNumber() throws {
        let text = Self.district.replacingOccurrences(of: "C2 J2 T1 50", with: "C2 J2 T1 fifty")
        let expected = try Self.line(of: "C2 J2 T1", in: text)
        for file in [text, text.replacingOccurrences(of: "\n", with: "\r\n")] {
            let error = try #require(throws: ImportError.self) { try SWMMInput(file: Self.inp(file, name: "bad.inp")) }
            #expect(error.file == "bad.inp")
            #expect(error.location == "line \(expected)")
            #expect(error.field == "Length")
            #expect(error.code == .invalidValue)
            #expect(error.reason.contains("[CONDUITS]") && error.reason.contains("fifty"))
        }
    }

    @Test("a conduit to a node the model does not define names the conduit's line and ToNode")
    func undefinedNode() throws {
        let text = Self.district.replacingOccurrences(of: "C2 J2 T1", with: "C2 J2 T9")
        let error = try #require(throws: ImportError.self) { try SWMMInput(file: Self.inp(text)) }
        #expect(error.location == "line \(try Self.line(of: "C2 J2 T9", in: text))")
        #expect(error.field == "ToNode")
    }

    @Test("a node without coordinates is named by the line that defines it")
    func missingCoordinates() throws {
        let text = Self.district.replacingOccurrences(of: "J2 100 0\n", with: "")
        let error = try #require(throws: ImportError.self) { try SWMMInput(file: Self.inp(text)).network() }
        #expect(error.code == .danglingReference)
        let junctions = try Self.line(of: "[JUNCTIONS]", in: text)
        let j2 = text.components(separatedBy: "\n").enumerated().first { $0.offset >= junctions && $0.element.hasPrefix("J2 ") }
        #expect(error.location == "line \(try #require(j2).offset + 1)")
        #expect(error.field == "Name")
    }

    @Test("an open channel conduit is not a sewer section; a weir's open section is not imported at all")
    func openSections() throws {
        let channel = Self.district.replacingOccurrences(of: "C2 RECT_CLOSED 0.8 1.0 0 0 1", with: "C2 TRAPEZOIDAL 0.8 1.0 1 1 1")
        let error = try #require(throws: ImportError.self) { try SWMMInput(file: Self.inp(channel)).network() }
        #expect(error.code == .unsupported && error.field == "Shape")
        #expect(error.location == "line \(try Self.line(of: "C2 TRAPEZOIDAL", in: channel))")
        let weir = Self.district
            .replacingOccurrences(of: "[PUMPS]", with: "[WEIRS]\nW1 J1 O1 TRANSVERSE 2 3.3\n\n[PUMPS]")
            .replacingOccurrences(of: "[TIMESERIES]", with: "W1 RECT_OPEN 1 2 0 0\n\n[TIMESERIES]")
        let network = try SWMMInput(file: Self.inp(weir)).network()
        #expect(network.records("drainage_pipes").count == 2)
    }

    @Test("a model without FLOW_UNITS is in CFS, SWMM's default: feet become metres")
    func defaultUnits() throws {
        let text = Self.district.replacingOccurrences(of: "FLOW_UNITS CMS\n", with: "")
        let input = try SWMMInput(file: Self.inp(text))
        #expect(input.model.flowUnits.isUS)
        let c1 = try Self.feature(try input.network(), "drainage_pipes", "C1")
        #expect(c1.properties["length_m"] == .number(100 * 0.3048))
    }
}
