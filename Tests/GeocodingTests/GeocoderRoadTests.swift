import Foundation
@testable import Geocoding
import GeoCore
import Testing
@testable import CityModel

/// Issue 58 item 10: roads are standard addresses, door plates run along the 南北 roads too, and a
/// fallback goes to the nearest level that exists, says so and scores as that level.
@Suite("Geocoder roads and fallbacks")
struct GeocoderRoadTests {
    /// Metres between two lon/lat points (equirectangular, enough over a district).
    static func metres(_ a: Position, _ b: Position) -> Double {
        let m = 6_371_008.8 * .pi / 180
        return hypot((a.x - b.x) * cos(a.y * .pi / 180) * m, (a.y - b.y) * m)
    }

    /// The whole-road 街路巷 records: those hanging under the 乡镇街道.
    static func roads(_ geocoder: AddressGeocoder) -> [AddressRecord] {
        let subdistricts = Set(geocoder.records.filter { $0.level == .subdistrict }.map(\.code))
        return geocoder.records.filter { $0.level == .street && subdistricts.contains($0.parentCode ?? "") }
    }

    static func road(_ geocoder: AddressGeocoder, _ name: String) throws -> AddressRecord {
        try #require(roads(geocoder).first { $0.name == name }, "no road \(name)")
    }

    @Test("问津大道12号, the web map's example, lands on its own door plate on 问津大道, not on 问津社区")
    func wenjinAvenue12() throws {
        let geocoder = try districtGeocoder.get()
        let m = try #require(geocoder.geocode("问津大道12号"))
        #expect(m.level == .doorPlate && m.record.name == "问津大道12号" && m.fallback == nil && m.confidence == 1)
        let plate = try #require(geocoder.records.first { $0.level == .doorPlate && $0.name == "问津大道12号" })
        #expect(Self.metres(m.position, plate.position) < 3)
        // The plate stands beside 问津大道's centre line (a 南北 road: same longitude as the road's point).
        let road = try Self.road(geocoder, "问津大道")
        let across = Self.metres(m.position, Position(x: road.position.x, y: m.position.y))
        #expect(across < 20, "\(across) m from the road")
    }

    @Test("each of the 36 named roads is found as a road by its own name, at confidence 1")
    func everyRoadByName() throws {
        let geocoder = try districtGeocoder.get()
        let roads = Self.roads(geocoder)
        // 17 南北 and 19 东西 roads, each once.
        #expect(roads.count == 36 && Set(roads.map(\.name)).count == 36)
        #expect(Set(DistrictDraft.arterialNS + DistrictDraft.arterialEW + ["邾城七路", "邾城十五路"]).isSubset(of: Set(roads.map(\.name))))
        for road in roads {
            let m = try #require(geocoder.geocode(road.name), "\(road.name)")
            #expect(m.code == road.code && m.level == .street && m.fallback == nil && m.confidence == 1, "\(road.name) → \(m.record.fullAddress)")
        }
        let m = try #require(geocoder.geocode("沿江大道"))
        #expect(m.record.name == "沿江大道" && m.level == .street)
        // Its former name finds it too; with a community named, the road's section there.
        #expect(geocoder.geocode("江堤路")?.code == m.code)
        let section = try #require(geocoder.records.first { $0.level == .street && $0.name == "沿江大道" && $0.code != m.code })
        let community = try #require(geocoder.records.first { $0.code == section.parentCode })
        #expect(geocoder.geocode(community.name + "沿江大道")?.code == section.code)
    }

    @Test("邾城七路9999号 falls back to the road 邾城七路, marked as a fallback with the road-level score")
    func missingPlateFallsBackToItsRoad() throws {
        let geocoder = try districtGeocoder.get()
        let m = try #require(geocoder.geocode("邾城七路9999号"))
        let road = try Self.road(geocoder, "邾城七路")
        #expect(m.code == road.code && m.level == .street)
        let fallback = try #require(m.fallback)
        #expect(fallback.requested == .doorPlate && fallback.reason.contains("does not exist"))
        // 9999 is past the road's last plate: no interpolation, the road's point and score.
        #expect(fallback.position == nil && m.position == road.position)
        #expect(m.confidence == AddressMatchLevel.street.fallbackScore() && m.confidence == 0.5)
    }

    @Test("a road name one typo away from two roads (邾城大 → 邾城大街 or 邾城大道) answers neither road")
    func typoBetweenTwoRoads() throws {
        let geocoder = try districtGeocoder.get()
        for text in ["邾城大40号", "邾城大"] {
            let m = geocoder.geocode(text)
            #expect(m == nil || (m?.level ?? .room) < .street, "\(text) → \(m?.record.fullAddress ?? "")")
        }
    }

    @Test("a yard spelled exactly (凤凰苑) with a number is not a door plate of the road one typo away (凤凰街)")
    func yardIsNotARoad() throws {
        let geocoder = try districtGeocoder.get()
        let roads = Set(Self.roads(geocoder).map(\.name))
        let yards = Set(geocoder.records.filter { $0.level == .yard && $0.name.count == 3 && roads.contains($0.name.prefix(2) + "街") }.map(\.name))
        #expect(!yards.isEmpty)
        for yard in yards {
            let m = geocoder.geocode(yard + "3号")
            #expect(m?.record.name.hasPrefix(yard.prefix(2) + "街") != true, "\(yard)3号 → \(m?.record.fullAddress ?? "")")
        }
    }

