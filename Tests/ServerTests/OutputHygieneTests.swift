import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
import Testing
import TestSupport
import TwinStore

/// Output hygiene (issue 78 §12, §13, §15): a formula an editor stores is text in every CSV, not a
/// live cell; a C0 control character is refused at write and never makes an XML answer
/// ill-formed; a filter nested past the limit is a 400 naming it, never a 500 with the SQL logged.
@Suite("Output hygiene: CSV formulas, control characters, filter depth", .temporaryDirectories)
struct OutputHygieneTests {
    static let emergency = "应急管理局"

    /// A shelter whose name is a spreadsheet formula, with a negative capacity (a numeric column).
    static let formulaShelter = """
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.3201, 30.6102]},
         "properties": {"name": "=HYPERLINK(\\"http://evil.example/x\\",\\"点我\\")", "capacity": -5, "phone": "@SUM(1+1)"}}
        """

    @Test("items as CSV: a stored formula (=HYPERLINK) is text behind a single quote; a negative number of a numeric column stays a number")
    func csvFormulas() async throws {
        try await WritableAPI.run { api in
            let posted = try await api.send(.post, "/collections/shelters/items", token: api.token(Self.emergency), body: Self.formulaShelter)
            #expect(posted.status == .created, "\(posted.text)")
            let csv = try await api.client.get("/collections/shelters/items?f=csv", headers: WritableAPI.bearer(api.token(Self.emergency)))
            #expect(csv.status == .ok)
            let row = try #require(csv.text.split(separator: "\r\n").first { $0.contains("HYPERLINK") }, "\(csv.text.prefix(500))")
            #expect(row.contains(#","'=HYPERLINK(""http://evil.example/x"",""点我"")","#), "the formula is not neutralised: \(row)")
            #expect(row.contains(#","'@SUM(1+1)","#), "\(row)")
            #expect(row.contains(",-5,"), "the negative capacity is not a number any more: \(row)")
            #expect(!row.contains(#",=HYPERLINK"#) && !row.contains(#","=HYPERLINK"#), "\(row)")
        }
    }

    /// A Datastream of category observations on the SensorThings gauge.
    static let categoryThing = """
        {"name": "路面状况", "description": "road surface", "Locations": [{"name": "桥", "description": "site", "encodingType": "application/geo+json",
           "location": {"type": "Point", "coordinates": [114.8012, 30.8437]}}],
         "Datastreams": [{"name": "surface", "description": "state", "observationType":
                          "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_CategoryObservation",
                          "unitOfMeasurement": {"name": "none", "symbol": "", "definition": "none"},
                          "Sensor": {"name": "camera", "description": "cam", "encodingType": "text/html", "metadata": "https://example.org/cam"},
                          "ObservedProperty": {"name": "surface", "definition": "https://example.org/surface", "description": "surface"}}]}
        """

