import Testing
@testable import GeoCore

/// GCJ-02/BD-09 display offsets against the table in docs tiles-and-crs.md §6 ("Offsets in our
/// cities", computed with the public algorithm; metres rounded as printed there).
@Suite struct ChinaOffsetTests {
    struct City: Sendable {
        var name: String
        var wgs84: Position
        var gcjOffset: Double      // metres, WGS -> GCJ
        var bdExtra: Double        // metres, GCJ -> BD
        var naiveInverseError: Double  // metres, GCJ -> WGS subtracting the delta at the GCJ point
    }

    static let cities = [
        City(name: "Hankou", wgs84: Position(x: 114.3055, y: 30.5928), gcjOffset: 586, bdExtra: 893, naiveInverseError: 1.21),
        City(name: "Ezhou", wgs84: Position(x: 114.8949, y: 30.3910), gcjOffset: 569, bdExtra: 893, naiveInverseError: 0.17),
        City(name: "Huangshi", wgs84: Position(x: 115.0389, y: 30.1995), gcjOffset: 584, bdExtra: 906, naiveInverseError: 2.03),
    ]

    /// Random positions over Hubei province (108.3..116.1°E, 29.0..33.3°N).
    static let hubei: [Position] = {
        var rng = SplitMix(seed: 2006)
        return (0..<500).map { _ in Position(x: 108.3 + 7.8 * rng.next(), y: 29.0 + 4.3 * rng.next()) }
    }()

    @Test func outsideTheChinaBoxNothingMoves() {
        let paris = Position(x: 2.3522, y: 48.8566, z: 35)
        let elsewhere = [paris, Position(x: -74.0, y: 40.7), Position(x: 114.3, y: -30.6), Position(x: 140.0, y: 35.7),
                         Position(x: .nan, y: 30)]
        for p in elsewhere {
            for c in ChinaDisplayOffset.Conversion.allCases {
                let q = c.apply(p)
                #expect(q.x.bitPattern == p.x.bitPattern && q.y.bitPattern == p.y.bitPattern && q.z == p.z, "\(c) at \(p)")
            }
            #expect(ChinaDisplayOffset.bd09(fromWGS84: p) == p || p.x.isNaN)
        }
    }

    @Test(arguments: cities)
    func offsetsInOurCitiesMatchTheTable(city: City) throws {
        let gcj = ChinaDisplayOffset.gcj02(fromWGS84: city.wgs84)
        #expect(abs(try city.wgs84.geodesicDistance(to: gcj) - city.gcjOffset) < 1, "\(city.name)")
        let bd = ChinaDisplayOffset.bd09(fromGCJ02: gcj)
        #expect(abs(try gcj.geodesicDistance(to: bd) - city.bdExtra) < 1, "\(city.name)")
        #expect(ChinaDisplayOffset.bd09(fromWGS84: city.wgs84) == bd)

        // The naive inverse (subtract the shift evaluated at the GCJ point) misses by the tabled error;
        // the iterative inverse lands within a centimetre.
        let (dLon, dLat) = ChinaDisplayOffset.gcjDelta(lon: gcj.x, lat: gcj.y)
        let naive = Position(x: gcj.x - dLon, y: gcj.y - dLat)
        #expect(abs(try naive.geodesicDistance(to: city.wgs84) - city.naiveInverseError) < 0.006, "\(city.name)")
        #expect(try ChinaDisplayOffset.wgs84(fromGCJ02: gcj).geodesicDistance(to: city.wgs84) < 0.01)
    }

    @Test func hankouShiftInArcSeconds() {
        let hankou = Self.cities[0].wgs84
        let gcj = ChinaDisplayOffset.gcj02(fromWGS84: hankou)
        #expect(abs((gcj.y - hankou.y) * 3600 - -8.7) < 0.05)
        #expect(abs((gcj.x - hankou.x) * 3600 - 19.6) < 0.05)
    }

    @Test func roundTripsAcrossHubeiStayUnderOneCentimetre() throws {
        var worst = (gcj: 0.0, bd: 0.0, wgsBD: 0.0)
        for p in Self.hubei {
            let gcj = ChinaDisplayOffset.gcj02(fromWGS84: p)
            worst.gcj = max(worst.gcj, try ChinaDisplayOffset.wgs84(fromGCJ02: gcj).geodesicDistance(to: p))
            let bd = ChinaDisplayOffset.bd09(fromGCJ02: gcj)
            worst.bd = max(worst.bd, try ChinaDisplayOffset.gcj02(fromBD09: bd).geodesicDistance(to: gcj))
            worst.wgsBD = max(worst.wgsBD, try ChinaDisplayOffset.wgs84(fromBD09: bd).geodesicDistance(to: p))
        }
        #expect(worst.gcj < 0.01)
        #expect(worst.bd < 0.01)
        #expect(worst.wgsBD < 0.01)
    }

    @Test func heightsAreKept() {
        let p = Position(x: 114.3055, y: 30.5928, z: 23.5)
        #expect(ChinaDisplayOffset.gcj02(fromWGS84: p).z == 23.5)
        #expect(ChinaDisplayOffset.wgs84(fromBD09: ChinaDisplayOffset.bd09(fromWGS84: p)).z == 23.5)
    }

    @Test func conversionsInvertEachOther() {
        for c in ChinaDisplayOffset.Conversion.allCases {
            #expect(c.inverse.inverse == c)
            #expect(c.inverse != c)
        }
    }
}
