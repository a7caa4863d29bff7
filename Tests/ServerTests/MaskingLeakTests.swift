import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
@testable import Server
import Testing
import TestSupport
import TwinStore

/// Masked attributes and negative-listed layers never appear in any output (issue 21 §4): one
/// sweep over every way data leaves the server for a member of the public — item pages as JSON,
/// HTML and CSV, the GeoPackage download, single features, MVT tiles (per layer and whole map)
/// and their metadata, the PMTiles export, process results, error messages, and the server's
/// log — failing on any trace of a clear value (the shelters' full phone number and redacted
/// manager) or of the negative-listed layer (its id, its features' ids and values). Each output
/// is also checked to hold the public data, so an empty answer cannot pass for a clean one.
@Suite("Masked attributes and negative-listed layers never leak, in any output")
struct MaskingLeakTests {
    /// Values that must never come out for the public, whatever it asks: the clear phone number
    /// and manager, the negative-listed layer's title and its feature's value.
    static let values = ["13812345678", "张三", "NEGMARK-Q7Z", "绝密站点"]
    /// Names of the negative-listed layer and its feature: never in an answer that did not name
    /// them itself (an answer to a request naming one must read as for a layer that does not exist).
    static let names = ["negsites_q7", "neg-secret-1"]

    static let negativeJSON = """
        {"id": "negsites_q7", "title": {"zh": "绝密站点", "en": "Negative-listed sites"}, "category": "公共专题",
         "owner": "应急管理局", "format": "vector", "updateFrequency": "monthly", "negativeList": true,
         "sharing": {"type": "open", "method": "api", "requirements": "负面清单"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"codename": {"type": "string"}}}}
        """