    @Test("a batch row that falls back says so in reason; an exact row's reason stays empty")
    func batchReason() throws {
        let geocoder = try districtGeocoder.get()
        let result = try geocoder.geocodeCSV("address\n问津大道12号\n邾城七路9999号\n", file: "roads.csv", input: .address(column: "address"))
        let lines = result.csv.split(separator: "\n").map(String.init)
        #expect(result.matched == 2 && lines.count == 3)
        #expect(lines[1].hasSuffix(","), "\(lines[1])")
        #expect(lines[2].contains(",街巷,0.5,") && lines[2].contains("fallback: 门牌 邾城七路9999号 does not exist"), "\(lines[2])")
    }

    @Test("a missing number between a 南北 road's plates lands at its interpolated place along the road")
    func interpolatedNumber() throws {
        let geocoder = try districtGeocoder.get()
        var checked = 0
        for road in Self.roads(geocoder) where DistrictDraft.arterialNS.contains(road.name) || DistrictDraft.localNS.contains(road.name) {
            let plates = geocoder.records.filter { $0.level == .doorPlate && $0.inUse && $0.name.hasPrefix(road.name) }
                .map { (Int($0.name.dropFirst(road.name.count).dropLast()) ?? -1, $0.position) }.sorted { $0.0 < $1.0 }
            let numbers = Set(plates.map(\.0))
            guard let low = plates.first?.0, let high = plates.last?.0,
                  let gap = (low...high).first(where: { !numbers.contains($0) && numbers.contains($0 - 2) && numbers.contains($0 + 2) }) else { continue }
            let m = try #require(geocoder.geocode("\(road.name)\(gap)号"))
            #expect(m.code == road.code && m.level == .street && m.fallback?.requested == .doorPlate)
            #expect(m.fallback?.position != nil && m.confidence == 0.6, "\(road.name)\(gap)号: \(m.fallback?.reason ?? "")")
            // Half-way between the plates two numbers either side, on the same side of the road.
            let a = try #require(plates.first { $0.0 == gap - 2 }).1, b = try #require(plates.first { $0.0 == gap + 2 }).1
            #expect(Self.metres(m.position, Position(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)) < 0.5)
            checked += 1
        }
        #expect(checked > 0, "no 南北 road has a reserved number between two plates")
    }

    @Test("interpolation needs plates that run in number order; otherwise the road's point")
    func interpolationNeedsOrderedPlates() throws {
        func records(_ plates: [(Int, Double)]) -> [AddressRecord] {
            var r = [AddressRecord(code: "1", parentCode: nil, level: .county, name: "新洲区", fullAddress: "新洲区", position: Position(x: 114.8, y: 30.84)),
                     AddressRecord(code: "11", parentCode: "1", level: .subdistrict, name: "邾城街道", fullAddress: "新洲区邾城街道", position: Position(x: 114.8, y: 30.84)),
                     AddressRecord(code: "111", parentCode: "11", level: .street, name: "试验路", fullAddress: "新洲区邾城街道试验路", position: Position(x: 114.8, y: 30.84))]
            for (n, x) in plates {
                r.append(AddressRecord(code: "111\(n)", parentCode: "111", level: .doorPlate, name: "试验路\(n)号",
                                       fullAddress: "新洲区邾城街道试验路\(n)号", position: Position(x: x, y: 30.84)))
            }
            return r
        }
        let ordered = try AddressGeocoder(records: records([(2, 114.800), (4, 114.801), (8, 114.803)]))
        let m = try #require(ordered.geocode("试验路6号"))
        #expect(m.code == "111" && m.fallback?.position != nil && m.confidence == 0.6)
        #expect(Self.metres(m.position, Position(x: 114.802, y: 30.84)) < 0.01)
        let shuffled = try AddressGeocoder(records: records([(2, 114.800), (4, 114.803), (8, 114.801)]))
        let s = try #require(shuffled.geocode("试验路6号"))
        #expect(s.code == "111" && s.fallback?.position == nil && s.position == Position(x: 114.8, y: 30.84) && s.confidence == 0.5)
        #expect(s.fallback?.reason.contains("do not run in order") == true)
    }

    @Test("a coarser answer scores as its level: a community or sub-district never scores like the door plate asked for")
    func scoreScale() throws {
        let geocoder = try districtGeocoder.get()
        // No road 幸福路: the plate and its building fall back to the community named, at a community's score.
        let m = try #require(geocoder.geocode("问津社区幸福路12号3栋"))
        #expect(m.record.name == "问津社区" && m.level == .community && m.fallback?.requested == .building && m.confidence <= 0.3)
        let levels: [AddressMatchLevel] = [.floor, .unit, .building, .doorPlate, .street, .community, .subdistrict, .county]
        let scores = levels.map { $0.fallbackScore() }
        #expect(scores == scores.sorted(by: >) && AddressMatchLevel.street.fallbackScore(interpolated: true) == 0.6)
    }

    @Test("no full address in the district names a road twice, and every door plate is found by its own spelling")
    func labelsAndPlates() throws {
        let geocoder = try districtGeocoder.get()
        let roadNames = Set(Self.roads(geocoder).map(\.name))
        for r in geocoder.records {
            for road in roadNames {
                #expect(r.fullAddress.components(separatedBy: road).count <= 2, "\(r.fullAddress)")
            }
        }
        let label = try #require(geocoder.geocode("邾城七路26号")).record.fullAddress
        #expect(label.components(separatedBy: "邾城七路").count == 2, "\(label)")
        var plates = 0
        for plate in geocoder.records where plate.level == .doorPlate && plate.inUse {
            let m = try #require(geocoder.geocode(plate.name), "\(plate.name)")
            #expect(m.code == plate.code && m.fallback == nil, "\(plate.name) → \(m.record.fullAddress)")
            plates += 1
        }
        #expect(plates > 500)
    }
}
