import GeoCore
import Testing

/// A city's metric CRS from where its data lies (issue 52 §4): the CGCS2000 3-degree Gauss–Krüger
/// zone by central meridian inside China, the UTM zone elsewhere; checked against PROJ's own
/// names for the codes chosen.
@Suite("The city's metric zone")
struct MetricZoneTests {
    static func at(_ lon: Double, _ lat: Double) -> CoordinateReferenceSystem {
        CoordinateReferenceSystem.metricZone(for: Envelope(minX: lon - 0.05, minY: lat - 0.05, maxX: lon + 0.05, maxY: lat + 0.05))
    }

    @Test("the sample district keeps EPSG:4547; Urumqi, Harbin and Sanya get their Gauss–Krüger zones; Helsinki, Sydney and Quito their UTM zones")
    func zones() throws {
        #expect(Self.at(114.80, 30.84) == CoordinateReferenceSystem(epsg: 4547))
        #expect(Self.at(87.62, 43.83) == CoordinateReferenceSystem(epsg: 4538))   // CM 87°E
        #expect(Self.at(126.63, 45.75) == CoordinateReferenceSystem(epsg: 4551))  // CM 126°E
        #expect(Self.at(109.51, 18.25) == CoordinateReferenceSystem(epsg: 4546))  // CM 111°E
        #expect(Self.at(24.94, 60.17) == CoordinateReferenceSystem(epsg: 32635))
        #expect(Self.at(151.21, -33.87) == CoordinateReferenceSystem(epsg: 32756))
        #expect(Self.at(-78.47, -0.18) == CoordinateReferenceSystem(epsg: 32717))
        for (lon, lat, meridian) in [(114.8, 30.84, "114"), (87.62, 43.83, "87"), (126.63, 45.75, "126")] {
            let name = try Self.at(lon, lat).metadata.name
            #expect(name.contains("CM \(meridian)E"), "\(name)")
        }
        #expect(try Self.at(24.94, 60.17).metadata.name.contains("UTM zone 35N"))
    }
}
