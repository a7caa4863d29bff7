import Flood
import Foundation
import GeoCore
import Hummingbird
import Scenarios
import Tiles
import TwinStore

/// Depth grids read from the result rasters, kept while their file is unchanged (a few steps of
/// a few runs): a map tile then costs the drawing, not the parsing of a grid.
final class DepthGridCache: @unchecked Sendable {
    private let lock = NSLock()
    private var grids: [String: (modified: Date, grid: Grid)] = [:]
    private var order: [String] = []
    let capacity: Int

    init(capacity: Int = 48) {
        self.capacity = capacity
    }

    /// The grid in `file` (ESRI ASCII), or nil when there is none.
    func grid(_ file: URL) throws -> Grid? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
              let modified = attributes[.modificationDate] as? Date else { return nil }
        if let hit = lock.withLock({ grids[file.path] }), hit.modified == modified { return hit.grid }
        let grid = try Grid.read(esriASCIIAt: file)
        lock.withLock {
            if grids[file.path] == nil { order.append(file.path) }
            grids[file.path] = (modified, grid)
            while order.count > capacity { grids[order.removeFirst()] = nil }
        }
        return grid
    }
}

/// A flood run's depth over time: its time steps and the depth map tiles of each step.
struct DepthMapRoutes: OperationCollection {
    let store: any FeatureStore
    let layers: LayerDirectory
    /// Where runs keep their rasters (`ServerOptions.rasters`).
    let rasters: ResultRasters?
    /// Depth grids read from the rasters, kept while their file is unchanged.
    let depthGrids: DepthGridCache
    let cityMetricCRS: CityMetricCRSCache
    let depthLinks: DepthMapLinks

    /// A flood run's depth over time (`FloodTimeSteps`, beside its depth layer):
    /// `/collections/{collectionId}/timesteps` lists the steps with the URL of each step's grid
    /// and of the series (hydrographs at nodes, depth over time on roads, CSV and JSON), and
    /// `/collections/{collectionId}/map/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}`
    /// draws the depth at `datetime` as a PNG (OGC API Maps tiles; classes of
    /// `DepthColourRamp.flood`). Both follow the depth layer's access rules.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let refused: [APIResponse] = [
            .problem(401, "The layer is not open: send a bearer token."),
            .problem(403, "The caller's department may not read the layer."),
        ]
        let tms = APIParameter("tileMatrixSetId", in: .path, "Tile matrix set: WebMercatorQuad, WorldCRS84Quad or CGCS2000Quad.")
        return [
            APIOperation(
                id: "getCollectionTimeSteps", method: .get, path: "/collections/{collectionId}/timesteps",
                summary: "The time steps of a flood run's depth: date-time, seconds and the grid of each step, the series, the map tile template and legend.",
                tag: "Data", parameters: [.collectionID],
                responses: [.ok("The time steps.", [(MediaTypeName.json, "TimeSteps")]),
                            .problem(404, "No such collection, or it kept no time steps.")] + refused + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                let steps = try await timeSteps(id, caller: context.caller)
                return .json(depthLinks.timeSteps(steps))
            },
            APIOperation(
                id: "getCollectionMapTile", method: .get, path: "/collections/{collectionId}/map/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}",
                summary: "The water depth at a time step as a PNG map tile (classes < 0.05 (transparent), 0.05–0.15, 0.15–0.3, 0.3–0.5, > 0.5 m); permanent water (rivers, lakes) transparent.",
                tag: "Tiles",
                parameters: [.collectionID, tms,
                             APIParameter("tileMatrix", in: .path, "Level (zoom).", schema: ["type": "integer"]),
                             APIParameter("tileRow", in: .path, "Row from the top, 0-based.", schema: ["type": "integer", "minimum": 0]),
                             APIParameter("tileCol", in: .path, "Column from the left, 0-based.", schema: ["type": "integer", "minimum": 0]),
                             .mapDatetime],
                responses: [.ok("The map tile.", [("image/png", "PNG")]),
                            APIResponse(status: 204, description: "The tile is in range but dry or off the run's grid.", content: []),
                            .problem(404, "No such collection or time steps, a tile outside the matrix set, or a datetime outside the run.")] + refused + common
            ) { [self] request, context, query in
                let id = try pathParameter(context, "collectionId")
                let steps = try await timeSteps(id, caller: context.caller)
                let step = try Self.step(of: steps, query["datetime"])
                let tileMatrixSet: TileMatrixSet
                do { tileMatrixSet = try TileMatrixSet.named(try pathParameter(context, "tileMatrixSetId")) } catch let e as TileError { throw Problem.tile(e) }
                func integer(_ name: String) throws -> Int {
                    let raw = try pathParameter(context, name)
                    guard let v = Int(raw) else { throw Problem.invalid(name, "'\(raw)' is not an integer") }
                    return v
                }
                let tile = TileID(matrix: try integer("tileMatrix"), row: try integer("tileRow"), col: try integer("tileCol"))
                do { try tileMatrixSet.validate(tile) } catch let e as TileError { throw Problem.tile(e) }
                guard let rasters = rasters, let file = rasters.file(layer: id, name: step.raster),
                      let grid = try depthGrids.grid(file) else {
                    throw Problem(.notFound, "the grid of step \(step.datetime) of collection '\(id)' is missing")
                }
                // Permanent water (rivers, lakes) is the base map's, not a depth class.
                let water = try steps.permanentWater.flatMap { rasters.file(layer: id, name: $0) }.flatMap { try depthGrids.grid($0) }
                // A run's grids are in the city's metric CRS, which the store records once for good.
                let gridCRS = try await cityMetricCRS.gridCRS(of: store)
                let png: [UInt8]?
                do { png = try GridTileRenderer.png(grid, crs: gridCRS, tileMatrixSet: tileMatrixSet, tile: tile, mask: water) } catch let e as TileError {
                    throw Problem.tile(e)
                }
                var headers = HTTPFields()
                headers[.cacheControl] = "public, max-age=3600"
                let etag = CachedTile.etag(of: Array("\(id)/\(step.raster)/\(tileMatrixSet.id)/\(tile)".utf8) + (png ?? []))
                headers[.eTag] = etag
                if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) {
                    return Representation(status: .notModified, mediaType: "image/png", body: [], headers: headers)
                }
                guard let png else { return Representation(status: .noContent, mediaType: "image/png", body: [], headers: headers) }
                return Representation(mediaType: "image/png", body: png, headers: headers)
            },
        ]
    }

    /// The time steps of depth layer `id` as `caller` may read them.
    /// - Throws: the layer's read refusal; 404 when it kept no steps.
    func timeSteps(_ id: String, caller: Caller) async throws -> FloodTimeSteps {
        _ = try await layers.readable(id, caller: caller, reading: "its depth over time")
        guard let rasters = rasters, let steps = FloodTimeSteps.read(layer: id, rasters: rasters), !steps.steps.isEmpty else {
            throw Problem(.notFound, "collection '\(id)' has no depth over time (a flood run's depth layer, flood_<scenario>_depth or scenario_<id>_depth, has)")
        }
        return steps
    }

    /// The step the `datetime` parameter selects: an RFC 3339 instant within the run (the step
    /// in force then); absent, the last step.
    /// - Throws: 400 naming `datetime` for a value that is not an instant; 404 naming it for an
    ///   instant outside the run, with the run's interval.
    static func step(of steps: FloodTimeSteps, _ text: String?) throws -> FloodTimeSteps.Step {
        guard let text else { return steps.steps[steps.steps.count - 1] }
        guard text.contains("T") || text.contains("t"), !text.contains("/"), let instant = DateTimeParameter.instant(text, dayEnd: false) else {
            throw Problem.invalid("datetime", "'\(text)' is not an RFC 3339 date-time (a map tile shows one instant, e.g. \(steps.steps[0].datetime))")
        }
        guard let step = steps.step(at: instant) else {
            let interval = steps.interval.map { "\($0.start)/\($0.end)" } ?? "?"
            throw Problem(.notFound, "parameter 'datetime': \(text) is outside the run (\(interval))", parameter: "datetime")
        }
        return step
    }
}

