import Foundation
import GeoCore
import HummingbirdTesting
import MapRendering
import Testing

/// Rendered WMTS tiles are cached and dropped like vector tiles: an edit beneath a tile is
/// seen in the next tile served (issue 55 §2).
@Suite("Rendered tiles and the change feed")
struct RenderedTileCacheTests {
    /// The Web Mercator tile (level z) holding a lon/lat position and the pixel of it in the tile,
    /// by the spherical formulas.
    static func tile(_ lon: Double, _ lat: Double, z: Int) -> (row: Int, col: Int, x: Int, y: Int) {
        let n = Double(1 << z)
        let fx = (lon + 180) / 360 * n
        let φ = lat * .pi / 180
        let fy = (1 - log(tan(φ) + 1 / cos(φ)) / .pi) / 2 * n
        return (Int(fy), Int(fx), Int((fx - fx.rounded(.down)) * 256), Int((fy - fy.rounded(.down)) * 256))
    }

    @Test("a shelter's tile shows its circle, comes from the cache the second time, and no longer shows it once the shelter is deleted")
    func deletionRedrawsTheTile() async throws {
        try await WritableAPI.run { api in
            // Shelter s00 at 114.31°E 30.60°N (ServerFixture), drawn as a #389e0d circle by the web map's style.
            let t = Self.tile(114.31, 30.60, z: 17)
            let path = "/wmts/1.0.0/shelters/default/WebMercatorQuad/17/\(t.row)/\(t.col).png"
            let first = try await api.client.get(path)
            #expect(first.status == .ok && first.headers[.contentType] == "image/png")
            let before = try PNGImage(Array(buffer: first.body))
            #expect(before.colour(x: t.x, y: t.y).hex == "#389e0d", "the circle at the shelter")
            let again = try await api.client.get(path)
            #expect(again.headers[.eTag] == first.headers[.eTag])
            let deleted = try await api.send(.delete, "/collections/shelters/items/s00", token: api.token("应急管理局"))
            #expect(deleted.status == .noContent)
            let after = try await api.client.get(path)
            #expect(after.headers[.eTag] != first.headers[.eTag], "the cached tile was dropped")
            #expect(try PNGImage(Array(buffer: after.body)).colour(x: t.x, y: t.y).hex != "#389e0d", "no circle once deleted")
        }
    }

    @Test("a layer the anonymous caller may not read has no map: LayerNotDefined; its owner gets one")
    func hiddenLayerMap() async throws {
        try await WritableAPI.run { api in
            let map = "/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=wells&STYLES=&CRS=CRS:84&BBOX=114.30,30.59,114.32,30.61&WIDTH=64&HEIGHT=64&FORMAT=image/png"
            let anonymous = try await api.client.get(map)
            #expect(anonymous.status == .badRequest)
            #expect(String(buffer: anonymous.body).contains("code=\"LayerNotDefined\""))
            let owner = try await api.client.get(map, headers: WritableAPI.bearer(api.token("水务局")))
            #expect(owner.status == .ok && owner.headers[.contentType] == "image/png")
            let capabilities = try await api.client.get("/wms?SERVICE=WMS&REQUEST=GetCapabilities")
            #expect(!String(buffer: capabilities.body).contains("<Name>wells</Name>"))
            #expect(String(buffer: capabilities.body).contains("<Name>shelters</Name>"))
        }
    }
}
