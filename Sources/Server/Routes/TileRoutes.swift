import Flood
import Foundation
import GeoCore
import Hummingbird
import Tiles
import Sensing
import TwinStore

/// What the tile routes keep between requests: the tile cache (following the store's change
/// feed) and a short-lived copy of the layer catalogue for dataset tiles.
final class TileService: @unchecked Sendable {
    let cache: TileCache
    private(set) var source: TileSource
    private let lock = NSLock()
    private var catalogue: (at: Date, layers: [LayerInfo])?
    private var following = false

    /// The read-time join of latest sensor readings (`nil`: the store keeps no SensorThings data).
    let readings: SensorFeatureLinks?
    /// The layers whose features may show a reading (`SensorFeatureLinks.readingLayers`), until
    /// the change feed shows an edit of the device register.
    private var readingLayerSet: Set<String>?

    init(store: any FeatureStore, cacheCapacity: Int = 10_000, cacheBytes: Int = TileCache.defaultMaximumMiB << 20, cacheDirectory: URL? = nil) {
        let readings = (store as? any SensingStore).map { SensorFeatureLinks(store: store, sensing: $0) }
        self.readings = readings
        var source = TileSource(store: store)
        self.cache = TileCache(capacity: cacheCapacity, maximumBytes: cacheBytes, directory: cacheDirectory, extent: source.extent, buffer: source.buffer)
        self.source = source
        if readings != nil {
            // sensorthings: tiles carry the latest reading as the features API does (same join),
            // without what depends on the clock; a new observation invalidates them (`followChanges`).
            source.decorate = { [weak self] layer, features, caller in
                guard let self, let readings = self.readings, try await self.readingLayers().contains(layer) else { return }
                try await readings.attachLatest(&features, layer: layer, caller: caller, clock: false)
            }
            self.source = source
        }
    }

    /// The tiles a batch of change events stales through the readings they show
    /// (`SensorFeatureLinks.tileInvalidations`); an edit of the device register may also change
    /// which layers show readings.
    private func readingInvalidations(_ events: [ChangeEvent]) async throws -> [(layer: String, envelopes: [Envelope])] {
        guard let readings else { return [] }
        if events.contains(where: { $0.layer == SensingAlerts.governingLayer && !$0.featureID.hasPrefix("sta:") }) {
            lock.withLock { readingLayerSet = nil }
        }
        return try await readings.tileInvalidations(for: events)
    }

    /// The layers whose tiles show readings (memoised; see `readingLayerSet`).
    func readingLayers() async throws -> Set<String> {
        guard let readings else { return [] }
        if let known = lock.withLock({ readingLayerSet }) { return known }
        let layers = try await readings.readingLayers()
        lock.withLock { readingLayerSet = layers }
        return layers
    }

    /// Every layer (as admin), refreshed at most every 5 seconds; callers filter by access.
    func allLayers() async throws -> [LayerInfo] {
        if let c = lock.withLock({ catalogue }), TwinClock.current.now.timeIntervalSince(c.at) < 5 { return c.layers }
        let layers = try await source.store.layers(for: .admin)
        lock.withLock { catalogue = (TwinClock.current.now, layers) }
        return layers
    }

    /// The layers with geometry `caller` may read, by id: what the whole-map tiles, WMS and WMTS show.
    func visibleLayers(_ caller: Caller) async throws -> [LayerInfo] {
        try await allLayers().filter { $0.definition.hasGeometry && AccessPolicy.canRead($0.definition, caller) }
            .sorted { $0.definition.id < $1.definition.id }
    }

    /// How often tile requests look at the change feed for edits made elsewhere (other servers,
    /// workers, imports). Edits through this server are seen at once (`noteLocalWrite`).
    static let followInterval: TimeInterval = 0.25
    private var lastFollow = Date.distantPast
    private var localWrite = false

    /// The version of each layer's current definition, by layer id.
    private var versions: [String: (definition: LayerDefinition, version: String)] = [:]

