import Testing
@testable import GeoCore

@Suite struct CRSRegistryTests {
    typealias CRS = CoordinateReferenceSystem

    @Test func everyWayOfWritingCGCS2000NamesTheSameSystem() throws {
        let spellings = [
            "EPSG:4490", "epsg:4490", "4490", " EPSG:4490 ",
            "urn:ogc:def:crs:EPSG::4490", "urn:ogc:def:crs:EPSG:9.1:4490",
            "http://www.opengis.net/def/crs/EPSG/0/4490", "https://www.opengis.net/def/crs/EPSG/0/4490",
        ]
        for text in spellings {
            let crs = try CRS(parsing: text)
            #expect(crs == .cgcs2000, "\(text)")
            #expect(crs.epsgCode == 4490)
        }
    }

    @Test func crs84HasItsOwnIdentityDistinctFromEPSG4326() throws {
        for text in ["CRS84", "OGC:CRS84", "crs:84", "urn:ogc:def:crs:OGC:1.3:CRS84",
                     "http://www.opengis.net/def/crs/OGC/1.3/CRS84"] {
            #expect(try CRS(parsing: text) == .crs84, "\(text)")
        }
        #expect(CRS.crs84 != .wgs84)
        #expect(CRS.crs84.epsgCode == nil)
        #expect(CRS.crs84.uri == "http://www.opengis.net/def/crs/OGC/1.3/CRS84")
    }

    @Test func uriIsTheOGCAPIFeaturesPart2Form() throws {
        #expect(CRS.cgcs2000.uri == "http://www.opengis.net/def/crs/EPSG/0/4490")
        #expect(try CRS.cgcs2000GK3(centralMeridian: 114).uri == "http://www.opengis.net/def/crs/EPSG/0/4547")
        // The URI parses back to the same CRS.
        for crs in [CRS.crs84, .wgs84, .cgcs2000, .webMercator, .gcj02, .bd09] {
            #expect(try CRS(parsing: crs.uri) == crs)
            #expect(try CRS(parsing: crs.description) == crs)
        }
    }

    @Test func gaussKrugerConstantsFollowTheEPSGNumbering() throws {
        #expect(try CRS.cgcs2000GK3(centralMeridian: 75).epsgCode == 4534)
        #expect(try CRS.cgcs2000GK3(centralMeridian: 114).epsgCode == 4547)
        #expect(try CRS.cgcs2000GK3(centralMeridian: 135).epsgCode == 4554)
        #expect(try CRS.cgcs2000GK3Zone(25).epsgCode == 4513)
        #expect(try CRS.cgcs2000GK3Zone(38).epsgCode == 4526)
        #expect(try CRS.cgcs2000GK3Zone(45).epsgCode == 4533)
        #expect(try CRS.cgcs2000GK3(centralMeridian: 114).metadata.name == "CGCS2000 / 3-degree Gauss-Kruger CM 114E")
        #expect(try CRS.cgcs2000GK3Zone(38).metadata.name == "CGCS2000 / 3-degree Gauss-Kruger zone 38")
        #expect(throws: GeometryError.self) { try CRS.cgcs2000GK3(centralMeridian: 115) }
        #expect(throws: GeometryError.self) { try CRS.cgcs2000GK3(centralMeridian: 72) }
        #expect(throws: GeometryError.self) { try CRS.cgcs2000GK3Zone(46) }
    }

