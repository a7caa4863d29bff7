import Foundation
import Logging
import GeoCore
import HummingbirdTesting
@testable import Server
import Testing
import Tiles
import TwinStore

@Suite("OGC API Tiles routes")
struct TileRouteTests {
    @Test("tile matrix sets: list and the CGCS2000 definition in lat,lon order")
    func tileMatrixSets() async throws {
        try await ServerFixture.withAPI { client in
            let list = try await client.get("/tileMatrixSets")
            #expect(list.status == .ok)
            let ids = try list.json["tileMatrixSets"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
            #expect(ids == ["WebMercatorQuad", "WorldCRS84Quad", "CGCS2000Quad"])
            let c = try await client.get("/tileMatrixSets/CGCS2000Quad")
            let first = try c.json["tileMatrices"]?.arrayValue?.first
            #expect(first?["id"]?.stringValue == "1")
            #expect(first?["pointOfOrigin"]?.arrayValue?.compactMap(\.doubleValue) == [90, -180])
            try expectProblem(try await client.get("/tileMatrixSets/Nope"), status: 404, type: "not-found", naming: "Nope")
        }
    }

    @Test("tileset metadata: vector, CRS, tiling-scheme link and the item template")
    func tileset() async throws {
        try await ServerFixture.withAPI { client in
            let list = try await client.get("/collections/shelters/tiles")
            #expect(try list.json["tilesets"]?.arrayValue?.count == 3)
            let doc = try await client.get("/collections/shelters/tiles/CGCS2000Quad").json
            #expect(doc["dataType"]?.stringValue == "vector")
            #expect(doc["crs"]?.stringValue == "http://www.opengis.net/def/crs/EPSG/0/4490")
            #expect(linkHref(doc, rel: "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme")?.hasSuffix("/tileMatrixSets/CGCS2000Quad") == true)
            let item = doc["links"]?.arrayValue?.first { $0["rel"]?.stringValue == "item" }
            #expect(item?["href"]?.stringValue?.hasSuffix("/collections/shelters/tiles/CGCS2000Quad/{tileMatrix}/{tileRow}/{tileCol}") == true)
            #expect(item?["templated"] == true)
            #expect(item?["type"]?.stringValue == "application/vnd.mapbox-vector-tile")
            // A hidden layer has no tiles either.
            try expectProblem(try await client.get("/collections/wells/tiles"), status: 404, type: "collection-not-found")
        }
    }

    @Test("a tile with shelters: MVT, ETag, Cache-Control, gzip when accepted, 304 on a matching ETag; masked attributes stay masked")
    func tile() async throws {
        try await ServerFixture.withAPI { client in
            let id = try TileMatrixSet.webMercatorQuad.tile(containing: Position(x: 114.312, y: 30.601), level: 15)
            let path = "/collections/shelters/tiles/WebMercatorQuad/\(id.matrix)/\(id.row)/\(id.col)"
            let r = try await client.get(path)
            #expect(r.status == .ok)
            #expect(r.contentType == "application/vnd.mapbox-vector-tile")
            #expect(r.headers[.cacheControl] == "public, max-age=3600")
            let etag = try #require(r.headers[.eTag])
            let layer = try #require(try VectorTile.decode(Array(buffer: r.body)).first)
            #expect(layer.name == "shelters")
            #expect(layer.features.count >= 1)
            #expect(!layer.features.contains { $0.properties["manager"] == .string("张三") })
            #expect(!layer.features.contains { $0.properties["phone"] == .string("13812345678") })
            let gz = try await client.get(path, headers: [.acceptEncoding: "gzip"])
            #expect(gz.headers[.contentEncoding] == "gzip")
            #expect(try TileCompression.gunzip(Array(buffer: gz.body)) == Array(buffer: r.body))
            let again = try await client.get(path, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            // The dataset tile has the same layer (wells is hidden from the public).
            let dataset = try await client.get("/tiles/WebMercatorQuad/\(id.matrix)/\(id.row)/\(id.col)")
            #expect(try VectorTile.decode(Array(buffer: dataset.body)).map(\.name) == ["shelters"])
        }
    }

    @Test("dataset tiles select collections (OGC API Tiles collections-selection); a hidden or unknown one is a 400")
    func collectionsSelection() async throws {
        try await ServerFixture.withAPI { client in
            let id = try TileMatrixSet.webMercatorQuad.tile(containing: Position(x: 114.312, y: 30.601), level: 15)
            let path = "/tiles/WebMercatorQuad/\(id.matrix)/\(id.row)/\(id.col)"
            let selected = try await client.get(path + "?collections=shelters")
            #expect(selected.status == .ok)
            #expect(try VectorTile.decode(Array(buffer: selected.body)).map(\.name) == ["shelters"])
            try expectProblem(try await client.get(path + "?collections=wells"), status: 400, type: "invalid-parameter", naming: "wells")
            try expectProblem(try await client.get(path + "?collections=shelters,nowhere"), status: 400, type: "invalid-parameter", naming: "nowhere")
        }
    }

    @Test("204 for an empty tile, 404 outside the matrix, 400 for a non-integer row")
    func emptyAndOutside() async throws {
        try await ServerFixture.withAPI { client in
            let empty = try await client.get("/collections/shelters/tiles/WorldCRS84Quad/5/0/0")
            #expect(empty.status == .noContent)
            #expect(empty.body.readableBytes == 0)
            try expectProblem(try await client.get("/collections/shelters/tiles/WebMercatorQuad/2/4/0"), status: 404, type: "not-found", naming: "row 4")
            try expectProblem(try await client.get("/collections/shelters/tiles/CGCS2000Quad/0/0/0"), status: 404, type: "not-found")
            try expectProblem(try await client.get("/collections/shelters/tiles/WebMercatorQuad/25/0/0"), status: 404, type: "not-found")
            try expectProblem(try await client.get("/collections/shelters/tiles/WebMercatorQuad/3/x/0"), status: 400, type: "invalid-parameter", naming: "tileRow")
        }
    }

    @Test("the CGCS2000 grid serves Hankou's shelters at Tianditu level 17")
    func cgcs2000Tile() async throws {
        try await ServerFixture.withAPI { client in
            let id = try TileMatrixSet.cgcs2000Quad.tile(containing: ServerFixture.hankou, level: 17)
            let r = try await client.get("/collections/shelters/tiles/CGCS2000Quad/17/\(id.row)/\(id.col)")
            #expect(r.status == .ok)
            let layer = try #require(try VectorTile.decode(Array(buffer: r.body)).first)
            #expect(layer.features.contains { $0.properties["id"] == .string("hankou") })
        }
    }

    @Test("TileJSON 3.0.0 and the MapLibre style for Web Mercator only")
    func tileJSONAndStyle() async throws {
        try await ServerFixture.withAPI { client in
            let tj = try await client.get("/collections/shelters/tiles/WebMercatorQuad/tilejson.json").json
            #expect(tj["tilejson"]?.stringValue == "3.0.0")
            #expect(tj["tiles"]?.arrayValue?.first?.stringValue == "http://test.local/collections/shelters/tiles/WebMercatorQuad/{z}/{y}/{x}")
            #expect(tj["vector_layers"]?.arrayValue?.first?["id"]?.stringValue == "shelters")
            #expect(tj["vector_layers"]?.arrayValue?.first?["fields"]?["capacity"]?.stringValue == "Number")
            let dataset = try await client.get("/tiles/WebMercatorQuad/tilejson.json").json
            #expect(dataset["vector_layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["shelters"])
            try expectProblem(try await client.get("/tiles/CGCS2000Quad/tilejson.json"), status: 404, type: "not-found")
            let style = try await client.get("/tiles/WebMercatorQuad/style.json").json
            #expect(style["version"]?.integerValue == 8)
            #expect(style["layers"]?.arrayValue?.contains { $0["source-layer"]?.stringValue == "shelters" && $0["type"]?.stringValue == "circle" } == true)
        }
    }

    @Test("a layer's zoom range (its definition's tiles): whole-map tiles, TileJSON, tileset metadata and the style carry it only there; its own tiles have every zoom")
    func layerZoomRanges() async throws {
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .warning
        try await ServerFixture.withStore { store in
            var json = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(ServerFixture.sheltersJSON.utf8)).objectValue)
            json["id"] = "door_plates"
            json["sensitive"] = []
            json["tiles"] = ["minzoom": 16, "maxzoom": 20]
            try await store.createLayer(try LayerDefinition(json: .object(json)))
            let plate = Position(x: 114.3105, y: 30.6005)
            try await store.insert(layer: "door_plates", features: [
                Feature(id: .string("p1"), geometry: .point(x: plate.x, y: plate.y), properties: ["name": "解放大道 1 号"]),
            ], by: ServerFixture.owner, at: nil)
            let server = CityTwinServer(store: store, options: ServerOptions(baseURL: "http://test.local", logger: logger))
            try await server.makeApplication().test(.router) { client in
                func layers(_ path: String) async throws -> [String] {
                    let r = try await client.get(path)
                    #expect(r.status == .ok || r.status == .noContent, "\(path)")
                    return try VectorTile.decode(Array(buffer: r.body)).map(\.name).sorted()
                }
                for (zoom, expected) in [(15, ["shelters"]), (16, ["door_plates", "shelters"]), (20, ["door_plates"]), (21, [])] {
                    let id = try TileMatrixSet.webMercatorQuad.tile(containing: plate, level: zoom)
                    #expect(try await layers("/tiles/WebMercatorQuad/\(zoom)/\(id.row)/\(id.col)") == expected, "z\(zoom)")
                    // The collection's own tiles are cut at every zoom: the caller asked for that layer.
                    #expect(try await layers("/collections/door_plates/tiles/WebMercatorQuad/\(zoom)/\(id.row)/\(id.col)") == ["door_plates"], "z\(zoom)")
                }
                // Selecting the layer does not take it below its range.
                let z15 = try TileMatrixSet.webMercatorQuad.tile(containing: plate, level: 15)
                #expect(try await client.get("/tiles/WebMercatorQuad/15/\(z15.row)/\(z15.col)?collections=door_plates").status == .noContent)
                // Tianditu level 17 is Web Mercator zoom 16 (`TileMatrixSet.zoom(of:)`).
                let c17 = try TileMatrixSet.cgcs2000Quad.tile(containing: plate, level: 17)
                #expect(try await layers("/tiles/CGCS2000Quad/17/\(c17.row)/\(c17.col)") == ["door_plates", "shelters"])

                let tj = try await client.get("/tiles/WebMercatorQuad/tilejson.json").json
                let entry = tj["vector_layers"]?.arrayValue?.first { $0["id"] == "door_plates" }
                #expect(entry?["minzoom"] == 16 && entry?["maxzoom"] == 20)
                #expect(tj["vector_layers"]?.arrayValue?.first { $0["id"] == "shelters" }?["minzoom"] == 0)
                let own = try await client.get("/collections/door_plates/tiles/WebMercatorQuad/tilejson.json").json
                #expect(own["vector_layers"]?.arrayValue?.first?["minzoom"] == 0)

                for (tms, low, high) in [("WebMercatorQuad", "16", "20"), ("CGCS2000Quad", "17", "18")] {
                    let doc = try await client.get("/tiles/\(tms)").json
                    let layer = doc["layers"]?.arrayValue?.first { $0["id"] == "door_plates" }
                    #expect(layer?["minTileMatrix"]?.stringValue == low && layer?["maxTileMatrix"]?.stringValue == high, "\(tms)")
                }

                let style = try await client.get("/tiles/WebMercatorQuad/style.json").json
                let drawn = style["layers"]?.arrayValue?.filter { $0["source-layer"] == "door_plates" } ?? []
                #expect(!drawn.isEmpty)
                #expect(drawn.allSatisfy { ($0["minzoom"]?.doubleValue ?? 0) >= 16 && $0["maxzoom"]?.doubleValue == 21 })
            }
        }
    }
}

@Suite("Map style colours by value")
struct StyleColourTests {
    @Test("signal plans are drawn by level of service: a match on los with the layer's own A–F colours")
    func levelOfServiceColours() throws {
        let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Layers").standardizedFileURL
        let definition = try #require(try LayerCatalog.load(directory: layers)["signal_plans"])
        let style = try #require(definition.style)
        let colour = MapStyle.fillColor(style["fill"]?.stringValue, definition, default: "#8c8c8c", colors: style["colors"])
        let expression = try #require(colour.arrayValue)
        #expect(expression.first == "match" && expression[1] == ["get", "los"])
        #expect(expression.count == 2 + 2 * 6 + 1)
        #expect(expression[2] == "A" && expression[3] == "#1a9850" && expression[12] == "F" && expression[13] == "#d73027")
    }
}