    /// The part of a tile cache key that changes when a layer's definition does (its sharing
    /// class or masking, say), memoised per layer so a cached tile costs no JSON encoding. Looked
    /// up by id and confirmed by equality, not by hashing the whole definition (its schema
    /// included) on every request: copies of the store's cached definition share storage, so
    /// the comparison is cheap.
    func dataVersion(_ definitions: [LayerDefinition]) -> String {
        definitions.map { definition in
            if let known = lock.withLock({ versions[definition.id] }), known.definition == definition { return known.version }
            let version = CachedTile.etag(of: JSONText.bytes(definition.json))
            lock.withLock { versions[definition.id] = (definition, version) }
            return version
        }.joined()
    }

    /// Makes the next tile request read the change feed (an edit went through this server).
    func noteLocalWrite() {
        lock.withLock { localWrite = true }
    }

    /// Brings the cache up to date with the change feed (the first call starts at the store's
    /// latest change: an empty cache has nothing to invalidate). Between local writes the feed
    /// is read at most every `followInterval`, so cached tiles cost no store round trip.
    func followChanges() async throws {
        let (started, due) = lock.withLock { () -> (Bool, Bool) in
            let due = localWrite || TwinClock.current.now.timeIntervalSince(lastFollow) >= Self.followInterval
            if due { lastFollow = TwinClock.current.now; localWrite = false }
            return (following, due)
        }
        if !started {
            let latest = try await source.store.latestChange()
            lock.withLock {
                if !following { cache.startFollowing(after: latest); following = true }
            }
        }
        guard due else { return }
        do {
            var related: (@Sendable ([ChangeEvent]) async throws -> [(layer: String, envelopes: [Envelope])])?
            if readings != nil {
                related = { [weak self] events in
                    guard let self else { return [] }
                    return try await self.readingInvalidations(events)
                }
            }
            try await cache.follow(source.store, related: related)
        } catch {
            lock.withLock { localWrite = true }  // try again on the next request
            throw error
        }
    }
}

/// OGC API Tiles: vector tiles (MVT) of each collection and of the whole map in three tile matrix
/// sets, their metadata, TileJSON and the web map's MapLibre style.
struct TileRoutes: OperationCollection {
    let site: SiteLinks
    let layers: LayerDirectory
    /// The tile cache and the catalogue copy behind every tile.
    let tileService: TileService
    /// The live parking view, brought up to date before a tile of its layers.
    let parking: ParkingUpkeep
    /// The flood runs: the style shows the current one's layers.
    let floodRuns: FloodRunCatalog
    /// The base map the style draws under the layers (`ServerOptions.basemap`, `.tianditu`).
    let baseMap: BaseMapSource

    static let tilesConformance: [String] = [
        "core", "tileset", "tilesets-list", "geodata-tilesets", "dataset-tilesets", "collections-selection", "mvt", "oas30",
    ].map { "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/\($0)" }

    static let tilingSchemeRel = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"

