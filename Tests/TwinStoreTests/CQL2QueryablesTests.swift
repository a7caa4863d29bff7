import Foundation
import GeoCore
import Testing
@testable import TwinStore

/// Filters are checked against the layer's queryables, and geometry literals arrive in storage
/// coordinates (EPSG:4490) whatever `filter-crs` they were written in.
@Suite("CQL2 checks queryables and transforms filter-crs literals")
struct CQL2QueryablesTests {
    static let buildings = Queryables(properties: [
        "name": .string, "floors": .integer, "height": .number, "is_public": .boolean,
        "built": .dateTime, "surveyed": .date, "notes": .any, "geometry": .geometry,
    ])

    func error(_ text: String) -> CQLError? {
        do { _ = try CQL2.parseText(text, queryables: Self.buildings); return nil } catch { return error as? CQLError }
    }

    @Test func unknownPropertiesAreRejectedWithTheQueryablesListed() throws {
        let e = try #require(error("heigth > 10"))
        #expect(e.message == "unknown property 'heigth' at offset 0 (queryables: built, floors, geometry, height, is_public, name, notes, surveyed)")
        #expect(e.token == "heigth")
        let j = try #require(throws: CQLError.self) {
            try CQL2.parseJSON(Data(#"{"op":"=","args":[{"property":"name"},{"property":"nmae"}]}"#.utf8), queryables: Self.buildings)
        }
        #expect(j.position == "$.args[1]")
    }

    @Test func queryablesComeFromTheLayerSchema() throws {
        let layer = try LayerDefinition(json: [
            "id": "shelters", "title": ["zh": "避难场所", "en": "Shelters"], "category": .string(CIMCategory.allCases[0].rawValue),
            "owner": "应急管理局", "format": "vector", "updateFrequency": "monthly",
            "sharing": ["type": "open", "method": "api", "requirements": "none"], "geometryType": "Point",
            "schema": ["type": "object", "properties": [
                "capacity": ["type": "integer"], "name": ["type": "string"], "opened": ["type": "string", "format": "date"],
            ]],
        ])
        let q = Queryables(layer: layer)
        #expect(q.properties == ["capacity": .integer, "name": .string, "opened": .date, "geometry": .geometry])
        #expect(throws: CQLError.self) { try CQL2.parseText("capacity = 'many'", queryables: q) }
        _ = try CQL2.parseText("capacity > 100 AND S_INTERSECTS(geometry, BBOX(114, 30, 115, 31))", queryables: q)
    }

    @Test(arguments: [
        ("floors = 'abc'", "property 'floors' is an integer, literal 'abc' is a string at offset 9"),
        ("'abc' = floors", "property 'floors' is an integer, literal 'abc' is a string at offset 0"),
        ("name > 3", "property 'name' is a string, literal 3 is an integer at offset 7"),
        ("is_public = 1", "property 'is_public' is a boolean, literal 1 is an integer at offset 12"),
        ("floors = name", "property 'floors' is an integer, property 'name' is a string at offset 9"),
        ("floors IN (1, 'two')", "property 'floors' is an integer, literal 'two' is a string at offset 14"),
        ("height BETWEEN 1 AND 'high'", "property 'height' is a number, literal 'high' is a string at offset 21"),
        ("name + 1 > 2", "arithmetic needs numbers, but property 'name' is a string at offset 0"),
        ("floors LIKE '1%'", "LIKE and CASEI need text, but property 'floors' is an integer at offset 0"),
        ("T_AFTER(name, DATE('2020-01-01'))", "property 'name' is a string, not a date or date-time"),
        ("S_INTERSECTS(name, POINT(1 2))", "property 'name' is a string, not a geometry"),
        ("geometry = 1", "property 'geometry' is a geometry; use a spatial function"),
    ])
    func literalsMustMatchThePropertyType(_ text: String, _ message: String) throws {
        let e = try #require(error(text), "\(text) was accepted")
        #expect(e.message.hasPrefix(message), "\(e.message)")
    }

    @Test func compatibleTypesAreAccepted() throws {
        for text in ["floors = 3.0", "height > floors", "built > TIMESTAMP('2020-01-01T00:00:00Z')", "surveyed = DATE('2020-01-01')",
                     "surveyed = '2020-01-01'", "notes = 3", "notes = 'x'", "geometry IS NULL", "floors * 2 > height - 1",
                     "CASEI(name) = CASEI('x')", "T_DURING(built, INTERVAL('..', '..'))"] {
            #expect(throws: Never.self, "\(text)") { try CQL2.parseText(text, queryables: Self.buildings) }
        }
    }

    @Test func crs84LiteralsArriveUnchangedInCGCS2000() throws {
        let f = try CQL2.parseText("S_INTERSECTS(geometry, POINT(114.3055 30.5928))", queryables: Self.buildings)
        #expect(f == .spatial(.intersects, .point(Point(x: 114.3055, y: 30.5928))))
    }

    @Test func projectedFilterCRSLiteralsAreTransformedToLonLat() throws {
        // Gauss-Krüger CM 114°E (EPSG:4547): authority order is northing, easting for this CRS in
        // EPSG, so the literal is written as the CRS defines it.
        let gk = CoordinateReferenceSystem(epsg: 4547)
        let toGK = try CoordinateTransformer.shared(from: .cgcs2000, to: gk)
        let metres = try gk.toAuthorityOrder(try toGK.transform(Position(x: 114.3055, y: 30.5928)))
        let text = "S_INTERSECTS(geometry, POINT(\(metres.x) \(metres.y)))"
        let f = try CQL2.parseText(text, queryables: Self.buildings, filterCRS: gk)
        guard case .spatial(.intersects, .point(let p)) = f, let q = p.position else {
            Issue.record("not a point filter: \(f)")
            return
        }
        #expect(abs(q.x - 114.3055) < 1e-9)
        #expect(abs(q.y - 30.5928) < 1e-9)
    }

    @Test func epsg4326LiteralsAreLatitudeFirst() throws {
        let f = try CQL2.parseText("S_INTERSECTS(geometry, BBOX(30.5, 114.2, 30.7, 114.4))", queryables: nil, filterCRS: .wgs84)
        let box = try CQL2.parseText("S_INTERSECTS(geometry, BBOX(114.2, 30.5, 114.4, 30.7))", queryables: nil)
        #expect(f == box)
    }

    @Test func theEmptyPointIsAValidLiteral() throws {
        let f = try CQL2.parseText("S_INTERSECTS(geometry, POINT EMPTY)", queryables: nil)
        #expect(f == .spatial(.intersects, .point(Point(nil))))
    }
}