    @Test("SensorThings $resultFormat=CSV: a category result that is a formula gets its quote, a negative measurement stays a number")
    func sensorThingsCSV() async throws {
        try await SensorThingsAPI.run { api in
            let (_, gauge) = try await api.postGauge()
            #expect(try await api.postLevels(gauge, [-1.5]).status == .created)
            let levels = try await api.get("/sta/v1.1/Datastreams(\(gauge))/Observations?$select=result&$resultFormat=CSV")
            #expect(levels.text == "result\r\n-1.5\r\n", "\(levels.text)")
            let thing = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.categoryThing)
            #expect(thing.status == .created, "\(thing.text)")
            let location = try #require(thing.headers[.location])
            let id = try #require(Int64(location.split(separator: "(").last!.dropLast()))
            let ds = try #require(try await api.get("/sta/v1.1/Things(\(id))/Datastreams").json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            let observation = try await api.send(.post, "/sta/v1.1/Observations", token: api.token(), body: """
                {"Datastream": {"@iot.id": \(ds)}, "phenomenonTime": "2026-06-01T00:00:00Z", "result": "=cmd|' /C calc'!A0"}
                """)
            #expect(observation.status == .created, "\(observation.text)")
            let csv = try await api.get("/sta/v1.1/Datastreams(\(ds))/Observations?$select=result&$resultFormat=CSV")
            #expect(csv.text == "result\r\n\"'=cmd|' /C calc'!A0\"\r\n", "\(csv.text)")
        }
    }

    @Test("a C0 control character in a property is refused at write (400 naming the property and U+0001) by Part 4 writes, SensorThings and import")
    func controlCharactersRefused() async throws {
        try await WritableAPI.run { api in
            let body = #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [114.3201, 30.6102]}, "properties": {"name": "坏\u0001名", "capacity": 1}}"#
            let r = try await api.send(.post, "/collections/shelters/items", token: api.token(Self.emergency), body: body)
            try expectProblem(r, status: 400, type: "invalid-feature", naming: "U+0001")
            #expect(try r.json["detail"]?.stringValue?.contains("\"name\"") == true, "\(r.text)")
            // Tab, LF and CR are text.
            let fine = body.replacingOccurrences(of: #"\u0001"#, with: #"\t\n\r"#)
            #expect(try await api.send(.post, "/collections/shelters/items", token: api.token(Self.emergency), body: fine).status == .created)
            // In a nested value, and through PATCH.
            let patch = try await api.send(.patch, "/collections/shelters/items/s00", token: api.token(Self.emergency),
                                           contentType: "application/merge-patch+json", body: #"{"properties": {"name": "x\u001Fy"}}"#)
            try expectProblem(patch, status: 400, type: "invalid-feature", naming: "U+001F")
        }
        try await SensorThingsAPI.run { api in
            let thing = try await api.send(.post, "/sta/v1.1/Things", token: api.token(),
                                           body: #"{"name": "站\u0002", "description": "x", "properties": {"code": "a\u0007"}}"#)
            try expectProblem(thing, status: 400, type: "invalid-body", naming: "U+0002")
            #expect(try thing.json["position"] == "$.name", "\(thing.text)")
        }
        try await withTemporaryDirectory("citytwin-import-control") { dir in
            let store = try await ServerFixture.makeStore(in: dir)
            try store.close()
            let file = dir.appending("bad.geojson")
            try Data(#"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "b1", "geometry": {"type": "Point", "coordinates": [114.31, 30.6]}, "properties": {"name": "坏\u0001名"}}]}"#.utf8)
                .write(to: file)
            let run = try await CommandProcess.run(try OutageHarness.binary(), ["import", file.path, "--layer", "shelters", "--store", dir.appending("city.sqlite").path],
                                                   within: 120)
            #expect(run.exitStatus != 0, "\(run.output)")
            #expect(run.output.contains("U+0001") && run.output.contains("name"), "\(run.output)")
            // A feature id is text too (a gml:id, a CSV cell).
            try Data(#"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "b\u0002", "geometry": {"type": "Point", "coordinates": [114.31, 30.6]}, "properties": {"name": "好"}}]}"#.utf8)
                .write(to: file)
            let id = try await CommandProcess.run(try OutageHarness.binary(), ["import", file.path, "--layer", "shelters", "--store", dir.appending("city.sqlite").path],
                                                  within: 120)
            #expect(id.exitStatus != 0 && id.output.contains("U+0002") && id.output.contains("id"), "\(id.output)")
        }
    }

    /// Whether `bytes` parse as XML (Foundation's parser, libxml2 underneath, as GDAL's and OWSLib's do).
    static func wellFormed(_ bytes: [UInt8]) -> (Bool, String) {
        let parser = XMLParser(data: Data(bytes))
        let ok = parser.parse()
        return (ok, parser.parserError.map { "\($0)" } ?? "")
    }

    @Test("a control character stored before writes refused it: WFS GML, WMS GetFeatureInfo and the capabilities stay well-formed, U+FFFD in its place")
    func storedControlCharacters() async throws {
        let directory = try TemporaryDirectory.forTestCase("citytwin-control")
        let store = try await ServerFixture.makeStore(in: directory)
        let path = directory.appending("city.sqlite").path
        // Stored as an earlier version would have: behind today's write check.
        _ = try await SQLiteShell.run(path, "UPDATE f_shelters SET props = json_set(props, '$.name', '坏' || char(1) || '名') WHERE fid = 's00' AND valid_to IS NULL")
        let stored = try #require(try await store.feature(layer: "shelters", id: "s00", by: .admin))
        #expect(stored.properties["name"] == "坏\u{1}名", "the fixture holds the character")
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
        try await server.makeApplication().test(.router) { client in
            for path in ["/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=citytwin:shelters",
                         "/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=citytwin:shelters&RESOURCEID=shelters.s00",
                         "/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetPropertyValue&TYPENAMES=citytwin:shelters&VALUEREFERENCE=name",
                         "/wfs?SERVICE=WFS&REQUEST=GetCapabilities", "/wms?SERVICE=WMS&REQUEST=GetCapabilities",
                         "/wmts?SERVICE=WMTS&REQUEST=GetCapabilities"] {
                let r = try await client.get(path)
                #expect(r.status == .ok, "\(path): \(r.status) \(r.text.prefix(300))")
                let (ok, error) = Self.wellFormed(Array(r.body.readableBytesView))
                #expect(ok, "\(path) is not well-formed XML: \(error)")
                #expect(!r.text.unicodeScalars.contains("\u{1}"), "\(path) carries U+0001")
                if path.contains("GetFeature&") || path.contains("GetPropertyValue") {
                    #expect(r.text.contains("坏\u{FFFD}名"), "\(path): the character is not replaced by U+FFFD")
                }
            }
            // GetFeatureInfo as HTML at s00 (114.310, 30.600), the middle pixel of a 101×101 map.
            let info = try await client.get("/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetFeatureInfo&LAYERS=shelters&QUERY_LAYERS=shelters&STYLES="
                                            + "&CRS=EPSG:4326&BBOX=30.5995,114.3095,30.6005,114.3105&WIDTH=101&HEIGHT=101&I=50&J=50&INFO_FORMAT=text/html")
            #expect(info.status == .ok, "\(info.text.prefix(300))")
            #expect(info.text.contains("坏\u{FFFD}名") && !info.text.unicodeScalars.contains("\u{1}"), "\(info.text)")
        }
    }

    static func escaped(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }

    /// `n` nested NOTs around `capacity >= 300` (cql2-text).
    static func nots(_ n: Int) -> String {
        String(repeating: "NOT (", count: n) + "capacity >= 300" + String(repeating: ")", count: n)
    }

    /// AND and OR alternating `levels` deep around `capacity >= 300`, each level with a term that
    /// does not change the answer (AND with a tautology, OR with a contradiction).
    static func alternation(_ levels: Int) -> String {
        var e = "capacity >= 300"
        for i in 0..<levels {
            e = i % 2 == 0 ? "(name <> 'nope' AND \(e))" : "(name = 'nope' OR \(e))"
        }
        return e
    }

    /// Every log line at any level, kept.
    static func capturingServer(_ store: SpatiaLiteStore) -> (CityTwinServer, MaskingLeakTests.LogCapture) {
        let capture = MaskingLeakTests.LogCapture()
        var logger = Logger(label: "citytwin.server.hygiene") { _ in MaskingLeakTests.CapturingHandler(capture: capture) }
        logger.logLevel = .trace
        return (CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger)), capture)
    }

    @Test("43 nested NOT (cql2-text, cql2-json, FES) is a 400 naming the limit of 32, and nothing at error level; at 32 levels every shape runs")
    func filterDepth() async throws {
        let store = try await ServerFixture.makeStore(in: .forTestCase("citytwin-depth"))
        let (server, capture) = Self.capturingServer(store)
        try await server.makeApplication().test(.router) { client in
            let deep = try await client.get("/collections/shelters/items?filter=" + Self.escaped(Self.nots(43)))
            try expectProblem(deep, status: 400, type: "invalid-filter", naming: "at most 32")
            var json = #"{"op": ">=", "args": [{"property": "capacity"}, 300]}"#
            for _ in 0..<43 { json = #"{"op": "not", "args": ["# + json + "]}" }
            let deepJSON = try await client.get("/collections/shelters/items?filter-lang=cql2-json&filter=" + Self.escaped(json))
            try expectProblem(deepJSON, status: 400, type: "invalid-filter", naming: "at most 32")
            let fes = "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\">" + String(repeating: "<fes:Not>", count: 43)
                + "<fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>capacity</fes:ValueReference><fes:Literal>300</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo>"
                + String(repeating: "</fes:Not>", count: 43) + "</fes:Filter>"
            let wfs = try await client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=citytwin:shelters&FILTER=" + Self.escaped(fes))
            #expect(wfs.status == .badRequest && wfs.text.contains("at most 32"), "\(wfs.status) \(wfs.text.prefix(400))")

            // At the limit, each shape runs and answers as its flat equivalent: capacities 100 + 10·i, hankou 500.
            let at = try await client.get("/collections/shelters/items?limit=100&filter=" + Self.escaped(Self.nots(31)))
            #expect(at.status == .ok, "\(at.text.prefix(300))")
            #expect(try FilterTests.ids(at).count == 20, "31 NOTs are one NOT: capacity < 300")
            let alternating = try await client.get("/collections/shelters/items?limit=100&filter=" + Self.escaped(Self.alternation(31)))
            #expect(alternating.status == .ok, "\(alternating.text.prefix(300))")
            #expect(try FilterTests.ids(alternating) == ["hankou", "s20", "s21", "s22"])
            // Arithmetic 16 deep (division and subtraction right-nested), inside 15 levels of AND/OR.
            var arithmetic = "capacity"
            for i in 0..<16 { arithmetic = i % 2 == 0 ? "(1 - \(arithmetic))" : "(1 / \(arithmetic))" }
            var mixed = "\(arithmetic) <> 0"
            for i in 0..<15 { mixed = i % 2 == 0 ? "(name <> 'nope' AND \(mixed))" : "(name = 'nope' OR \(mixed))" }
            let arithmeticAnswer = try await client.get("/collections/shelters/items?limit=100&filter=" + Self.escaped(mixed))
            #expect(arithmeticAnswer.status == .ok, "\(arithmeticAnswer.text.prefix(300))")
            #expect(try FilterTests.ids(arithmeticAnswer).count == 24)
            let tooMuchArithmetic = try await client.get("/collections/shelters/items?filter=" + Self.escaped("(1 - " + arithmetic + ") <> 0"))
            try expectProblem(tooMuchArithmetic, status: 400, type: "invalid-filter", naming: "at most 16")
            let fesAt = "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\">" + String(repeating: "<fes:Not>", count: 31)
                + "<fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>capacity</fes:ValueReference><fes:Literal>300</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo>"
                + String(repeating: "</fes:Not>", count: 31) + "</fes:Filter>"
            let wfsAt = try await client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=citytwin:shelters&FILTER=" + Self.escaped(fesAt))
            #expect(wfsAt.status == .ok && wfsAt.text.contains("numberReturned=\"20\""), "\(wfsAt.text.prefix(400))")
        }
        let log = capture.text
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("error") }, "an error-level line was logged: \(log)")
        #expect(!log.contains("SELECT") && !log.contains("json_extract"), "the SQL was logged: \(log)")
    }

    @Test("SensorThings: a $filter nested past 32 levels is a 400 naming the limit")
    func sensorThingsFilterDepth() async throws {
        try await SensorThingsAPI.run { api in
            let (_, ds) = try await api.postGauge()
            #expect(try await api.postLevels(ds, [26.5]).status == .created)
            let deep = String(repeating: "not (", count: 33) + "result gt 1" + String(repeating: ")", count: 33)
            let r = try await api.get("/sta/v1.1/Observations?$filter=" + Self.escaped(deep))
            try expectProblem(r, status: 400, type: "invalid-filter", naming: "32")
            let at = String(repeating: "not (", count: 31) + "result gt 1" + String(repeating: ")", count: 31)
            let fine = try await api.get("/sta/v1.1/Observations?$filter=" + Self.escaped(at))
            #expect(fine.status == .ok, "\(fine.text.prefix(300))")
            #expect(try fine.json["value"]?.arrayValue?.count == 0, "31 NOTs are one: result le 1")
        }
    }
}