    @Test func unknownCodeIsACRSErrorNamingIt() {
        #expect {
            _ = try CRS(parsing: "EPSG:999999")
        } throws: { error in
            (error as? GeometryError) == GeometryError(.crs, "unknown CRS EPSG:999999")
        }
        // Known to EPSG but not a CRS (the WGS 84 ellipsoid).
        #expect(throws: GeometryError.self) { try CRS(parsing: "EPSG:7030") }
    }

    @Test func malformedIdentifiersAreParseErrorsNotCrashes() {
        for text in ["", "EPSG:", "EPSG:abc", "EPSG::", "urn:ogc:def:crs:EPSG:4490",
                     "http://www.opengis.net/def/crs/EPSG/4490", "OGC:CRS83", "hello world", "EPSG:4490:1"] {
            #expect(throws: GeometryError.self, "\(text)") { try CRS(parsing: text) }
        }
    }

    @Test func metadataComesFromPROJ() throws {
        let storage = try CRS.cgcs2000.metadata
        #expect(storage.name == "China Geodetic Coordinate System 2000")
        #expect(storage.isGeographic)
        #expect(storage.axisOrder == .latLon)
        #expect(storage.unitName == "degree")
        // Area of use "China - onshore and offshore": 73.62..134.77 E, 16.7..53.56 N.
        let area = try #require(storage.areaOfUse)
        #expect(area.contains(Position(x: 114.3055, y: 30.5928)))
        #expect(abs(area.minX - 73.62) < 0.01 && abs(area.maxY - 53.56) < 0.01)

        let gk = try CRS(epsg: 4547).metadata
        #expect(!gk.isGeographic)
        #expect(gk.axisOrder == .northEast)
        #expect(gk.unitName == "metre")
        #expect(gk.areaOfUse.map { abs($0.minX - 112.5) < 1e-9 && abs($0.maxX - 115.5) < 1e-9 } == true)

        #expect(try CRS.crs84.metadata.axisOrder == .lonLat)
        #expect(try CRS.wgs84.metadata.axisOrder == .latLon)
        #expect(try CRS.webMercator.metadata.axisOrder == .eastNorth)
        #expect(try CRS(parsing: "EPSG:32650").metadata.axisOrder == .eastNorth)
        let xian = try CRS(parsing: "EPSG:2385").metadata
        #expect(xian.name == "Xian 1980 / 3-degree Gauss-Kruger CM 120E")
        #expect(xian.axisOrder == .northEast)
    }

    @Test func displayFramesAreLonLatPseudoCRSs() throws {
        for (text, crs) in [("GCJ02", CRS.gcj02), ("gcj-02", .gcj02), ("BD09", .bd09), ("BD-09", .bd09)] {
            #expect(try CRS(parsing: text) == crs)
        }
        #expect(CRS.gcj02.chinaDisplayFrame == .gcj02)
        #expect(CRS.cgcs2000.chinaDisplayFrame == nil)
        let m = try CRS.bd09.metadata
        #expect(m.isGeographic && m.axisOrder == .lonLat)
        #expect(m.name.contains("display only"))
    }

    @Test func authorityOrderIsAppliedOnlyAtTheEdge() throws {
        let hankou = Position(x: 114.3055, y: 30.5928, z: 21)
        // EPSG:4490 is lat, lon: the edge swaps.
        #expect(try CRS.cgcs2000.toAuthorityOrder(hankou) == Position(x: 30.5928, y: 114.3055, z: 21))
        #expect(try CRS.cgcs2000.fromAuthorityOrder(CRS.cgcs2000.toAuthorityOrder(hankou)) == hankou)
        // CRS84 and Web Mercator are x first: unchanged.
        #expect(try CRS.crs84.toAuthorityOrder(hankou) == hankou)
        #expect(try CRS.webMercator.toAuthorityOrder(hankou) == hankou)
        // EPSG:4547 is northing first.
        let gk = Position(x: 529_299.86, y: 3_385_869.45)
        #expect(try CRS(epsg: 4547).toAuthorityOrder(gk) == Position(x: 3_385_869.45, y: 529_299.86))
        let bbox = Envelope(minX: 114, minY: 30, maxX: 115, maxY: 31)
        #expect(try CRS.cgcs2000.toAuthorityOrder(bbox) == Envelope(minX: 30, minY: 114, maxX: 31, maxY: 115))
        let line = Geometry.lineString([Position(114, 30), Position(115, 31)])
        #expect(try CRS.cgcs2000.toAuthorityOrder(line) == .lineString([Position(30, 114), Position(31, 115)]))
        #expect(try CRS.crs84.toAuthorityOrder(line) == line)
    }

    @Test func otherAuthoritiesPROJKnowsArePassedThrough() throws {
        let esri = try CRS(parsing: "ESRI:102100")
        #expect(esri.authority == "ESRI" && esri.code == "102100")
        #expect(esri.epsgCode == nil)
        #expect(try esri.metadata.axisOrder == .eastNorth)
    }
}