    /// OGC API Tiles: tile matrix sets, collection and dataset tilesets, MVT tiles, TileJSON
    /// and a MapLibre style.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        let tmsID = APIParameter("tileMatrixSetId", in: .path, "Tile matrix set: WebMercatorQuad, WorldCRS84Quad or CGCS2000Quad (Tianditu c compatible, levels 1-18).")
        let tileParameters = [
            tmsID,
            APIParameter("tileMatrix", in: .path, "Level (zoom) identifier of the tile matrix set.", schema: ["type": "integer"]),
            APIParameter("tileRow", in: .path, "Row from the top, 0-based.", schema: ["type": "integer", "minimum": 0]),
            APIParameter("tileCol", in: .path, "Column from the left, 0-based.", schema: ["type": "integer", "minimum": 0]),
        ]
        let tileResponses: [APIResponse] = [
            .ok("The vector tile.", [(MediaTypeName.mvt, Self.tileSchema("VectorTile"))]),
            APIResponse(status: 204, description: "The tile is in range but has no features.", content: []),
            .problem(404, "Unknown collection or tile matrix set, or a tile outside the matrix set."),
        ] + common
        return [
            APIOperation(
                id: "getTileMatrixSetsList", method: .get, path: "/tileMatrixSets", summary: "The tile matrix sets tiles are served in.",
                tag: "Tiles", parameters: [.f], responses: [.ok("The tile matrix sets.", [(MediaTypeName.json, Self.tileSchema("TileMatrixSets"))])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let doc: JSONValue = [
                    "links": .array(site.selfAndAlternate("/tileMatrixSets", query: query, format: format, jsonType: MediaTypeName.json)),
                    "tileMatrixSets": .array(TileMatrixSet.all.map { tms in
                        var o: [String: JSONValue] = ["id": .string(tms.id), "title": .string(tms.title), "crs": .string(tms.crsURI),
                                                      "links": [site.link("/tileMatrixSets/\(tms.id)", rel: Self.tilingSchemeRel, type: MediaTypeName.json)]]
                        if let uri = tms.uri { o["uri"] = .string(uri) }
                        return .object(o)
                    }),
                ]
                return render(doc, title: "Tile matrix sets", format: format)
            },
            APIOperation(
                id: "getTileMatrixSet", method: .get, path: "/tileMatrixSets/{tileMatrixSetId}", summary: "One tile matrix set (OGC TMS 2.0 JSON).",
                tag: "Tiles", parameters: [tmsID, .f],
                responses: [.ok("The tile matrix set.", [(MediaTypeName.json, Self.tileSchema("TileMatrixSet"))]), .problem(404, "Unknown tile matrix set.")] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let tms = try tileMatrixSet(context)
                var doc = tms.document.objectValue ?? [:]
                doc["links"] = .array(site.selfAndAlternate("/tileMatrixSets/\(tms.id)", query: query, format: format, jsonType: MediaTypeName.json))
                return render(.object(doc), title: tms.title, format: format)
            },
            APIOperation(
                id: "getCollectionTileSetsList", method: .get, path: "/collections/{collectionId}/tiles", summary: "The vector tilesets of a collection.",
                tag: "Tiles", parameters: [.collectionID, .f],
                responses: [.ok("The tilesets.", [(MediaTypeName.json, Self.tileSchema("TileSets"))]), .problem(404, "No such collection.")] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let id = try pathParameter(context, "collectionId")
                let info = try await tiledLayer(id, context.caller)
                let base = "/collections/\(id)/tiles"
                let doc: JSONValue = [
                    "links": .array(site.selfAndAlternate(base, query: query, format: format, jsonType: MediaTypeName.json)),
                    "tilesets": .array(TileMatrixSet.all.map { tilesetSummary(base, $0, title: info.definition.title.zh) }),
                ]
                return render(doc, title: "\(info.definition.title.zh) tiles", format: format)
            },
            APIOperation(
                id: "describeCollectionTileSet", method: .get, path: "/collections/{collectionId}/tiles/{tileMatrixSetId}",
                summary: "Metadata of a collection's vector tileset: CRS, tiling scheme, tile URL template.",
                tag: "Tiles", parameters: [.collectionID, tmsID, .f],
                responses: [.ok("The tileset.", [(MediaTypeName.json, Self.tileSchema("TileSet"))]), .problem(404, "No such collection or tile matrix set.")] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let id = try pathParameter(context, "collectionId")
                let info = try await tiledLayer(id, context.caller)
                let tms = try tileMatrixSet(context)
                let doc = tilesetDocument("/collections/\(id)/tiles", tms, title: info.definition.title.zh, layers: [info], query: query, format: format)
                return render(doc, title: "\(info.definition.title.zh) \(tms.id)", format: format)
            },
            APIOperation(
                id: "getCollectionVectorTile", method: .get, path: "/collections/{collectionId}/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}",
                summary: "One vector tile (MVT 2.1) of a collection.", tag: "Tiles", parameters: [.collectionID] + tileParameters,
                responses: tileResponses
            ) { [self] request, context, _ in
                let id = try pathParameter(context, "collectionId")
                await parking.catchUp([id])  // parking: the live view exists before its first read
                return try await tileRepresentation(request, context, layers: [try await tiledDefinition(id, context.caller)])
            },
            APIOperation(
                id: "getDatasetTileSetsList", method: .get, path: "/tiles", summary: "The vector tilesets of the whole map (every layer the caller may read).",
                tag: "Tiles", parameters: [.f], responses: [.ok("The tilesets.", [(MediaTypeName.json, Self.tileSchema("TileSets"))])] + common
            ) { [self] request, _, query in
                let format = try OutputFormat.negotiate(query, request)
                let doc: JSONValue = [
                    "links": .array(site.selfAndAlternate("/tiles", query: query, format: format, jsonType: MediaTypeName.json)),
                    "tilesets": .array(TileMatrixSet.all.map { tilesetSummary("/tiles", $0, title: "CityTwin 一张图") }),
                ]
                return render(doc, title: "Map tiles", format: format)
            },
            APIOperation(
                id: "describeDatasetTileSet", method: .get, path: "/tiles/{tileMatrixSetId}", summary: "Metadata of the whole-map vector tileset.",
                tag: "Tiles", parameters: [tmsID, .f],
                responses: [.ok("The tileset.", [(MediaTypeName.json, Self.tileSchema("TileSet"))]), .problem(404, "Unknown tile matrix set.")] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let tms = try tileMatrixSet(context)
                let layers = try await tileService.visibleLayers(context.caller)
                let doc = tilesetDocument("/tiles", tms, title: "CityTwin 一张图", layers: layers, zoomRanges: true, query: query, format: format)
                return render(doc, title: "Map tiles \(tms.id)", format: format)
            },
            APIOperation(
                id: "getDatasetVectorTile", method: .get, path: "/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}",
                summary: "One vector tile (MVT 2.1) with a layer per collection the caller may read.", tag: "Tiles",
                parameters: tileParameters + [Self.collectionsSelection], responses: tileResponses
            ) { [self] request, context, query in
                let layers = try Self.selected(query["collections"], from: try await tileService.visibleLayers(context.caller))
                return try await tileRepresentation(request, context, layers: layers.map(\.definition), zoomRanges: true)
            },
            APIOperation(
                id: "getCollectionTileJSON", method: .get, path: "/collections/{collectionId}/tiles/{tileMatrixSetId}/tilejson.json",
                summary: "TileJSON 3.0.0 of a collection's Web Mercator tiles (WebMercatorQuad only).", tag: "Tiles", parameters: [.collectionID, tmsID],
                responses: [.ok("TileJSON.", [(MediaTypeName.json, Self.tileSchema("TileJSON"))]), .problem(404, "No such collection, or not WebMercatorQuad.")] + common
            ) { [self] _, context, _ in
                let id = try pathParameter(context, "collectionId")
                let info = try await tiledLayer(id, context.caller)
                try requireWebMercator(context)
                return .json(tileJSON("/collections/\(id)/tiles", name: info.definition.title.zh, layers: [info]))
            },
            APIOperation(
                id: "getDatasetTileJSON", method: .get, path: "/tiles/{tileMatrixSetId}/tilejson.json",
                summary: "TileJSON 3.0.0 of the whole-map Web Mercator tiles (WebMercatorQuad only).", tag: "Tiles", parameters: [tmsID],
                responses: [.ok("TileJSON.", [(MediaTypeName.json, Self.tileSchema("TileJSON"))]), .problem(404, "Not WebMercatorQuad.")] + common
            ) { [self] _, context, _ in
                try requireWebMercator(context)
                return .json(tileJSON("/tiles", name: "CityTwin 一张图", layers: try await tileService.visibleLayers(context.caller), zoomRanges: true))
            },
            APIOperation(
                id: "getDatasetStyle", method: .get, path: "/tiles/{tileMatrixSetId}/style.json",
                summary: "A MapLibre GL style (v8) drawing every layer the caller may read from the whole-map tiles (WebMercatorQuad only).",
                tag: "Tiles", parameters: [tmsID],
                responses: [.ok("The style.", [(MediaTypeName.json, Self.tileSchema("MapLibreStyle"))]), .problem(404, "Not WebMercatorQuad.")] + common
            ) { [self] _, context, _ in
                try requireWebMercator(context)
                return .json(mapLibreStyle(try await tileService.visibleLayers(context.caller), caller: context.caller,
                                           currentFloodRun: try await floodRuns.current(by: context.caller)?.stem))
            },
        ]
    }

