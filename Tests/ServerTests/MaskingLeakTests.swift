import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import Server
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
