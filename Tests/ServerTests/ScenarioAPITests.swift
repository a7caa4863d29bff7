import CityModel
import Flood
import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Logging
import ProcessRuntime
import Scenarios
import Server
import TestSupport
import Testing
import Tiles
import TwinStore

/// Issue 19 over HTTP on the sample district: `/scenarios` (create, run as a job, read),
/// `compare-scenarios` on the p50 pair, the depth per time step as PNG map tiles that agree with
/// the run's grids, and the bad inputs (unfinished scenario 409, datetime outside the run 404).
/// Quick settings as `FloodScenarioDistrictTests`: storm at 3 % of its duration, 100 m cells.
@Suite("Scenarios and depth map tiles over HTTP", .serialized)
struct ScenarioAPITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }

    static func scenario(_ id: String, model: String) -> String {
        """
        {"id": "\(id)", "title": "\(id)", "parameters": {"model": "\(model)", "durationScale": 0.03, "demCoarsening": 10, "outputIntervalMinutes": 1},
         "base": "\(Scenario.text(Date()))"}
        """
    }

    static func run(_ body: @Sendable (any TestClientProtocol, String, ResultRasters) async throws -> Void) async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await withTemporaryDirectory("scenario-api") { dir in
            let store = try dir.openStore("district.sqlite")
            try await DistrictLoader.build(into: store, layersDirectory: repository.appendingPathComponent("Layers"))
            let rasters = ResultRasters.beside(storeDirectory: dir.url)
            let flood = FloodScenarioProcess(scenariosDirectory: repository.appendingPathComponent("Models/scenarios"),
                                             stormCatalog: repository.appendingPathComponent("Models/storm-intensity.json"),
                                             rasters: rasters, resultLayers: repository.appendingPathComponent("Layers/results"))
            let authority = try TokenAuthority(secret: (0..<32).map { _ in UInt8.random(in: 0...255) })
            let token = authority.issue(TokenClaims(department: "水务和湖泊局", role: .editor, subject: "规划员", lifetime: 3600))
            let server = CityTwinServer(store: store, options: ServerOptions(
                baseURL: "http://test.local", logger: logger, tokenVerifier: authority,
                processes: ProcessRegistry([flood, ScenarioRunProcess(flood: flood), CompareScenariosProcess()]), rasters: rasters))
            try await server.makeApplication().test(.router) { client in try await body(client, token, rasters) }
        }
    }

    /// Waits for job `location` to end; its final status document.
    static func finish(_ client: any TestClientProtocol, _ location: String, token: String) async throws -> JSONValue {
        for _ in 0..<3600 {
            let doc = try await client.get(relative(location), headers: bearer(token)).json
            if let s = doc["status"]?.stringValue, s != "accepted", s != "running" { return doc }
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("job \(location) did not finish")
        return .null
    }

    @Test("create and run the p50 pair, compare it, and draw the depth at two times as tiles that agree with the grids")
    func endToEnd() async throws {
        try await Self.run { client, token, rasters in
            // Writing needs a token.
            let anonymous = try await client.execute(uri: "/scenarios", method: .post, headers: [.contentType: "application/json"],
                                                     body: ByteBuffer(string: Self.scenario("p50-base", model: "p50-waterlogging")))
            try expectProblem(anonymous, status: 401, type: "unauthorized")
            for (id, model) in [("p50-base", "p50-waterlogging"), ("p50-storage", "p50-with-storage")] {
                let r = try await client.execute(uri: "/scenarios", method: .post, headers: Self.bearer(token), body: ByteBuffer(string: Self.scenario(id, model: model)))
                #expect(r.status == .created, "\(r.text)")
                #expect(r.headers[.location] == "http://test.local/scenarios/\(id)")
            }
            let bad = try await client.execute(uri: "/scenarios", method: .post, headers: Self.bearer(token),
                                               body: ByteBuffer(string: #"{"id": "x1", "parameters": {"model": "p50-waterlogging", "durationScale": 7}}"#))
            try expectProblem(bad, status: 400, type: "invalid-input", naming: "parameters.durationScale")
            let taken = try await client.execute(uri: "/scenarios", method: .post, headers: Self.bearer(token),
                                                 body: ByteBuffer(string: Self.scenario("p50-base", model: "p50-waterlogging")))
            try expectProblem(taken, status: 409, type: "conflict", naming: "id")
            // Scenarios are shared with departments: the public sees none.
            #expect(try await client.get("/scenarios").json["scenarios"] == [])
            let list = try await client.get("/scenarios", headers: Self.bearer(token)).json
            #expect(list["scenarios"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["p50-base", "p50-storage"])

            let run = try await client.execute(uri: "/scenarios/p50-base/run", method: .post, headers: Self.bearer(token))
            #expect(run.status == .created, "\(run.text)")
            let done = try await Self.finish(client, try #require(run.headers[.location]), token: token)
            #expect(done["status"] == "successful", "\(done)")
            // Comparing with a scenario that has not run: 409 naming it.
            let execute = { (a: String, b: String) in
                try await client.execute(uri: "/processes/compare-scenarios/execution", method: .post, headers: Self.bearer(token),
                                         body: ByteBuffer(string: #"{"inputs": {"a": "\#(a)", "b": "\#(b)"}}"#))
            }
            try expectProblem(try await execute("p50-base", "p50-storage"), status: 409, type: "conflict", naming: "b")
            try expectProblem(try await execute("nothing", "p50-base"), status: 404, type: "not-found", naming: "nothing")
            let run2 = try await client.execute(uri: "/scenarios/p50-storage/run", method: .post, headers: Self.bearer(token))
            let done2 = try await Self.finish(client, try #require(run2.headers[.location]), token: token)
            #expect(done2["status"] == "successful", "\(done2)")

            let compared = try await execute("p50-base", "p50-storage")
            #expect(compared.status == .ok, "\(compared.text)")
            let result = try compared.json
            #expect(result["layers"] == ["diff_p50_base_p50_storage"])
            let row = try #require(result["summary"]?["table"]?.arrayValue?.first { $0["measure"]?.stringValue?.hasPrefix("flooded roads") == true })
            // The quick storm barely wets the streets (see ScenarioCompareTests): no more flooded roads with storage.
            #expect((row["b"]?.doubleValue ?? 1e9) <= (row["a"]?.doubleValue ?? 0), "flooded roads with storage: \(row)")
            let diffItems = try await client.get("/collections/diff_p50_base_p50_storage/items?kind=road&change=no%20longer%20flooded&limit=1000",
                                                 headers: Self.bearer(token)).json
            #expect(Double(diffItems["features"]?.arrayValue?.count ?? -1) >= (row["a"]?.doubleValue ?? 0) - (row["b"]?.doubleValue ?? 0))

            // The scenario links its results over time.
            let doc = try await client.get("/scenarios/p50-base", headers: Self.bearer(token)).json
            #expect(doc["status"] == "successful")
            let steps = try #require(doc["timeSteps"]?["steps"]?.arrayValue)
            #expect(steps.count >= 2)
            let layer = "scenario_p50_base_depth"
            let index = try #require(FloodTimeSteps.read(layer: layer, rasters: rasters))
            // The grid of a step downloads through its URL, as the file is.
            let firstGrid = try Grid(esriASCII: try await client.get(relative(try #require(steps.first?["grid"]?.stringValue)), headers: Self.bearer(token)).text)
            #expect(firstGrid == (try Grid.read(esriASCIIAt: try #require(rasters.file(layer: layer, name: index.steps[0].raster)))))

            // Permanent water (the run's mask beside the steps: rivers, lakes) is not drawn.
            let waterName = try #require(index.permanentWater)
            let water = try Grid.read(esriASCIIAt: try #require(rasters.file(layer: layer, name: waterName)))
            #expect(water.width == firstGrid.width && water.height == firstGrid.height)
            #expect(water.values.contains(1), "the district's rivers and lakes are permanent water")
            // Two steps and a cell off permanent water whose depth class changes between them: the water moved there.
            let ramp = DepthColourRamp.flood
            let grids = try index.steps.map { try Grid.read(esriASCIIAt: try #require(rasters.file(layer: layer, name: $0.raster))) }
            var pair: (Int, Int, Int)?
            search: for i in grids.indices {
                for j in grids.indices where j > i {
                    if let k = grids[i].values.indices.first(where: { water.values[$0] == 0 && ramp.index(grids[i].values[$0]) != ramp.index(grids[j].values[$0]) }) {
                        pair = (i, j, k)
                        break search
                    }
                }
            }
            let (i, j, moved) = try #require(pair, "the depth classes off permanent water change between two steps")
            let first = steps[i], last = steps[j]
            let gridA = grids[i], gridB = grids[j]
            let cell = gridA.cellCenter(column: moved % gridA.width, row: moved / gridA.width)
            let lonLat = try CoordinateTransformer.shared(from: .districtMetric, to: .cgcs2000).transform(cell)
            let tms = TileMatrixSet.webMercatorQuad
            let tile = try tms.tile(containing: lonLat, level: 14)
            func png(_ datetime: String) async throws -> PNGEncoder.IndexedImage? {
                let r = try await client.get("/collections/\(layer)/map/tiles/WebMercatorQuad/\(tile.matrix)/\(tile.row)/\(tile.col)?datetime=\(datetime)",
                                             headers: Self.bearer(token))
                if r.status == .noContent { return nil }
                #expect(r.status == .ok && r.contentType == "image/png", "\(r.status) \(r.text.prefix(200))")
                return try PNGEncoder.decodeIndexed(Array(r.body.readableBytesView))
            }
            let imageA = try await png(try #require(first["datetime"]?.stringValue))
            let imageB = try await png(try #require(last["datetime"]?.stringValue))
            let blank = [UInt8](repeating: 0, count: 256 * 256)
            #expect((imageA?.pixels ?? blank) != (imageB?.pixels ?? blank), "the tile differs where the water moved")
            // Every pixel shows the class of the grid cell under its centre, none on permanent water (off by at most one
            // pixel at cell edges: the tile's reprojection is interpolated over a lattice).
            let bounds = try tms.bounds(of: tile)
            let toGrid = try CoordinateTransformer.shared(from: .webMercator, to: .districtMetric)
            for (image, grid) in [(imageA, gridA), (imageB, gridB)] {
                let pixels = image?.pixels ?? blank
                var agree = 0, edge = 0
                for py in stride(from: 0, to: 256, by: 3) {
                    for px in stride(from: 0, to: 256, by: 3) {
                        let span = (bounds.maxX - bounds.minX) / 256
                        let p = try toGrid.transform(Position(x: bounds.minX + (Double(px) + 0.5) * span, y: bounds.maxY - (Double(py) + 0.5) * span))
                        let expected = grid.cell(containing: p).map { water[column: $0.column, row: $0.row] != 0 ? 0 : ramp.index(grid[column: $0.column, row: $0.row]) } ?? 0
                        if pixels[py * 256 + px] == expected { agree += 1; continue }
                        // A mismatch must sit within a pixel of a cell boundary.
                        let c = grid.geoTransform.cellCoordinates(of: p)!
                        let fc = c.column - c.column.rounded(.down), fr = c.row - c.row.rounded(.down)
                        let pixelInCells = span / grid.geoTransform.pixelWidth * 2
                        #expect(min(fc, 1 - fc) < pixelInCells || min(fr, 1 - fr) < pixelInCells, "pixel \(px),\(py) away from a cell edge")
                        edge += 1
                    }
                }
                #expect(agree > 0 && edge * 100 <= agree, "\(agree) pixels agree, \(edge) at cell edges")
            }

            // Bad times: outside the run 404 naming datetime; not an instant 400.
            let start = try #require(Scenario.instant(index.start))
            let before = Scenario.text(start.addingTimeInterval(-3600))
            let outside = try await client.get("/collections/\(layer)/map/tiles/WebMercatorQuad/\(tile.matrix)/\(tile.row)/\(tile.col)?datetime=\(before)",
                                               headers: Self.bearer(token))
            try expectProblem(outside, status: 404, type: "not-found", naming: "datetime")
            let notInstant = try await client.get("/collections/\(layer)/map/tiles/WebMercatorQuad/\(tile.matrix)/\(tile.row)/\(tile.col)?datetime=yesterday",
                                                  headers: Self.bearer(token))
            try expectProblem(notInstant, status: 400, type: "invalid-parameter", naming: "datetime")
            // The depth is the water authority's draft what-if (issue 77 §2): to the public it does not exist.
            let publicTile = try await client.get("/collections/\(layer)/map/tiles/WebMercatorQuad/\(tile.matrix)/\(tile.row)/\(tile.col)")
            #expect(publicTile.status == .notFound)
            let timesteps = try await client.get("/collections/\(layer)/timesteps", headers: Self.bearer(token)).json
            #expect(timesteps["steps"]?.arrayValue?.count == steps.count)
            #expect(timesteps["legend"]?.arrayValue?.count == 5)
            // A design storm's steps are T+ from its start, not real times (issue 77 §6).
            #expect(timesteps["clock"] == "storm" && timesteps["clock_note"]?.stringValue?.contains("设计暴雨，非实况") == true)
            let csv = try await client.get(relative(try #require(timesteps["series"]?["roadDepthsCSV"]?.stringValue)), headers: Self.bearer(token))
            #expect(csv.status == .ok && csv.text.hasPrefix("road_id,datetime,seconds,max_depth_m\n"))
        }
    }
}