    // MARK: - Parameters

    private func tileMatrixSet(_ context: CityTwinRequestContext) throws -> TileMatrixSet {
        let id = try pathParameter(context, "tileMatrixSetId")
        do { return try TileMatrixSet.named(id) } catch let e as TileError { throw Problem.tile(e) }
    }

    private func requireWebMercator(_ context: CityTwinRequestContext) throws {
        guard try tileMatrixSet(context) == .webMercatorQuad else {
            throw Problem(.notFound, "TileJSON and MapLibre styles are served for WebMercatorQuad only; use the OGC tileset metadata for other tile matrix sets")
        }
    }

    private func integerPath(_ context: CityTwinRequestContext, _ name: String) throws -> Int {
        let raw = try pathParameter(context, name)
        guard let v = Int(raw) else { throw Problem.invalid(name, "'\(raw)' is not an integer") }
        return v
    }

    /// A layer the caller may read that has geometry (a table without geometry has no tiles).
    private func tiledLayer(_ id: String, _ caller: Caller) async throws -> LayerInfo {
        let info = try await layers.layer(id, for: caller)
        guard info.definition.hasGeometry else { throw Problem(.notFound, "collection '\(id)' has no geometry, so no tiles") }
        return info
    }

    /// The definition of a collection with tiles, straight from the store: a tile needs no
    /// catalogue entry (extent, count), so a fresh server's first tile skips that scan.
    private func tiledDefinition(_ id: String, _ caller: Caller) async throws -> LayerDefinition {
        let definition = try await layers.definition(id, for: caller)
        guard definition.hasGeometry else { throw Problem(.notFound, "collection '\(id)' has no geometry, so no tiles") }
        return definition
    }

