import Foundation
import GeoCore
import Testing
@testable import Tiles

/// Against the independent reference encoder and decoder (mapbox-vector-tile 2.2, PyPI).
@Suite("MVT 2.1 against mapbox-vector-tile")
struct MVTReferenceTests {
    @Test("an empty tile decodes to no layers; garbage is a malformed-tile error")
    func empty() throws {
        #expect(try VectorTile.decode([]).isEmpty)
        #expect(VectorTile.encode([VectorTileLayer(name: "empty")]).isEmpty)
        #expect(throws: TileError.self) { try VectorTile.decode([0x1a, 0x05, 0x01]) }
        #expect(throws: TileError.self) { try VectorTile.decode([0xff, 0xff, 0xff]) }
    }

    @Test("our decoder reads the reference tile exactly as the reference decodes it")
    func decodeReference() throws {
        let layers = try VectorTile.decode(try MVTFixture.bytes)
        let doc = try MVTFixture.document
        let expected = try #require(doc["decoded"]?["features"]?.arrayValue)
        #expect(layers.count == 1)
        let layer = try #require(layers.first)
        #expect(layer.name == "city" && layer.extent == 4096)
        #expect(layer.features.count == expected.count)
        for (ours, ref) in zip(layer.features, expected) {
            #expect(ours.id == ref["id"]?.integerValue.map(UInt64.init))
            #expect(ours.properties.mapValues(\.json) == (ref["properties"]?.objectValue ?? [:]))
            let refGeometry = try MVTFixture.geometry(ref["geometry"] ?? .null)
            #expect(ours.geometry == refGeometry, "feature \(ours.id ?? 0): \(ours.geometry) vs \(refGeometry)")
            if ours.geometryType == .polygon { try expectMVTPolygon(ours.geometry) }
        }
    }

    @Test("our encoder, from the same lon/lat inputs, gives valid, correctly wound geometry with the reference's areas and attributes")
    func encodeSameInputs() throws {
        let doc = try MVTFixture.document
        let reference = try VectorTile.decode(try MVTFixture.bytes)[0]
        let frame = try TileFrame(.worldCRS84Quad, MVTFixture.tile, extent: 4096, buffer: 64)
        var cutter = TileCutter(frame: frame, generalization: .none)
        var layer = TileLayerEncoder(name: "city", extent: 4096)
        for feature in try MVTFixture.inputs() {
            let geometry = try #require(feature.geometry)
            let cut = try #require(try cutter.cut(geometry), "feature \(feature.id?.description ?? "?") vanished")
            layer.append(feature, geometry: cut)
        }
        let ours = try VectorTile.decode(VectorTile.encode([layer]))[0]
        let clippedAreas = (doc["decoded"]?["features"]?.arrayValue ?? []).map { $0["clippedArea"]?.doubleValue ?? 0 }
        let clip = frame.clipRectangle
        #expect(ours.features.count == reference.features.count)
        for (i, (mine, ref)) in zip(ours.features, reference.features).enumerated() {
            #expect(mine.id == ref.id)
            #expect(mine.geometryType == ref.geometryType)
            #expect(mine.properties.mapValues(\.json) == ref.properties.mapValues(\.json), "attributes of feature \(ref.id ?? 0)")
            switch mine.geometryType {
            case .polygon:
                try expectMVTPolygon(mine.geometry)
                // Same area as the reference clipped to the tile plus buffer, within one screen pixel (16 × 16 units).
                let area = try mine.geometry.area
                #expect(abs(area - clippedAreas[i]) <= 256, "area \(area) vs \(clippedAreas[i])")
                #expect(tilePolygons(mine.geometry).map(\.interiors.count) == tilePolygons(ref.geometry).map(\.interiors.count))
            case .lineString:
                let length = try mine.geometry.length, refLength = try ref.geometry.clipped(to: clip).length
                #expect(abs(length - refLength) <= 2, "length \(length) vs \(refLength)")
                var inside = true
                mine.geometry.forEachPosition { if !clip.contains($0) { inside = false } }
                #expect(inside)
            case .point:
                var refPoints: [Position] = [], myPoints: [Position] = []
                ref.geometry.forEachPosition { if clip.contains($0) { refPoints.append($0) } }
                mine.geometry.forEachPosition { myPoints.append($0) }
                #expect(myPoints == refPoints)
            case .unknown:
                Issue.record("feature \(ref.id ?? 0) has no type")
            }
        }
        // The courtyard block crosses the west edge: clipped at -64, its hole kept.
        let block = try #require(tilePolygons(ours.features[0].geometry).first)
        #expect(block.exterior.map(\.x).min() == -64)
        #expect(block.interiors.count == 1)
    }

    @Test("keys and values are deduplicated per layer; every value type round-trips")
    func attributeTables() throws {
        var layer = VectorTileLayer(name: "t")
        let props: [String: TileValue] = ["s": .string("汉口"), "f": .float(1.5), "d": .double(-2.25), "i": .int(-3),
                                          "u": .uint(UInt64.max), "z": .sint(-9_000_000_000), "b": .bool(true)]
        layer.append(TileFeature(id: 1, geometry: .point(x: 1, y: 2), properties: props))
        layer.append(TileFeature(id: 2, geometry: .point(x: 3, y: 4), properties: props))
        let bytes = VectorTile.encode([layer])
        let decoded = try VectorTile.decode(bytes)[0]
        #expect(decoded.features.map(\.properties) == [props, props])
        // Two features sharing 7 key/value pairs: each key and value string appears once.
        let text = bytes.count
        var once = VectorTileLayer(name: "t")
        once.append(TileFeature(id: 1, geometry: .point(x: 1, y: 2), properties: props))
        #expect(text - VectorTile.encode([once]).count < 30)
    }
}