/// The links of a depth layer's time steps and map tiles, as `/collections/{id}/timesteps` and
/// `/scenarios/{id}` give them.
struct DepthMapLinks: Sendable {
    let site: SiteLinks

    /// The tile URL template of a depth layer's map tiles (WebMercatorQuad).
    func tileLink(_ layer: String) -> JSONValue {
        var l = site.link("/collections/\(layer)/map/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?datetime={datetime}",
                          rel: "item", type: "image/png", title: "Depth map tiles per time step").objectValue ?? [:]
        l["templated"] = true
        return .object(l)
    }

    /// The time steps as `/collections/{id}/timesteps` and `/scenarios/{id}` show them.
    func timeSteps(_ steps: FloodTimeSteps) -> JSONValue {
        var links: [JSONValue] = [site.link("/collections/\(steps.layer)/timesteps", rel: "self", type: MediaTypeName.json), tileLink(steps.layer)]
        for (name, path) in steps.series.sorted(by: { $0.key < $1.key }) {
            links.append(site.link(path, rel: "enclosure", type: name.hasSuffix("CSV") ? "text/csv" : MediaTypeName.json, title: name))
        }
        return [
            "layer": .string(steps.layer), "start": .string(steps.start), "end": .string(steps.interval?.end ?? steps.start),
            // A design storm's times are T+ from its start, not the city's clock (issue 77 §6).
            "clock": .string((steps.clock ?? .storm).rawValue),
            "clock_note": .string(steps.clock == .wall ? "observed rain: the steps are real times" : "设计暴雨，非实况: a design storm; read the steps as T+ minutes from its start"),
            "steps": .array(steps.steps.map { s in
                ["datetime": .string(s.datetime), "seconds": .number(s.seconds),
                 "grid": .string(site.url(ResultRasters.path(layer: steps.layer, name: s.raster))),
                 "tiles": .string(site.url("/collections/\(steps.layer)/map/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?datetime=\(s.datetime)"))]
            }),
            "legend": .array(DepthColourRamp.flood.legend.map { ["label": .string($0.label), "colour": .string($0.colour)] }),
            "series": .object(steps.series.mapValues { .string(site.url($0)) }),
            "links": .array(links),
        ]
    }
}

extension APIParameter {
    static let mapDatetime = APIParameter(
        "datetime", "RFC 3339 instant within the run: the map shows the time step in force then (default: the last step).",
        schema: ["type": "string", "format": "date-time"], key: "datetime_map")
}