    /// Every line the server logs (any level), kept for the sweep.
    final class LogCapture: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var text: String { lock.withLock { lines.joined(separator: "\n") } }
    }

    struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(all.map { "\($0)=\($1)" }.joined(separator: " "))")
        }
    }

    /// Checks one output: no secret in it, and (when given) the public value that shows it is not empty.
    static func expectClean(_ what: String, _ bytes: [UInt8], holding publicValue: String? = nil, names: Bool = true,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: bytes, as: UTF8.self)
        for secret in values + (names ? Self.names : []) {
            #expect(!text.contains(secret), "\(what) leaks '\(secret)'", sourceLocation: sourceLocation)
        }
        if let publicValue {
            #expect(text.contains(publicValue), "\(what) does not hold the public '\(publicValue)': the check would be empty",
                    sourceLocation: sourceLocation)
        }
    }

    /// The z/row/col of the WebMercatorQuad tile holding `p`.
    static func tile(_ p: Position, z: Int) -> (Int, Int, Int) {
        let n = Double(1 << z)
        let lat = p.y * .pi / 180
        return (z, Int((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n), Int((p.x + 180) / 360 * n))
    }

    @Test("anonymous: items (JSON, HTML, CSV, GeoPackage), features, tiles and their metadata, PMTiles export, process results, errors and the log hold no clear masked value and nothing of a negative-listed layer")
    func sweep() async throws {
        // The fixture's store (ServerFixture.makeStore), at a path the export command is given.
        try await withTemporaryDirectory("citytwin-leak") { dir in
            let storePath = dir.appending("city.sqlite").path
            let store = try dir.openStore()
            for json in [ServerFixture.sheltersJSON, ServerFixture.wellsJSON] {
                try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(json.utf8)))
            }
            try await store.insert(layer: "shelters", features: ServerFixture.shelters, by: ServerFixture.owner, at: nil)
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(Self.negativeJSON.utf8)))
            try await store.insert(layer: "negsites_q7", features: [
                Feature(id: .string("neg-secret-1"), geometry: .point(x: 114.3125, y: 30.6015), properties: ["codename": "NEGMARK-Q7Z"]),
            ], by: ServerFixture.owner, at: nil)
            // The clear values are in the store (the admin reads them): the sweep looks for something real.
            let clear = try await store.query(layer: "shelters", FeatureQuery(limit: 100), by: .admin).features
            #expect(clear.contains { $0.properties["phone"]?.stringValue == "13812345678" && $0.properties["manager"]?.stringValue == "张三" })
            let capture = LogCapture()
            var logger = Logger(label: "citytwin.server.leak") { _ in CapturingHandler(capture: capture) }
            logger.logLevel = .trace
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
            let (z, row, col) = Self.tile(Position(x: 114.3125, y: 30.6015), z: 15)
            let area = """
                {"inputs": {"layer": "shelters", "properties": ["name", "phone", "manager"],
                 "area": {"type": "Polygon", "coordinates": [[[114.30, 30.59], [114.33, 30.59], [114.33, 30.62], [114.30, 30.62], [114.30, 30.59]]]}}}
                """
            try await server.makeApplication().test(.router) { client in
                // Reads that answer with data.
                for (path, publicValue) in [
                    ("/collections", "shelters"), ("/collections?f=html", "shelters"),
                    ("/collections/shelters/items?limit=100", "138****5678"), ("/collections/shelters/items?limit=100&f=html", "避难所"),
                    ("/collections/shelters/items?f=csv", "138****5678"), ("/collections/shelters/items?f=gpkg", "避难所"),
                    ("/collections/shelters/items/s00", "138****5678"), ("/collections/shelters/items/s00?f=html", "避难所"),
                    ("/collections/shelters/items?limit=100&properties=name,phone,manager", "避难所"),
                    ("/collections/shelters/tiles/WebMercatorQuad/\(z)/\(row)/\(col)", "避难所"),
                    ("/tiles/WebMercatorQuad/\(z)/\(row)/\(col)", "避难所"),
                    ("/tiles/WebMercatorQuad/tilejson.json", "shelters"), ("/tiles", "CityTwin"),
                    ("/collections/shelters/queryables", "capacity"),
                ] {
                    let r = try await client.get(path)
                    #expect(r.status == .ok, "\(path): \(r.status)")
                    Self.expectClean(path, Array(r.body.readableBytesView), holding: publicValue)
                }
                let result = try await client.execute(uri: "/processes/features-in-area/execution", method: .post,
                                                      headers: [.contentType: "application/json"], body: ByteBuffer(string: area))
                #expect(result.status == .ok, "\(result.text)")
                Self.expectClean("features-in-area result", Array(result.body.readableBytesView), holding: "避难所")

                // Refusals and errors: no clear value; asked for the negative-listed layer, the same
                // answer as for a layer that does not exist (its name read back as the caller wrote it).
                for path in [
                    "/collections/negsites_q7", "/collections/negsites_q7/items", "/collections/negsites_q7/items/neg-secret-1",
                    "/collections/negsites_q7/tiles/WebMercatorQuad/\(z)/\(row)/\(col)", "/collections/negsites_q7/queryables",
                    "/collections/negsites_q7/items?f=csv", "/collections/negsites_q7/items?f=gpkg",
                ] {
                    let r = try await client.get(path)
                    let absent = try await client.get(path.replacingOccurrences(of: "negsites_q7", with: "nosuch_q7"))
                    #expect(r.status.code >= 400, "\(path): \(r.status)")
                    #expect(r.status == absent.status && r.text == absent.text.replacingOccurrences(of: "nosuch_q7", with: "negsites_q7"),
                            "\(path) answers otherwise than for a layer that does not exist: \(r.status) \(r.text) / \(absent.status) \(absent.text)")
                    Self.expectClean(path, Array(r.body.readableBytesView), names: false)
                }
                for path in [
                    "/collections/shelters/items?filter=phone%20LIKE%20'138%25'", "/collections/shelters/items?sortby=manager",
                    "/collections/shelters/items?filter=manager%20IS%20NOT%20NULL", "/collections/shelters/items/nosuch?f=html",
                ] {
                    let r = try await client.get(path)
                    #expect(r.status.code >= 400, "\(path): \(r.status)")
                    Self.expectClean(path, Array(r.body.readableBytesView))
                }
                let execute = { (body: String) in
                    try await client.execute(uri: "/processes/features-in-area/execution", method: .post,
                                             headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                }
                let negative = try await execute(area.replacingOccurrences(of: "\"layer\": \"shelters\"", with: "\"layer\": \"negsites_q7\""))
                let absent = try await execute(area.replacingOccurrences(of: "\"layer\": \"shelters\"", with: "\"layer\": \"nosuch_q7\""))
                #expect(negative.status.code >= 400 && negative.status == absent.status)
                #expect(negative.text == absent.text.replacingOccurrences(of: "nosuch_q7", with: "negsites_q7"), "\(negative.text) / \(absent.text)")
                Self.expectClean("features-in-area on the negative-listed layer", Array(negative.body.readableBytesView), names: false)
                let bad = try await execute(area.replacingOccurrences(of: "\"properties\": [\"name\", \"phone\", \"manager\"]",
                                                                      with: "\"properties\": 7"))
                #expect(bad.status.code == 400, "\(bad.status) \(bad.text)")
                Self.expectClean("features-in-area refusal", Array(bad.body.readableBytesView))
            }

            // The PMTiles export of the CLI (anonymous, as the tile API): every gzip member opened.
            let archive = dir.appending("leak.pmtiles")
            let export = try await CommandProcess.run(try OutageHarness.binary(), ["export", "tiles", archive.path, "--store", storePath,
                                                                                   "--min-zoom", "13", "--max-zoom", "15"], within: 120)
            #expect(export.exitStatus == 0, "\(export.output)")
            Self.expectClean("PMTiles export", try await Self.openedGzipMembers(archive.path), holding: "避难所")

            // The log of everything above (it names the paths the caller asked for, nothing more).
            let log = capture.text
            #expect(log.contains("/collections/shelters/items"))
            Self.expectClean("server log", Array(log.utf8), names: false)
        }
    }

    /// A layer with one attribute of each personal kind (issue 78 §18), open to everyone.
    static let residentsJSON = """
        {"id": "residents_q8", "title": {"zh": "住户登记", "en": "Registered residents"}, "category": "公共专题",
         "owner": "公安局", "format": "vector", "updateFrequency": "monthly",
         "sharing": {"type": "open", "method": "api", "requirements": "脱敏"},
         "geometryType": "Point", "storageCRS": "EPSG:4490",
         "schema": {"type": "object", "properties": {"holder": {"type": "string"}, "id_number": {"type": "string"},
                    "mobile": {"type": "string"}, "legacy": {"type": "string"}}},
         "sensitive": [{"attribute": "holder", "mask": "name"}, {"attribute": "id_number", "mask": "id-number"},
                       {"attribute": "mobile", "mask": "phone"}, {"attribute": "legacy", "mask": "partial"}]}
        """

    /// What a fire-lane violation needs besides its plate.
    static func violation(_ id: String, plate: String, x: Double) -> Feature {
        Feature(id: .string(id), geometry: .point(x: x, y: 30.6015), properties: [
            "lane": "FL-1", "kind": "占用", "observed_at": "2026-05-01T08:00:00Z", "status": "待处理", "handled_by": .null,
            "reported_by": "巡查", "plate": .string(plate), "closed_at": .null])
    }

    /// Pieces of the clear values that no masked output may hold: of each plate the runs the mask
    /// hides (the old partial mask showed "鄂A9****5AC1", all seven characters)…
    static let hiddenPlates = ["A95", "95A", "5AC", "AD1", "D12", "2345"]
    /// …of the ID number its birth date, of the mobile its middle, of the name the given name.
    static let hiddenResidents = ["19900101", "0101", "2345", "阳", "娜", "A95"]

    @Test("masks by kind (plate, phone, ID number, name) hold in items (JSON, HTML, CSV, GeoPackage), a feature, WFS, WMS GetFeatureInfo, tiles and the change stream; a plate shows its province and at most two characters")
    func kindMasks() async throws {
        try await withTemporaryDirectory("citytwin-masks") { dir in
            let store = try dir.openStore()
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            let violations = try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: layers.appendingPathComponent("fire_lane_violations.json")))
            #expect(violations.sensitive.first?.mask == .plate, "the sample layer's plate is masked as a plate")
            try await store.createLayer(violations)
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(Self.residentsJSON.utf8)))
            let start = try await store.latestChange()
            try await store.insert(layer: "fire_lane_violations", features: [
                Self.violation("v1", plate: "鄂A95AC1", x: 114.3125), Self.violation("v2", plate: "鄂AD12345", x: 114.3135),
            ], by: .department(name: "消防救援大队", role: .editor, user: "测试"), at: nil)
            try await store.insert(layer: "residents_q8", features: [
                Feature(id: .string("r1"), geometry: .point(x: 114.3125, y: 30.6015),
                        properties: ["holder": "欧阳娜娜", "id_number": "420704199001011234", "mobile": "13812345678", "legacy": "鄂A95AC1"]),
            ], by: .department(name: "公安局", role: .editor, user: "测试"), at: nil)
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            @Sendable func bearer(_ department: String) -> HTTPFields {
                [.authorization: "Bearer " + authority.issue(TokenClaims(department: department, role: .viewer, subject: "看", lifetime: 3600))]
            }
            var logger = Logger(label: "citytwin.server.masks")
            logger.logLevel = .critical
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger, tokenVerifier: authority))
            let (z, row, col) = Self.tile(Position(x: 114.3125, y: 30.6015), z: 15)
            @Sendable func clean(_ what: String, _ bytes: [UInt8], holding shown: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
                let text = String(decoding: bytes, as: UTF8.self)
                for piece in what.contains("residents") ? Self.hiddenResidents : Self.hiddenPlates {
                    #expect(!text.contains(piece), "\(what) shows '\(piece)'", sourceLocation: sourceLocation)
                }
                if let shown { #expect(text.contains(shown), "\(what) lacks '\(shown)'", sourceLocation: sourceLocation) }
            }
            try await server.makeApplication().test(.router) { client in
                for department in ["应急管理局", "城市管理执法委员会"] {
                    let headers = bearer(department)
                    for (path, shown) in [
                        ("/collections/fire_lane_violations/items", "鄂*****C1"), ("/collections/fire_lane_violations/items?f=html", "鄂*****C1"),
                        ("/collections/fire_lane_violations/items?f=csv", "鄂*****45"), ("/collections/fire_lane_violations/items?f=gpkg", "鄂*****C1"),
                        ("/collections/fire_lane_violations/items/v2", "鄂*****45"),
                        ("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=citytwin:fire_lane_violations", "鄂*****C1"),
                        ("/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetFeatureInfo&LAYERS=fire_lane_violations&QUERY_LAYERS=fire_lane_violations&STYLES="
                            + "&CRS=EPSG:4326&BBOX=30.601,114.312,30.602,114.313&WIDTH=101&HEIGHT=101&I=50&J=50&INFO_FORMAT=application/json", "鄂*****C1"),
                        ("/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetFeatureInfo&LAYERS=fire_lane_violations&QUERY_LAYERS=fire_lane_violations&STYLES="
                            + "&CRS=EPSG:4326&BBOX=30.601,114.312,30.602,114.313&WIDTH=101&HEIGHT=101&I=50&J=50&INFO_FORMAT=text/html", "鄂*****C1"),
                        ("/collections/fire_lane_violations/tiles/WebMercatorQuad/\(z)/\(row)/\(col)", "鄂*****C1"),
                        ("/collections/residents_q8/items", "420704********1234"), ("/collections/residents_q8/items?f=csv", "欧**"),
                        ("/collections/residents_q8/items/r1?f=html", "138****5678"),
                    ] {
                        let r = try await client.get(path, headers: headers)
                        #expect(r.status == .ok, "\(department) \(path): \(r.status) \(r.text.prefix(200))")
                        clean("\(department) \(path)", Array(r.body.readableBytesView), holding: shown)
                    }
                }
                // The department the plate is shared with sees it (the checks above are not of an empty layer).
                let police = try await client.get("/collections/fire_lane_violations/items", headers: bearer("公安局"))
                #expect(police.text.contains("鄂A95AC1") && police.text.contains("鄂AD12345"), "\(police.text.prefix(300))")
                let anonymous = try await client.get("/collections/residents_q8/items")
                clean("anonymous residents", Array(anonymous.body.readableBytesView), holding: "欧**")
                #expect(anonymous.text.contains("鄂******"), "the old partial rule still loads, and no longer shows a 7-character value whole: \(anonymous.text)")
            }
            // The change stream (SSE) as those departments see it.
            for department in ["应急管理局", "城市管理执法委员会"] {
                let subscription = ChangeSubscription(store: store, caller: .department(name: department, role: .viewer, user: nil),
                                                      layers: ["fire_lane_violations", "residents_q8"])
                let page = try await subscription.page(after: start)
                #expect(page.messages.count == 3)
                let text = page.messages.map(ChangeSubscription.eventText).joined()
                let plates = page.messages.filter { $0.event.layer == "fire_lane_violations" }.map(ChangeSubscription.eventText).joined()
                clean("\(department) change stream", Array(plates.utf8), holding: "鄂*****C1")
                let residents = page.messages.filter { $0.event.layer == "residents_q8" }.map(ChangeSubscription.eventText).joined()
                clean("\(department) change stream of residents", Array(residents.utf8), holding: "420704********1234")
                _ = text
            }
        }
    }

    /// The file's bytes followed by the contents of every gzip member in it (a PMTiles archive
    /// keeps its directories, metadata and tiles gzip-compressed), opened by Python's zlib.
    static func openedGzipMembers(_ path: String) async throws -> [UInt8] {
        let script = """
            import sys, zlib
            data = open(sys.argv[1], 'rb').read()
            out = bytearray(data)
            i = data.find(b'\\x1f\\x8b\\x08')
            while i != -1:
                try:
                    out += zlib.decompressobj(31).decompress(data[i:])
                except zlib.error:
                    pass
                i = data.find(b'\\x1f\\x8b\\x08', i + 1)
            sys.stdout.buffer.write(bytes(out))
            """
        let python = try await CommandProcess.run("/usr/bin/python3", ["-c", script, path], separateErrors: true, within: 120)
        guard python.exitStatus == 0 else { throw HarnessFailure("python3 gzip scan exited \(python.exitStatus): \(python.errors)") }
        return Array(python.outputData)
    }
}
