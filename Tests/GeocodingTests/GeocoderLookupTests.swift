@testable import Geocoding
import GeoCore
import Testing
@testable import CityModel

@Suite("Geocoder forward and reverse lookups")
struct GeocoderLookupTests {
    func room(_ geocoder: AddressGeocoder) throws -> AddressRecord {
        let yards = geocoder.records.filter { $0.level == .yard }.map(\.code)
        return try #require(geocoder.records.first { room in
            room.level == .room && room.inUse && yards.contains { room.code.hasPrefix($0) }
        })
    }

    @Test("the full standard address of a room matches it at 户室 with confidence 1")
    func fullAddress() throws {
        let geocoder = try districtGeocoder.get()
        let r = try room(geocoder)
        let m = try #require(geocoder.geocode(r.fullAddress))
        #expect(m.code == r.code && m.level == .room && m.confidence == 1)
        #expect(m.components.room == r.name && m.components.county == "新洲区")
        #expect(m.position == r.position)
    }

    @Test("a door plate with Chinese numerals and spaces matches the 门牌")
    func doorPlate() throws {
        let geocoder = try districtGeocoder.get()
        let door = try #require(geocoder.records.first { $0.level == .doorPlate && $0.name.hasPrefix("沿江大道") })
        let number = Int(door.name.filter(\.isNumber)) ?? 0
        let m = try #require(geocoder.geocode("邾城街道 沿江大道 \(chineseNumeral(number))号"))
        #expect(m.code == door.code && m.level == .doorPlate)
        // The former road name finds the same plate.
        #expect(geocoder.geocode("江堤路\(number)号")?.code == door.code)
    }

    @Test("a city outside China: 'Korkeavuorenkatu 26' and '26 Korkeavuorenkatu' find the plate Korkeavuorenkatu26号 that city build made from addr:*")
    func latinDoorPlate() throws {
        let at = Position(x: 24.95, y: 60.16)
        let street = AddressRecord(code: "S1", parentCode: nil, level: .street, name: "Korkeavuorenkatu", fullAddress: "Korkeavuorenkatu", position: at)
        let plate = AddressRecord(code: "S1-26", parentCode: "S1", level: .doorPlate, name: "Korkeavuorenkatu26号",
                                  fullAddress: "Korkeavuorenkatu26号", position: Position(x: 24.951, y: 60.161))
        let geocoder = try AddressGeocoder(records: [street, plate])
        for text in ["Korkeavuorenkatu 26", "26 Korkeavuorenkatu", "Korkeavuorenkatu26号"] {
            let m = try #require(geocoder.geocode(text), "\(text)")
            #expect(m.code == "S1-26" && m.level == .doorPlate, "\(text): \(m.code) \(m.level)")
        }
        #expect(geocoder.geocode("Korkeavuorenkatu 27")?.code != "S1-26")
    }

    @Test("a door number that does not exist falls back to a coarser level, never another plate")
    func missingNumber() throws {
        let geocoder = try districtGeocoder.get()
        let m = geocoder.geocode("邾城街道沿江大道9998号")
        #expect(m == nil || (m?.level ?? .room) < .doorPlate)
    }

    @Test("reverse geocoding returns the nearest door plate or building, with its distance in metres")
    func reverse() throws {
        let geocoder = try districtGeocoder.get()
        let door = try #require(geocoder.records.first { $0.level == .doorPlate && $0.inUse })
        let m = try #require(geocoder.reverseGeocode(door.position))
        #expect(m.distance == 0 && [.doorPlate, .building].contains(m.level))
        // 0.0001° north is about 11.1 m.
        let near = Position(x: door.position.x, y: door.position.y + 0.0001)
        let n = try #require(geocoder.reverseGeocode(near))
        #expect((n.distance ?? 99) <= 11.2)
        #expect(geocoder.reverseGeocode(Position(x: 100, y: 10)) == nil)
        #expect(geocoder.reverseGeocode(Position(x: .nan, y: 30)) == nil)
    }

    @Test("building the geocoder rejects duplicate codes and dangling parents")
    func badRecords() {
        let a = AddressRecord(code: "1", parentCode: nil, level: .county, name: "新洲区", fullAddress: "新洲区", position: Position(x: 114, y: 30))
        let b = AddressRecord(code: "12", parentCode: "9", level: .subdistrict, name: "邾城街道", fullAddress: "", position: Position(x: 114, y: 30))
        #expect(throws: AddressDataError.self) { try AddressGeocoder(records: [a, a]) }
        #expect(throws: AddressDataError.self) { try AddressGeocoder(records: [a, b]) }
        #expect(throws: AddressDataError.self) { try AddressGeocoder(features: [Feature(id: .string("x"), geometry: nil, properties: [:])]) }
        let pointless = Feature(id: .string("y"), geometry: nil, properties: ["level": "门牌", "address_code": "c", "name": "n"])
        #expect(throws: GeometryError.self) { try AddressGeocoder(features: [pointless]) }
    }
}
