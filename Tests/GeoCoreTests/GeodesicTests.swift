import Testing
import Foundation
@testable import GeoCore

/// Geodesic measures on the CGCS2000 ellipsoid. Fixtures from pyproj 3.7.2 (PROJ 9.5.1):
///   g = pyproj.Geod(a=6378137, rf=298.257222101)
/// with the call named beside each number.
@Suite struct GeodesicTests {
    static let hankou = Position(x: 114.3055, y: 30.5928)
    static let ezhou = Position(x: 114.8949, y: 30.3910)
    static let huangshi = Position(x: 115.0389, y: 30.1995)
    static let cell: [Position] = [.init(114, 30), .init(115, 30), .init(115, 31), .init(114, 31), .init(114, 30)]

    @Test func emptyAndPointGeometriesMeasureZero() throws {
        for g: Geometry in [.point(Point(nil)), .lineString([]), .polygon(Polygon(exterior: [])),
                            .geometryCollection(GeometryCollection([])), .point(x: 114.3, y: 30.6),
                            .multiPoint(MultiPoint([Point(x: 114, y: 30), Point(x: 115, y: 31)]))] {
            #expect(try g.geodesicLength() == 0)
            #expect(try g.geodesicArea() == 0)
        }
        #expect(try Self.hankou.geodesicDistance(to: Self.hankou) == 0)
    }

    @Test func oneDegreeCellNearWuhan() throws {
        let polygon = Geometry.polygon(Self.cell)
        // g.polygon_area_perimeter([114,115,115,114,114], [30,30,31,31,30])
        // -> (10642455822.15564, 413711.7660300685)
        let area = try polygon.geodesicArea()
        #expect(abs(area - 10_642_455_822.15564) < 1)
        #expect(abs(try polygon.geodesicLength() - 413_711.7660300685) < 1e-6)

        // Independent check: the ellipsoidal quadrangle between the parallels 30° and 31°,
        // A = π b² Δλ/180 · [F(31°) − F(30°)], F(φ) = sinφ / (2(1 − e² sin²φ)) + atanh(e sinφ) / (2e).
        // Its edges are parallels, not geodesics, so it differs by a few parts per million.
        let a = 6_378_137.0, f = 1 / 298.257222101
        let b = a * (1 - f), e2 = f * (2 - f), e = e2.squareRoot()
        func F(_ degrees: Double) -> Double {
            let s: Double = sin(degrees * Double.pi / 180)
            let first: Double = s / (2 * (1 - e2 * s * s))
            return first + atanh(e * s) / (2 * e)
        }
        let quadrangle: Double = Double.pi * b * b / 180 * (F(31) - F(30))
        #expect(abs(area / quadrangle - 1) < 1e-5)
    }

    @Test func orientationDoesNotChangeTheArea() throws {
        let clockwise = Geometry.polygon(Array(Self.cell.reversed()))
        #expect(abs(try clockwise.geodesicArea() - 10_642_455_822.15564) < 1)
    }

    @Test func holesAreSubtractedAndMultiPolygonsSummed() throws {
        let exterior: [Position] = [.init(114.0, 30.0), .init(114.2, 30.0), .init(114.2, 30.2), .init(114.0, 30.2), .init(114.0, 30.0)]
        let hole: [Position] = [.init(114.05, 30.05), .init(114.05, 30.1), .init(114.1, 30.1), .init(114.1, 30.05), .init(114.05, 30.05)]
        let withHole = Geometry.polygon(exterior, holes: [hole])
        // |area(exterior)| - |area(hole)|: 427406396.2659302 - 26719524.529197693 = 400686871.7367325
        #expect(abs(try withHole.geodesicArea() - 400_686_871.7367325) < 0.01)
        // Perimeter counts both rings: 82897.3469277133 + 20726.73423944803
        #expect(abs(try withHole.geodesicLength() - 103_624.08116716132) < 1e-6)

        let multi = Geometry.multiPolygon(MultiPolygon([Polygon(exterior: exterior, interiors: [hole]), Polygon(exterior: Self.cell)]))
        #expect(abs(try multi.geodesicArea() - (400_686_871.7367325 + 10_642_455_822.15564)) < 1)
        let collection = Geometry.geometryCollection(GeometryCollection([withHole, .lineString(Self.cell)]))
        #expect(abs(try collection.geodesicArea() - 400_686_871.7367325) < 0.01)
    }

    @Test func distanceAndAzimuthsHankouToHuangshi() throws {
        // g.inv(114.3055, 30.5928, 115.0389, 30.1995) -> (121.55604484817941, -58.072866514075145, 82876.13257705877)
        // pyproj's back azimuth is the final azimuth reversed: 121.556... - 180 = -58.07...
        let inv = try Self.hankou.geodesicInverse(to: Self.huangshi)
        #expect(abs(inv.distance - 82_876.13257705877) < 1e-6)
        #expect(abs(inv.initialAzimuth - 121.55604484817941) < 1e-9)
        #expect(abs(inv.finalAzimuth - (-58.072866514075145 + 180)) < 1e-9)
        #expect(abs(try Self.huangshi.geodesicDistance(to: Self.hankou) - inv.distance) < 1e-6)
    }

    @Test func lineLengthIsTheSumOfSegments() throws {
        // g.line_length([114.3055, 114.8949, 115.0389], [30.5928, 30.3910, 30.1995]) -> 86197.3063827608
        let route = Geometry.lineString([Self.hankou, Self.ezhou, Self.huangshi])
        #expect(abs(try route.geodesicLength() - 86_197.3063827608) < 1e-6)
        let parts = Geometry.multiLineString(MultiLineString([LineString([Self.hankou, Self.ezhou]), LineString([Self.ezhou, Self.huangshi])]))
        #expect(abs(try parts.geodesicLength() - 86_197.3063827608) < 1e-6)
    }

    @Test func theEllipsoidMatters() throws {
        let cgcs = try Self.hankou.geodesicDistance(to: Self.huangshi, ellipsoid: .cgcs2000)
        let wgs = try Self.hankou.geodesicDistance(to: Self.huangshi, ellipsoid: .wgs84)
        // 1/f differs in the 9th digit: sub-millimetre over 83 km, but not zero.
        #expect(cgcs != wgs && abs(cgcs - wgs) < 1e-3)
        #expect(Ellipsoid.cgcs2000 == Ellipsoid(semiMajorAxis: 6_378_137, inverseFlattening: 298.257222101))
    }

    @Test func badCoordinatesAreNamedNotMeasured() {
        #expect {
            _ = try Geometry.lineString([Self.hankou, Position(x: 114, y: 91), Self.huangshi]).geodesicLength()
        } throws: { error in
            guard let e = error as? GeometryError else { return false }
            return e.code == .invalidArgument && e.position == "position 1" && e.message.contains("latitude 91.0")
        }
        #expect {
            _ = try Geometry.polygon([Position(114, 30), Position(115, 30), Position(.nan, 31), Position(114, 30)]).geodesicArea()
        } throws: { error in
            (error as? GeometryError)?.position == "position 2"
        }
        // Easting/northing mistaken for degrees is caught by the latitude check.
        #expect(throws: GeometryError.self) {
            try Position(x: 529_299.86, y: 3_385_869.45).geodesicDistance(to: Self.hankou)
        }
    }
}
