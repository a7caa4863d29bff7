import Testing
@testable import GeoCore

@Suite struct GEOSBridgeTests {
    @Test func roundTripsEveryType() throws {
        let square: [Position] = [.init(0, 0), .init(10, 0), .init(10, 10), .init(0, 10), .init(0, 0)]
        let hole: [Position] = [.init(2, 2), .init(2, 4), .init(4, 4), .init(4, 2), .init(2, 2)]
        let cases: [Geometry] = [
            .point(Point(nil)),
            .point(x: 114.3, y: 30.6),
            .point(x: 114.3, y: 30.6, z: 21.5),
            .lineString([]),
            .lineString([.init(0, 0, 2), .init(1, 1, 3)]),
            .polygon(Polygon(exterior: [])),
            .polygon(square, holes: [hole]),
            .multiPoint(MultiPoint([Point(x: 1, y: 2), Point(x: 3, y: 4)])),
            .multiLineString(MultiLineString([LineString([.init(0, 0), .init(1, 1)])])),
            .multiPolygon(MultiPolygon([Polygon(exterior: square)])),
            .geometryCollection(GeometryCollection([.point(x: 1, y: 1), .polygon(square)])),
        ]
        for g in cases {
            let native = try GEOSGeometry(g)
            #expect(try native.geometry() == g)
        }
    }

    @Test func unclosedRingIsAThrownErrorWithGEOSMessage() {
        let open: [Position] = [.init(0, 0), .init(1, 0), .init(1, 1), .init(0, 1)]
        #expect {
            _ = try GEOSGeometry(.polygon(open))
        } throws: { error in
            guard let e = error as? GeometryError else { return false }
            return e.code == .geos && e.message.contains("closed")
        }
    }

    @Test func nonFiniteCoordinateIsRejected() {
        #expect(throws: GeometryError.self) { _ = try GEOSGeometry(.point(x: .nan, y: 1)) }
        #expect(throws: GeometryError.self) { _ = try GEOSGeometry(.lineString([.init(0, 0), .init(.infinity, 1)])) }
    }
}
