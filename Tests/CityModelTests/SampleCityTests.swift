import Foundation
import GeoCore
import Testing
@testable import CityModel
import TestSupport
import TwinStore

/// Issue 57 §1: `citytwin district build --scale N`, an N × N city of sample districts.
@Suite("Sample city: N × N districts with their own ids, codes and names, joined by roads", .temporaryDirectories)
struct SampleCityTests {
    static let city = Result { try DistrictTile.tiling(2).map { try SampleDistrict.generate(tile: $0) } }

    static func ids(_ district: SampleDistrict) -> Set<String> {
        Set(district.layers.values.joined().compactMap { if case .string(let id)? = $0.id { id } else { nil } })
    }

    /// Every string in a JSON value, nested ones included.
    static func strings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let s): [s]
        case .array(let items): items.flatMap(strings)
        case .object(let members): members.values.flatMap(strings)
        default: []
        }
    }

    @Test("the first district of a city is the sample district but for the legs its connecting roads add")
    func firstIsTheSampleDistrict() throws {
        let city = try Self.city.get(), sample = try generatedDistrict()
        #expect(city[0].elevation == sample.elevation)
        for (layer, features) in sample.layers where layer != "intersections" {
            #expect(city[0][layer: layer] == features, "\(layer)")
        }
        let changed = zip(city[0][layer: "intersections"], sample[layer: "intersections"]).filter { $0 != $1 }
        // East edge (rows ≡ 1 mod 5) and north edge (columns ≡ 2 mod 4) of the 17 × 19 grid: 4 + 4.
        #expect(changed.count == 8)
        for (a, b) in changed {
            #expect(a.properties["legs"] == .integer((b.properties["legs"].flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? 0) + 1))
        }
    }

    @Test("the other districts have ids, admin codes and names of their own and refer to nothing of another")
    func ownIdsCodesAndNames() throws {
        let city = try Self.city.get()
        let idSets = city.map(Self.ids)
        for i in 0..<city.count {
            for j in (i + 1)..<city.count { #expect(idSets[i].isDisjoint(with: idSets[j]), "districts \(i) and \(j) share ids") }
        }
        let all = idSets.reduce(Set<String>()) { $0.union($1) }
        for (k, district) in city.enumerated() {
            let county = try #require(district[layer: "admin_divisions"].first { $0.properties["level"] == "区县" })
            #expect(county.properties["code"] == .string(k == 0 ? "420117000000" : "49000\(k)000000"))
            #expect(county.properties["name"] == .string(["新洲区", "新洲一区", "新洲二区", "新洲三区"][k]))
            for division in district[layer: "admin_divisions"] {
                #expect(division.properties["code"]?.stringValue?.wholeMatch(of: /[0-9]{12}/) != nil)
            }
            // A value naming an id names one of its own district; only connecting roads reach a neighbour's intersection.
            for (layer, features) in district.layers {
                for f in features {
                    for (key, value) in f.properties {
                        for s in Self.strings(value) where all.contains(s) && !idSets[k].contains(s) {
                            #expect(layer == "roads" && key == "from_intersection", "\(layer) \(f.id!) \(key) = \(s) names another district's feature")
                        }
                        if k > 0 { #expect(!Self.strings(value).contains { $0.contains("新洲区") || $0.contains("邾城") }, "\(layer) \(key)") }
                    }
                }
            }
        }
        #expect(DistrictTile.numeral(105) == "一百零五" && DistrictTile.numeral(110) == "一百一十" && DistrictTile.numeral(1020) == "一千零二十")
    }

    @Test("connecting roads join the districts into one road network whose ends lie on the intersections they name")
    func connectedRoads() throws {
        let city = try Self.city.get()
        var points: [String: Position] = [:]
        for f in city.flatMap({ $0[layer: "intersections"] }) {
            if case .point(let p)? = f.geometry, case .string(let id)? = f.id { points[id] = p.position }
        }
        var parent = Array(points.keys).reduce(into: [String: String]()) { $0[$1] = $1 }
        func root(_ id: String) -> String { var r = id; while parent[r]! != r { r = parent[r]! }; return r }
        let roads = city.flatMap { $0[layer: "roads"] }
        for road in roads {
            let from = try #require(road.properties["from_intersection"]?.stringValue), to = try #require(road.properties["to_intersection"]?.stringValue)
            let a = try #require(points[from], "\(from)"), b = try #require(points[to], "\(to)")
            guard case .lineString(let line)? = road.geometry else { Issue.record("road \(road.id!) is not a line"); continue }
            #expect(abs(line.positions.first!.x - a.x) < 1e-8 && abs(line.positions.first!.y - a.y) < 1e-8, "\(road.id!) starts off \(from)")
            #expect(abs(line.positions.last!.x - b.x) < 1e-8 && abs(line.positions.last!.y - b.y) < 1e-8, "\(road.id!) ends off \(to)")
            parent[root(from)] = root(to)
        }
        #expect(Set(points.keys.map(root)).count == 1, "the city's roads form \(Set(points.keys.map(root)).count) networks")
        // West–east: 4 rows ≡ 1 mod 5 of 19, twice; south–north: 4 columns ≡ 2 mod 4 of 17, twice.
        #expect(roads.filter { $0.properties["name"]?.stringValue?.hasSuffix("连接线") == true }.count == 16)
    }

    @Test("the city's DEM is the districts' DEMs side by side, north-up from the north-west corner")
    func mosaic() throws {
        let city = try Self.city.get()
        var grid: Grid?
        for (k, tile) in DistrictTile.tiling(2).enumerated() { try DistrictLoader.place(city[k].elevation, of: tile, in: &grid) }
        let dem = try #require(grid)
        #expect(dem.width == 1000 && dem.height == 1000)
        #expect(dem.geoTransform.originX == city[0].elevation.geoTransform.originX)
        #expect(dem.geoTransform.originY == city[2].elevation.geoTransform.originY)
        // South-east district (tile 1) at the bottom right; north-west (tile 2) at the top left.
        #expect(dem[column: 500 + 17, row: 500 + 3] == city[1].elevation[column: 17, row: 3])
        #expect(dem[column: 17, row: 3] == city[2].elevation[column: 17, row: 3])
        #expect(dem[column: 999, row: 0] == city[3].elevation[column: 499, row: 0])
    }

    @Test("a tile's names replace 新洲区 and 邾城 as Foundation's replacingOccurrences does, and leave other text as it is")
    func renamingMatchesFoundation() {
        let tile = DistrictTile(column: 2, row: 1, count: 3)
        let texts = ["", "邾城", "新洲区邾城街道", "邾城邾城", "武汉市新洲区邾城街道问津大道 12 号", "邾", "城邾城区", "新洲区",
                     "Zhucheng 邾城 road", "新洲新洲区区", "a邾城b新洲区c邾城", "🙂邾城🙂", "e\u{301}邾城"]
        for text in texts {
            let expected = text.replacingOccurrences(of: "新洲区", with: tile.districtName).replacingOccurrences(of: "邾城", with: tile.townName)
            #expect(tile.rename(text) == expected, "\(text)")
        }
        #expect(DistrictTile.replacing("ab", with: "x", in: "aababb") == "axxb")
        #expect(DistrictTile.single.rename("邾城") == "邾城")
    }

    @Test("a scale outside 1…32 is refused naming it")
    func scaleRange() async throws {
        let store = try await ImportFixtures.store([])
        for scale in [0, 33] {
            let error = await #expect(throws: ImportError.self) {
                try await DistrictLoader.build(into: store, layersDirectory: ImportFixtures.layersDirectory, scale: scale)
            }
            #expect(error?.field == "scale" && "\(error!)".contains("1 (the sample district) to 32"), "\(String(describing: error))")
        }
        #expect(try await store.layers(for: .admin).isEmpty, "a refused build creates no layer")
    }
}
