import GeoCore
import Testing
@testable import Server

@Suite("Feature projection at the API edge")
struct FeatureProjectionTests {
    /// A clockwise square around Hankou with a counter-clockwise hole (both wrong by RFC 7946).
    static let square = Geometry.polygon(
        [Position(x: 114.30, y: 30.59), Position(x: 114.30, y: 30.60), Position(x: 114.31, y: 30.60),
         Position(x: 114.31, y: 30.59), Position(x: 114.30, y: 30.59)],
        holes: [[Position(x: 114.302, y: 30.592), Position(x: 114.304, y: 30.592), Position(x: 114.304, y: 30.594),
                 Position(x: 114.302, y: 30.594), Position(x: 114.302, y: 30.592)]])

    @Test("an empty page and a feature without geometry pass through")
    func emptyAndNoGeometry() throws {
        let projection = try FeatureProjection(target: CoordinateReferenceSystem(epsg: 4547))
        #expect(try projection.project([]).isEmpty)
        let bare = Feature(id: .string("t1"), geometry: nil, properties: ["level_m": 3.2])
        #expect(try projection.project([bare]) == [bare])
    }

    @Test("lat/lon output keeps the right-hand rule of the lon/lat rings, then swaps the axes")
    func latLonPolygon() throws {
        let projection = try FeatureProjection(target: .cgcs2000)
        #expect(projection.swapsAxes && !projection.writeOptions.rightHandRule && projection.precision == 7)
        let out = try projection.project([Feature(id: .string("p"), geometry: Self.square)])
        guard case .polygon(let p)? = out.first?.geometry else { Issue.record("not a polygon"); return }
        // Swap back to lon/lat: the exterior must now be counter-clockwise and the hole clockwise.
        let exterior = p.exterior.map { Position(x: $0.y, y: $0.x) }
        let hole = p.interiors[0].map { Position(x: $0.y, y: $0.x) }
        #expect(Polygon.doubledSignedArea(ofRing: exterior) > 0)
        #expect(Polygon.doubledSignedArea(ofRing: hole) < 0)
        #expect(p.exterior.allSatisfy { $0.x < 31 && $0.y > 114 }, "latitude first")
    }

    @Test("Web Mercator output is metres, easting first, 3 decimals")
    func webMercator() throws {
        let projection = try FeatureProjection(target: .webMercator)
        #expect(!projection.swapsAxes && projection.precision == 3)
        let out = try projection.project([Feature(geometry: .point(x: 114.3055, y: 30.5928))])
        guard case .point(let pt)? = out.first?.geometry, let q = pt.position else { Issue.record("not a point"); return }
        // x = R·λ with R = 6378137 m.
        #expect(abs(q.x - 6_378_137 * 114.3055 * .pi / 180) < 0.01)
        #expect(q.y > 3_570_000 && q.y < 3_590_000)
    }
}