    /// OGC API Tiles collections selection (`/conf/collections-selection`) on dataset tiles.
    static let collectionsSelection = APIParameter(
        "collections", "Comma-separated collection ids: the tile has only these layers (default: every collection the caller may read).",
        schema: ["type": "array", "items": ["type": "string"]], commaList: true)

    /// The layers a `collections` value names, in its order; every id must be a tiled
    /// collection the caller may read (a hidden one is reported as unknown).
    static func selected(_ collections: String?, from visible: [LayerInfo]) throws -> [LayerInfo] {
        guard let collections else { return visible }
        let ids = collections.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        return try ids.map { id in
            guard let info = visible.first(where: { $0.definition.id == id }) else {
                throw Problem.invalid("collections", "'\(id)' is not a collection with tiles")
            }
            return info
        }
    }

    // MARK: - Tiles

    /// One tile of `layers`. With `zoomRanges` (whole-map tiles) a layer is cut only
    /// at the zooms of its definition's `tiles` range; a collection's own tiles have every zoom.
    private func tileRepresentation(_ request: Request, _ context: CityTwinRequestContext, layers: [LayerDefinition],
                                    zoomRanges: Bool = false) async throws -> Representation {
        let tms = try tileMatrixSet(context)
        let tile = TileID(matrix: try integerPath(context, "tileMatrix"), row: try integerPath(context, "tileRow"),
                          col: try integerPath(context, "tileCol"))
        do { try tms.validate(tile) } catch let e as TileError { throw Problem.tile(e) }
        let definitions = zoomRanges ? layers.filter { $0.isTiled(atZoom: tms.zoom(of: tile.matrix)) } : layers
        await parking.catchUp(definitions.map(\.id))  // parking: the live view as of now
        try await tileService.followChanges()
        let version = tileService.dataVersion(definitions)
        let key = TileCacheKey(layers: definitions.map(\.id), dataVersion: version,
                               audience: TileCacheKey.audience(of: context.caller), tileMatrixSet: tms.id, tile: tile)
        let cached: CachedTile
        if let hit = tileService.cache.tile(key) {
            cached = hit
        } else {
            let bytes: [UInt8]?
            do {
                bytes = try await tileService.source.tile(layers: key.layers, tileMatrixSet: tms, tile: tile, caller: context.caller)
            } catch let e as TileError { throw Problem.tile(e) }
            cached = tileService.cache.store(key, bytes: bytes)
        }
        var headers: HTTPFields = [:]
        headers[.eTag] = cached.etag
        // sensorthings: a tile showing live readings is revalidated on every use (its ETag changes
        // with the reading); other tiles change with edits only.
        let live = try await !tileService.readingLayers().isDisjoint(with: definitions.map(\.id))
        headers[.cacheControl] = live ? "public, no-cache" : "public, max-age=3600"
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == cached.etag }) {
            return Representation(status: .notModified, mediaType: MediaTypeName.mvt, body: [], headers: headers)
        }
        guard let buffer = cached.buffer else {
            return Representation(status: .noContent, mediaType: MediaTypeName.mvt, body: [], headers: headers)
        }
        if Representation.acceptsGzip(request), let gz = cached.gzipped {
            headers[.contentEncoding] = "gzip"
            return Representation(mediaType: MediaTypeName.mvt, buffer: gz, headers: headers)
        }
        return Representation(mediaType: MediaTypeName.mvt, buffer: buffer, headers: headers)
    }

    // MARK: - Documents

    private func tilesetSummary(_ base: String, _ tms: TileMatrixSet, title: String) -> JSONValue {
        var o: [String: JSONValue] = [
            "title": .string("\(title) (\(tms.id))"), "dataType": "vector", "crs": .string(tms.crsURI),
            "links": [site.link("\(base)/\(tms.id)", rel: "self", type: MediaTypeName.json, title: "Tileset metadata"),
                      site.link("/tileMatrixSets/\(tms.id)", rel: Self.tilingSchemeRel, type: MediaTypeName.json, title: "Tile matrix set definition")],
        ]
        if let uri = tms.uri { o["tileMatrixSetURI"] = .string(uri) }
        return .object(o)
    }

    /// A tileset's metadata. With `zoomRanges` (the whole map) each layer names the levels that
    /// carry it (`minTileMatrix`, `maxTileMatrix`; its definition's `tiles` range), and a layer
    /// no level of `tms` carries is left out.
    private func tilesetDocument(_ base: String, _ tms: TileMatrixSet, title: String, layers: [LayerInfo], zoomRanges: Bool = false,
                                 query: QueryParameters, format: OutputFormat) -> JSONValue {
        var links = site.selfAndAlternate("\(base)/\(tms.id)", query: query, format: format, jsonType: MediaTypeName.json)
        links.append(site.link("/tileMatrixSets/\(tms.id)", rel: Self.tilingSchemeRel, type: MediaTypeName.json, title: "Tile matrix set definition"))
        if case .object(var item) = site.link("\(base)/\(tms.id)/{tileMatrix}/{tileRow}/{tileCol}", rel: "item", type: MediaTypeName.mvt,
                                              title: "Tiles: {tileMatrix} level, {tileRow} row from the top, {tileCol} column from the left") {
            item["templated"] = true
            links.append(.object(item))
        }
        if tms == .webMercatorQuad {
            links.append(site.link("\(base)/\(tms.id)/tilejson.json", rel: "describedby", type: MediaTypeName.json, title: "TileJSON 3.0.0"))
        }
        var o: [String: JSONValue] = [
            "title": .string(title), "dataType": "vector", "crs": .string(tms.crsURI), "links": .array(links),
            "layers": .array(layers.compactMap { info -> JSONValue? in
                var l: [String: JSONValue] = ["id": .string(info.definition.id), "title": .string(info.definition.title.zh), "dataType": "vector"]
                if zoomRanges, let zooms = info.definition.tileZooms {
                    let levels = tms.minLevel...tms.maxLevel
                    let low = zooms.lowerBound + tms.minLevel, high = zooms.upperBound + tms.minLevel
                    guard low <= levels.upperBound, high >= levels.lowerBound else { return nil }
                    l["minTileMatrix"] = .string(String(max(low, levels.lowerBound)))
                    l["maxTileMatrix"] = .string(String(min(high, levels.upperBound)))
                }
                if let g = info.definition.geometryType { l["geometryDimension"] = .integer(Self.dimension(g)) }
                l["propertiesSchema"] = ["type": "object", "properties": .object(VectorLayers.fieldTypes(info.definition).mapValues { ["type": .string($0.lowercased())] })]
                return .object(l)
            }),
            "tileMatrixSetLimits": .array(tms.tileMatrices.map { m in
                ["tileMatrix": .string(String(m.id)), "minTileRow": 0, "maxTileRow": .integer(Int64(m.matrixHeight - 1)),
                 "minTileCol": 0, "maxTileCol": .integer(Int64(m.matrixWidth - 1))]
            }),
        ]
        if let uri = tms.uri { o["tileMatrixSetURI"] = .string(uri) }
        if tms == .cgcs2000Quad { o["description"] = "Level ids 1-18 as Tianditu's c matrix set: clients that count from 0 use zoomOffset 1." }
        return .object(o)
    }

    private static func dimension(_ g: GeometryType) -> Int64 {
        switch g {
        case .point, .multiPoint: 0
        case .lineString, .multiLineString: 1
        case .polygon, .multiPolygon: 2
        case .geometryCollection: 2
        }
    }

    /// TileJSON of a tileset; with `zoomRanges` (the whole map) each of `vector_layers` has its
    /// definition's `tiles` range, and a layer outside 0–22 is left out.
    private func tileJSON(_ base: String, name: String, layers: [LayerInfo], zoomRanges: Bool = false) -> JSONValue {
        var bounds: Envelope?
        for info in layers { if let e = info.extent { bounds == nil ? (bounds = e) : bounds!.expand(toInclude: e) } }
        var o: [String: JSONValue] = [
            "tilejson": "3.0.0", "name": .string(name), "scheme": "xyz", "minzoom": 0, "maxzoom": 22,
            "tiles": [.string(site.url("\(base)/WebMercatorQuad/{z}/{y}/{x}"))],
            "vector_layers": .array(layers.compactMap { info -> JSONValue? in
                let zooms = zoomRanges ? (info.definition.tileZooms ?? 0...22) : 0...22
                guard zooms.lowerBound <= 22 else { return nil }
                return VectorLayers.entry(info.definition, minZoom: zooms.lowerBound, maxZoom: min(zooms.upperBound, 22))
            }),
            "attribution": "CityTwin 城市数字孪生",
        ]
        if let b = bounds {
            let lat = TileMatrixSet.webMercatorMaxLatitude
            o["bounds"] = [.number(b.minX), .number(max(b.minY, -lat)), .number(b.maxX), .number(min(b.maxY, lat))]
            o["center"] = [.number(b.center.x), .number(b.center.y), 14]
        }
        return .object(o)
    }

    /// The web map's style over the whole-map tiles for this caller (WebMap/MapStyle.swift):
    /// its layers, its role's default visible set, labels when the glyphs are served.
    private func mapLibreStyle(_ layers: [LayerInfo], caller: Caller, currentFloodRun: String?) -> JSONValue {
        let fontstack = GlyphAssets.shared.available ? GlyphAssets.fontstack : nil
        return MapStyle(layers: layers, audience: MapAudience.of(caller), url: site.url, fontstack: fontstack, currentFloodRun: currentFloodRun,
                        baseMap: baseMap.style(fontstack: fontstack, site: site)).document
    }
}
