import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Server
import Testing
import TwinStore

/// No HTTP input names a file on the server (issue 58 §1): a flood run's `dem` is the id of a
/// raster the store manages, a path is refused naming the input without reading the file, and
/// no message quotes a file's contents. The rasters are listed and downloaded under their access
/// rule (departments read, the public does not); the store side is `ManagedRasterStoreTests`.
@Suite("Managed rasters: the DEM by id, never a server path")
struct ManagedRasterTests {
    static let water = "水务和湖泊局"

    /// A small DEM in EPSG:4547.
    static func grid() throws -> (Grid, Data) {
        let grid = try Grid(width: 4, height: 3, geoTransform: .northUp(west: 500_000, north: 3_400_030, cellWidth: 10, cellHeight: 10),
                            values: (0..<12).map { Float(20 + $0) })
        let data = try grid.esriASCIIData(precision: 2)
        return (grid, data)
    }

    @Test("a flood run given a server path as its DEM is refused naming 'dem' (400) without reading the file, and no job is created")
    func pathRefused() async throws {
        try await WritableAPI.run { api in
            for path in ["/etc/passwd", "../district.sqlite.token-secret", "dem.asc", "/work/x/dem", "DEM"] {
                let r = try await ProcessRefusalTests.execute(api, "flood-scenario", ["scenario": "p50-waterlogging", "dem": .string(path)],
                                                              token: api.token(Self.water))
                try expectProblem(r, status: 400, type: "invalid-input", naming: "dem")
                #expect(!r.text.contains("root:"), "the refusal quotes no file: \(r.text)")
                #expect(r.text.contains("not a file path"), "\(r.text)")
            }
            #expect(try await api.store.jobs(visibleTo: .admin, limit: 10).isEmpty, "no job was accepted")
        }
    }

    @Test("a DEM id the store does not have is refused naming 'dem' and the raster it asked for")
    func unknownAndKnownID() async throws {
        try await WritableAPI.run { api in
            let missing = try await ProcessRefusalTests.execute(api, "flood-scenario", ["scenario": "p50-waterlogging", "dem": "city-dem"],
                                                                token: api.token(Self.water))
            try expectProblem(missing, status: 400, type: "invalid-input", naming: "dem")
            #expect(missing.text.contains("no raster 'city-dem'"), "\(missing.text)")
        }
    }

    @Test("GET /rasters lists the managed rasters for a department (401 for the public); /rasters/{id}/data is the grid; an unknown or unsafe id is 404")
    func routes() async throws {
        try await WritableAPI.run { api in
            let (grid, data) = try Self.grid()
            try await api.store.putRaster(try ManagedRaster.describe(grid, data: data, id: "dem", title: "DEM", kind: .dem, crs: 4547, by: .admin),
                                          data: data, replace: false, by: .admin)
            try expectProblem(try await api.send(.get, "/rasters"), status: 401, type: "unauthorized")
            try expectProblem(try await api.send(.get, "/rasters/dem/data"), status: 401, type: "unauthorized")
            let token = api.token("应急管理局", .viewer)
            let list = try await api.send(.get, "/rasters", token: token).json
            let first = try #require(list["rasters"]?.arrayValue?.first)
            #expect(first["id"] == "dem" && first["crs"] == "EPSG:4547" && first["width"] == 4)
            let one = try await api.send(.get, "/rasters/dem", token: token)
            let oneDoc = try one.json
            #expect(one.status == .ok && oneDoc["sha256"] == first["sha256"])
            let body = try await api.send(.get, "/rasters/dem/data", token: token)
            #expect(body.status == .ok)
            #expect(try Grid(esriASCIIData: Data(body.text.utf8)) == grid)
            for id in ["nothing", "..%2F..%2Fetc%2Fpasswd", "DEM"] {
                try expectProblem(try await api.send(.get, "/rasters/\(id)/data", token: token), status: 404, type: "not-found")
            }
        }
    }

    @Test("no process input reads a server file: every input of every process given a path answers without a byte of the file, never a 500")
    func noInputReadsAFile() async throws {
        try await WritableAPI.run { api in
            let token = api.token(Self.water)
            let list = try await api.send(.get, "/processes", token: token).json
            let ids = list["processes"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.count >= 15)
            for id in ids {
                let description = try await api.send(.get, "/processes/\(id)", token: token).json
                let inputs = description["inputs"]?.objectValue?.keys.sorted() ?? []
                for input in inputs {
                    for path in ["/etc/passwd", "../../../../etc/passwd"] {
                        let r = try await ProcessRefusalTests.execute(api, id, .object([input: .string(path)]), token: token)
                        #expect(r.status.code < 500, "\(id).\(input): \(r.status) \(r.text)")
                        #expect(!r.text.contains("root:"), "\(id).\(input) echoed a file: \(r.text)")
                    }
                }
            }
        }
    }
}
