import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Testing
import TestSupport
import TwinStore
import Parking
@testable import Scenarios

/// The CLI runs the processes the API runs: for every analysis command, the built `citytwin`
/// binary's answer on a store equals the process's answer for the same inputs (run through the
/// registry as the admin, as the CLI does).
@Suite("CLI analysis commands answer as their processes", .temporaryDirectories)
struct CommandProcessTests {
    static let layerIDs = EmergencyDistrict.layerIDs
        + ["drainage_manholes", "drainage_pipes", "drainage_outfalls", "drainage_storage", "drainage_pumps",
           "water_nodes", "water_mains", "water_valves", "water_connections",
           "signalized_intersections", "traffic_counts", "signal_plans", "signal_corridors", "parking_lots"]

    /// The sample district's emergency and utility layers in a SpatiaLite file, built once.
    private static let built = Task { () throws -> (SpatiaLiteStore, String, SampleDistrict) in
        try await EmergencyDistrict.makeStore(layerIDs, in: .forProcess("emergency"))
    }

    /// The `citytwin` executable built beside this test bundle (`swift build --build-tests` builds both).
    static var executable: URL {
        get throws {
            let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                              URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug")]
            for dir in candidates {
                let url = dir.appendingPathComponent("citytwin").standardizedFileURL
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw GeometryError(.invalidArgument, "no citytwin executable beside the tests: run `swift build --build-tests` first")
        }
    }

    /// Runs `citytwin` with `arguments` plus `--store`; its standard output as JSON.
    static func command(_ arguments: [String], store path: String) async throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: try await output(arguments, store: path))
    }

    /// Runs `citytwin` with `arguments` plus `--store`; its standard output.
    static func output(_ arguments: [String], store path: String) async throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
        let command = try await CommandProcess.run(try executable.path, arguments + ["--store", path], directory: root, separateErrors: true)
        guard command.exitStatus == 0 else {
            throw GeometryError(.invalidArgument, "citytwin \(arguments.joined(separator: " ")) failed: \(command.errors)")
        }
        return command.outputData
    }

    /// The process's answer (output `member`, or the whole result), through the JSON text the CLI prints.
    static func process(_ id: String, _ inputs: [String: JSONValue], store: any FeatureStore, member: String? = nil) async throws -> JSONValue {
        let registry = ProcessRegistry.standard
        let process = try #require(registry[id])
        let result = try await registry.run(process.id, inputs: inputs, caller: .admin, store: store)
        let value = try member.map { try #require(result[$0]) } ?? result
        return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }

    @Test("parking guide and simulate = their processes")
    func parking() async throws {
        let (store, path, _) = try await Self.built.value
        // At a named time: an answer judged at now names the instant (readings.at), which differs from run to run.
        let cli = try await Self.command(["parking", "guide", "--from", "114.780,30.830", "--to", "114.7985,30.8405",
                                          "--drivers", "20", "--at", "2026-06-17T09:30:00", "--json"], store: path)
        let api = try await Self.process("parking-guidance", ["from": [114.780, 30.830], "to": [114.7985, 30.8405], "drivers": 20,
                                                              "freshnessSeconds": .number(ParkingGuidanceProcess.defaultFreshness),
                                                              "maximumSnapMetres": 500, "at": "2026-06-17T09:30:00"], store: store)
        #expect(cli == api)
        let sim = try await Self.command(["parking", "simulate", "--drivers", "3000", "--json"], store: path)
        let simAPI = try await Self.process("parking-simulation", ["drivers": 3000, "seed": 17], store: store)
        #expect(sim == simAPI)
        #expect(sim["guided"]?["drivers"] == 3000)
    }

    @Test("network nearest = nearest-resources")
    func nearest() async throws {
        let (store, path, _) = try await Self.built.value
        let cli = try await Self.command(["network", "nearest", "--from", "114.801,30.842", "--layer", "shelters", "--count", "4",
                                          "--minimum-capacity", "800", "--profile", "walking"], store: path)
        let api = try await Self.process("nearest-resources", ["incident": [114.801, 30.842], "layer": "shelters", "count": 4,
                                                               "minimumCapacity": 800, "profile": "walking"], store: store, member: "resources")
        #expect(cli["features"]?.arrayValue?.count == 4)
        #expect(cli == api)
    }

    @Test("network isochrone = service-area")
    func isochrone() async throws {
        let (store, path, _) = try await Self.built.value
        let cli = try await Self.command(["network", "isochrone", "--at", "114.801,30.842", "--minutes", "2,4", "--buffer", "30"], store: path)
        let api = try await Self.process("service-area", ["origin": [114.801, 30.842], "breaks": [2, 4], "bufferMetres": 30],
                                         store: store, member: "areas")
        #expect(cli["features"]?.arrayValue?.count == 2)
        #expect(cli == api)
    }

    @Test("network coverage = coverage")
    func coverage() async throws {
        let (store, path, _) = try await Self.built.value
        let cli = try await Self.command(["network", "coverage", "--fire-minutes", "4", "--list-limit", "5"], store: path)
        let api = try await Self.process("coverage", ["fireMinutes": 4, "shelterWalkMetres": 500, "addressLevel": "门牌", "capacityShare": 0.15,
                                                      "suggestions": 1, "listLimit": 5], store: store)
        #expect(cli == api)
    }

    @Test("network hazard = hazard-overlay")
    func hazard() async throws {
        let (store, path, _) = try await Self.built.value
        let (x, y, r) = (114.801, 30.842, 0.003)
        let area: JSONValue = ["type": "Polygon", "coordinates": [[[.number(x - r), .number(y - r)], [.number(x + r), .number(y - r)],
                                                                    [.number(x + r), .number(y + r)], [.number(x - r), .number(y + r)],
                                                                    [.number(x - r), .number(y - r)]]]]
        let file = try TemporaryDirectory.forTestCase("hazard").appending("hazard.geojson")
        try JSONEncoder().encode(area).write(to: file)
        let cli = try await Self.command(["network", "hazard", "--area", file.path, "--origin", "114.79,30.83"], store: path)
        let api = try await Self.process("hazard-overlay", ["area": area, "origin": [114.79, 30.83], "profile": "driving"], store: store)
        #expect(cli == api)
    }

    @Test("network trace = network-trace (drainage and water)")
    func trace() async throws {
        let (store, path, district) = try await Self.built.value
        let manhole = try #require(district[layer: "drainage_manholes"].first?.id?.description)
        let cli = try await Self.command(["network", "trace", "--network", "drainage", "--from", manhole], store: path)
        let api = try await Self.process("network-trace", ["network": "drainage", "from": .string(manhole), "direction": "down"],
                                         store: store, member: "features")
        #expect(cli["features"]?.arrayValue?.isEmpty == false)
        #expect(cli == api)
        let main = try #require(district[layer: "water_mains"].first?.id?.description)
        let water = try await Self.command(["network", "trace", "--network", "water", "--from", main], store: path)
        #expect(water == (try await Self.process("network-trace", ["network": "water", "from": .string(main), "direction": "down"],
                                                 store: store, member: "features")))
    }

    @Test("network isolate = valve-isolation")
    func isolate() async throws {
        let (store, path, district) = try await Self.built.value
        let main = try #require(district[layer: "water_mains"].dropFirst(3).first?.id?.description)
        let cli = try await Self.command(["network", "isolate", "--main", main], store: path)
        let api = try await Self.process("valve-isolation", ["main": .string(main), "failedValves": []], store: store)
        #expect(cli["burst_main"]?.stringValue == main)
        #expect(cli == api)
    }

    @Test("network route = route, around a closed area too; no way around is a refusal saying why")
    func route() async throws {
        let (store, path, _) = try await Self.built.value
        let cli = try await Self.command(["network", "route", "--from", "114.80,30.84", "--to", "114.82,30.85"], store: path)
        let api = try await Self.process("route", ["from": [114.80, 30.84], "to": [114.82, 30.85]], store: store, member: "route")
        #expect(cli["geometry"]?["type"] == "LineString")
        #expect(cli == api)
        let block: JSONValue = ["type": "Polygon", "coordinates": [[[114.805, 30.842], [114.812, 30.842], [114.812, 30.848], [114.805, 30.848], [114.805, 30.842]]]]
        let around = try await Self.process("route", ["from": [114.80, 30.84], "to": [114.82, 30.85], "avoidArea": block], store: store)
        let open = try #require(api["properties"]?["seconds"]?.doubleValue)
        #expect((around["route"]?["properties"]?["seconds"]?.doubleValue ?? 0) > open)
        #expect((around["closed_metres"]?.doubleValue ?? 0) > 0)
        // The destination inside the closed area: no route, and why.
        let inside = try await Self.process("route", ["from": [114.80, 30.84], "to": [114.8085, 30.845], "avoidArea": block], store: store)
        #expect(inside["route"] == .null)
        #expect(inside["unavailable"]?.stringValue?.contains("'to'") == true)
    }

    @Test("signal plan --intersection = signal-timing, signal corridor --id = green-wave, signal evaluate = signal-evaluate")
    func signals() async throws {
        let (store, path, _) = try await Self.built.value
        let plan = try await Self.command(["signal", "plan", "--intersection", "SI-006", "--period", "07:00-09:00", "--json"], store: path)
        #expect(plan["plans"]?.arrayValue?.count == 1)
        #expect(plan == (try await Self.process("signal-timing", ["intersections": ["SI-006"], "period": "07:00-09:00"], store: store)))
        let corridor = try await Self.command(["signal", "corridor", "--id", "SC-001", "--json"], store: path)
        #expect(corridor["corridor"] == "SC-001")
        #expect(corridor == (try await Self.process("green-wave", ["corridor": "SC-001"], store: store, member: "plan")))
        let evaluation = try await Self.command(["signal", "evaluate", "--intersection", "SI-006", "--period", "17:00-18:00", "--json"], store: path)
        #expect(evaluation["plan_id"] == "SP-SI-006-ALL")
        #expect(evaluation == (try await Self.process("signal-evaluate", ["intersection": "SI-006", "period": "17:00-18:00", "simulate": "none"], store: store)))
    }

    @Test("geocode FILE.csv = geocoding with csv (forward and reverse), broken and unmatched rows answered with their reason")
    func geocode() async throws {
        let (store, path, district) = try await Self.built.value
        let addresses = district[layer: "addresses"].filter { $0.properties["level"] == "门牌" }.prefix(3)
        let texts = addresses.compactMap { $0.properties["full_address"]?.stringValue }
        #expect(texts.count == 3)
        let csv = "id,address\n1,\(texts[0])\n2,\n3,火星大道99号\n4,\(texts[1]),extra\n5,\"\(texts[2])\n6,\(texts[2])\n"
        let file = try TemporaryDirectory.forTestCase("geocode").appending("addresses.csv")
        try Data(csv.utf8).write(to: file)
        let cli = String(decoding: try await Self.output(["geocode", file.path], store: path), as: UTF8.self)
        let api = try await Self.process("geocoding", ["csv": .string(csv), "column": "address"], store: store)
        #expect(cli == api["csv"]?.stringValue)
        #expect(api["rows"] == 6 && api["matched"] == 2)
        let lines = cli.split(separator: "\n").map(String.init)
        #expect(lines[0] == "id,address,address_code,match_level,confidence,matched_address,lon,lat,reason")
        #expect(lines[1].hasPrefix("1,\(texts[0]),") && lines[1].hasSuffix(","), "a match has no reason: \(lines[1])")
        #expect(lines[2].hasSuffix("line 3: the address is empty"))
        #expect(lines[3].hasSuffix("line 4: names no standard address of the district or contradicts itself"))
        #expect(lines[4].hasSuffix("line 5: the row has 3 fields where the header has 2"))
        #expect(lines[5].hasSuffix("line 6: a quoted field is never closed"))
        #expect(lines[6].hasPrefix("6,\(texts[2]),") && lines[6].hasSuffix(","), "the row after a broken one still answers: \(lines[6])")

        guard case .point(let door)? = addresses.first?.geometry, let point = door.position else {
            Issue.record("a door plate address is a point"); return
        }
        let points = "name,lon,lat\na,\(point.x),\(point.y)\nb,east,30.8\n"
        let pointsFile = try TemporaryDirectory.forTestCase("reverse").appending("points.csv")
        try Data(points.utf8).write(to: pointsFile)
        let reverse = String(decoding: try await Self.output(["geocode", pointsFile.path, "--reverse"], store: path), as: UTF8.self)
        let reverseAPI = try await Self.process("geocoding", ["csv": .string(points), "reverse": true, "lonColumn": "lon", "latColumn": "lat"],
                                                store: store)
        #expect(reverse == reverseAPI["csv"]?.stringValue)
        #expect(reverseAPI["matched"] == 1)
        #expect(reverse.contains("line 3: lon 'east' is not a longitude in degrees"))
    }

    @Test("geocode --encoding GBK reads a GBK table (what Excel saves on a Chinese Windows) as import --encoding does: the same answer as its UTF-8 copy; without it the command says to give it")
    func geocodeGBK() async throws {
        let (_, path, _) = try await Self.built.value
        let directory = try TemporaryDirectory.forTestCase("geocode-gbk")
        let utf8 = directory.appending("utf8.csv"), gbk = directory.appending("gbk.csv")
        try Data("name,address\na,邾城七路26号\nb,不存在的地址\n".utf8).write(to: utf8)
        // The same table in GBK, as `iconv -t GBK` writes it.
        try Data([110, 97, 109, 101, 44, 97, 100, 100, 114, 101, 115, 115, 10, 97, 44, 219, 165, 179, 199, 198, 223, 194, 183, 50, 54, 186, 197, 10,
                  98, 44, 178, 187, 180, 230, 212, 218, 181, 196, 181, 216, 214, 183, 10]).write(to: gbk)
        let expected = try await Self.output(["geocode", utf8.path], store: path)
        #expect(String(decoding: expected, as: UTF8.self).contains("a,邾城七路26号,"))
        #expect(try await Self.output(["geocode", gbk.path, "--encoding", "GBK"], store: path) == expected)
        #expect(try await Self.output(["geocode", gbk.path, "--encoding", "gb18030"], store: path) == expected)
        do {
            _ = try await Self.output(["geocode", gbk.path], store: path)
            Issue.record("a GBK table was read as UTF-8")
        } catch let e as GeometryError {
            #expect(e.message.contains("is not valid UTF-8 text (try --encoding GBK)"), "\(e.message)")
        }
    }

    @Test("a bad input fails the command with the process's own error, naming the input")
    func badInput() async throws {
        let (_, path, _) = try await Self.built.value
        do {
            _ = try await Self.command(["network", "isochrone", "--at", "114.801,30.842", "--minutes", "0,5"], store: path)
            Issue.record("a 0-minute break is refused as the process refuses it")
        } catch let e as GeometryError {
            #expect(e.message.contains("input 'breaks'"), "\(e.message)")
        }
    }

    @Test("signal corridor --diagram draws the time–space diagram as its extension asks: SVG, or PNG through rsvg-convert; another extension is refused before any work")
    func diagramFormats() async throws {
        let (_, path, _) = try await Self.built.value
        let directory = try TemporaryDirectory.forTestCase("diagrams")
        let corridor = ["signal", "corridor", "--input", "Models/signals/corridor-example.json", "--diagram"]
        _ = try await Self.output(corridor + [directory.path + "/d.svg"], store: path)
        let svg = try String(contentsOfFile: directory.path + "/d.svg", encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("outbound band (J1 → J4)"))
        _ = try await Self.output(corridor + [directory.path + "/d.PNG"], store: path)
        let png = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/d.PNG"))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        // IHDR: twice the SVG's 960 × 540.
        let size = { (at: Int) in png[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        #expect(png.count > 8 + 25 && size(16) == 1920 && size(20) == 1080)
        do {
            _ = try await Self.output(corridor + [directory.path + "/d.pdf"], store: path)
            Issue.record("a .pdf diagram was written")
        } catch let e as GeometryError {
            #expect(e.message.contains("--diagram must name a .svg or .png file"), "\(e.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/d.pdf"))
    }

    @Test("an output path that cannot be made fails the command naming the path and the system's reason, not a Foundation error code")
    func unwritableOutput() async throws {
        let (_, path, _) = try await Self.built.value
        let directory = try TemporaryDirectory.forTestCase("outputs")
        // A file where a directory is wanted.
        let file = directory.url.appendingPathComponent("a-file").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let cases: [([String], String)] = [
            (["signal", "export-sumo", "--intersection", "SI-009", "--out", file + "/sumo"], "--out \(file)/sumo: cannot be created (Not a directory)"),
            (["signal", "corridor", "--input", "Models/signals/corridor-example.json", "--diagram", directory.path + "/missing/d.svg"],
             "\(directory.path)/missing/d.svg: cannot be written (No such file or directory)"),
        ]
        for (arguments, message) in cases {
            do {
                _ = try await Self.output(arguments, store: path)
                Issue.record("citytwin \(arguments.joined(separator: " ")) succeeded")
            } catch let e as GeometryError {
                #expect(e.message.contains(message) && !e.message.contains("NSCocoaErrorDomain"), "\(e.message)")
            }
        }
    }
}
