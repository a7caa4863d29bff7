import Foundation
import GeoCore
import TestSupport
import Testing
@testable import TwinStore

@Suite("Layer definitions and the catalogue's eight fields")
struct LayerDefinitionTests {
    @Test func aCompleteDefinitionDecodesEveryField() throws {
        let d = try Fixtures.shelters
        #expect(d.id == "shelters")
        #expect(d.title == LayerTitle(zh: "应急避难场所", en: "Emergency shelters"))
        #expect(d.category == .publicThemes)
        #expect(d.owner == "应急管理局")
        #expect(d.sharing.type == .open)
        #expect(d.geometryType == .point)
        #expect(d.sensitive.first { $0.attribute == "phone" }?.mask == .partial)
        #expect(d.temporal?.start == "checked_at")
        #expect(d.style?["circle-color"] == "#d33")
    }

    @Test func encodingAndDecodingRoundTrips() throws {
        let d = try Fixtures.shelters
        let again = try JSONDecoder().decode(LayerDefinition.self, from: JSONEncoder().encode(d))
        #expect(again == d)
    }

    @Test(arguments: ["category", "owner", "format", "schema", "updateFrequency"])
    func aMissingCatalogueFieldIsRejectedByName(field: String) throws {
        var json = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(Fixtures.sheltersJSON.utf8)).objectValue)
        json[field] = nil
        let error = #expect(throws: StoreError.self) { try LayerDefinition(json: .object(json)) }
        #expect(error?.code == .invalidLayerDefinition)
        #expect(error?.field == field)
    }

    @Test(arguments: ["type", "method", "requirements"])
    func aMissingSharingFieldIsRejectedByName(field: String) throws {
        var json = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(Fixtures.sheltersJSON.utf8)).objectValue)
        var sharing = try #require(json["sharing"]?.objectValue)
        sharing[field] = nil
        json["sharing"] = .object(sharing)
        let error = #expect(throws: StoreError.self) { try LayerDefinition(json: .object(json)) }
        #expect(error?.field == "sharing.\(field)")
    }

    @Test func aCategoryOutsideTheSixIsRejected() throws {
        let json = Fixtures.sheltersJSON.replacingOccurrences(of: "\"公共专题\"", with: "\"其他\"")
        let error = #expect(throws: StoreError.self) { try Fixtures.definition(json) }
        #expect(error?.field == "category")
    }

    @Test(arguments: ["Shelters", "1shelters", "shel-ters", "", "a\"; DROP TABLE catalog; --",
                      String(repeating: "a", count: 49)])
    func unsafeLayerIdsAreRejected(id: String) throws {
        var json = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(Fixtures.sheltersJSON.utf8)).objectValue)
        json["id"] = .string(id)
        let error = #expect(throws: StoreError.self) { try LayerDefinition(json: .object(json)) }
        #expect(error?.field == "id")
    }

    @Test func anUnknownMaskRuleIsRejected() throws {
        let json = Fixtures.sheltersJSON.replacingOccurrences(of: "\"mask\": \"partial\"", with: "\"mask\": \"blur\"")
        let error = #expect(throws: StoreError.self) { try Fixtures.definition(json) }
        #expect(error?.field == "sensitive[0].mask")
    }

    @Test func aStorageCRSOtherThanCGCS2000IsRejected() throws {
        let json = Fixtures.sheltersJSON.replacingOccurrences(of: "EPSG:4490", with: "EPSG:3857")
        let error = #expect(throws: StoreError.self) { try Fixtures.definition(json) }
        #expect(error?.field == "storageCRS")
    }

    @Test("a zoom range for whole-map tiles: read, written back, every zoom without it; a bad one names tiles.minzoom or tiles.maxzoom")
    func tileZoomRanges() throws {
        var json = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(Fixtures.sheltersJSON.utf8)).objectValue)
        #expect(try LayerDefinition(json: .object(json)).tileZooms == nil)
        #expect(try LayerDefinition(json: .object(json)).isTiled(atZoom: 0))
        json["tiles"] = ["minzoom": 16]
        let from16 = try LayerDefinition(json: .object(json))
        #expect(from16.tileZooms == 16...24)
        #expect(!from16.isTiled(atZoom: 15) && from16.isTiled(atZoom: 16) && from16.isTiled(atZoom: 24))
        #expect(from16.json["tiles"] == ["minzoom": 16])
        json["tiles"] = ["minzoom": 10, "maxzoom": 16]
        let bounded = try LayerDefinition(json: .object(json))
        #expect(bounded.tileZooms == 10...16)
        #expect(try JSONDecoder().decode(LayerDefinition.self, from: JSONEncoder().encode(bounded)) == bounded)
        let bad: [(JSONValue, String)] = [
            (["minzoom": 25], "tiles.minzoom"), (["minzoom": -1], "tiles.minzoom"), (["minzoom": 14.5], "tiles.minzoom"),
            (["minzoom": "14"], "tiles.minzoom"), (["minzoom": 16, "maxzoom": 12], "tiles.maxzoom"), (["maxzoom": 30], "tiles.maxzoom"),
            (["min_zoom": 14], "tiles.min_zoom"), ([14, 16], "tiles"),
        ]
        for (value, field) in bad {
            json["tiles"] = value
            let error = #expect(throws: StoreError.self) { try LayerDefinition(json: .object(json)) }
            #expect(error?.field == field, "\(value)")
        }
        json["tiles"] = ["minzoom": 14]
        json["geometryType"] = .null
        let error = #expect(throws: StoreError.self) { try LayerDefinition(json: .object(json)) }
        #expect(error?.field == "tiles")
    }

    @Test func theCatalogueLoadsADirectoryAndNamesTheBadFile() throws {
        try withTemporaryDirectory("layers") { dir in
            try Fixtures.sheltersJSON.write(to: dir.appending("shelters.json"), atomically: true, encoding: .utf8)
            try Fixtures.districtsJSON.write(to: dir.appending("districts.json"), atomically: true, encoding: .utf8)
            let catalog = try LayerCatalog.load(directory: dir.url)
            #expect(catalog.definitions.map(\.id) == ["districts", "shelters"])

            let bad = Fixtures.wellsJSON.replacingOccurrences(of: "\"owner\": \"水务局\",", with: "")
            try bad.write(to: dir.appending("wells.json"), atomically: true, encoding: .utf8)
            let error = #expect(throws: StoreError.self) { try LayerCatalog.load(directory: dir.url) }
            #expect(error?.field == "owner")
            #expect(error?.message.hasPrefix("wells.json") == true)
        }
    }
}
