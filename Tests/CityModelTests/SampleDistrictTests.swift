import GeoCore
import Testing
@testable import CityModel
import TestSupport

@Suite("Sample district")
struct SampleDistrictTests {
    @Test("the same seed gives identical layers and DEM; another seed differs")
    func determinism() throws {
        let first = try generatedDistrict()
        let again = try SampleDistrict.generate(seed: 2026)
        #expect(first.layers == again.layers)
        #expect(first.elevation == again.elevation)
        let other = try SampleDistrict.generate(seed: 7)
        #expect(other.layers["buildings"] != first.layers["buildings"])
        #expect(other.elevation != first.elevation)
    }

    @Test("counts are those of a small town centre")
    func counts() throws {
        let d = try generatedDistrict()
        #expect((1800...2200).contains(d[layer: "buildings"].count), "buildings \(d[layer: "buildings"].count)")
        #expect((17_000...23_000).contains(d[layer: "addresses"].count), "addresses \(d[layer: "addresses"].count)")
        // Manholes at GB 50014-2021 spacing by pipe size (840 for seed 2026; 1,652 when they stood every 40 m).
        #expect((700...1000).contains(d[layer: "drainage_manholes"].count), "manholes \(d[layer: "drainage_manholes"].count)")
        #expect(d[layer: "parking_lots"].count >= 10)
        #expect(d[layer: "signalized_intersections"].count >= 20)
        #expect(d[layer: "drainage_outfalls"].count >= 5)
        #expect(d[layer: "river_gauges"].contains { $0.properties["water_body"] == "涨渡湖" })
        #expect(d[layer: "river_gauges"].contains { $0.properties["water_body"] == "举水" })
        #expect(d[layer: "water_connections"].count == d[layer: "buildings"].count)
        // At least three pressure points (one per 10 km²).
        #expect(d[layer: "iot_devices"].filter { $0.properties["kind"] == "压力计" }.count >= 3)
    }

    @Test("the DEM is 500 × 500 cells of 10 m in EPSG:4547 with the river below the town")
    func elevation() throws {
        let d = try generatedDistrict()
        #expect(d.elevation.width == 500 && d.elevation.height == 500)
        #expect(d.elevation.geoTransform.pixelWidth == 10 && d.elevation.geoTransform.pixelHeight == -10)
        let values = d.elevation.values
        #expect(values.allSatisfy { $0.isFinite && $0 > 10 && $0 < 80 })
        // The 举水 channel (west) lies lower than the town centre.
        let row = 250
        let river = (0..<80).map { values[row * 500 + $0] }.min() ?? 0
        let centre = values[row * 500 + 250]
        #expect(river < centre - 3)
    }

    @Test("all geometries are EPSG:4490 lon/lat around 邾城 (114.80°E, 30.84°N)")
    func coordinates() throws {
        let d = try generatedDistrict()
        for (layer, features) in d.layers {
            for f in features.prefix(200) {
                f.geometry?.forEachPosition { p in
                    #expect(abs(p.x - 114.80) < 0.03 && abs(p.y - 30.84) < 0.03, "\(layer) \(p)")
                }
            }
        }
    }

    @Test("a smaller scale gives a smaller district with the same layers")
    func scale() throws {
        let small = try SampleDistrict.generate(seed: 2026, scale: 0.25)
        let full = try generatedDistrict()
        #expect(Set(small.layers.keys) == Set(full.layers.keys))
        #expect(small[layer: "buildings"].count < full[layer: "buildings"].count / 2)
        #expect(DrainageTopologyReport(district: small).isClean)
    }
}
