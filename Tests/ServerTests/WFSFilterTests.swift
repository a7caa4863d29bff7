import Foundation
import GeoCore
@testable import Server
import Testing
import TwinStore

/// FES 2.0 filters translated into the CQL2 machinery's `FilterExpression`, GML CRS names with
/// GeoServer's axis rules, and the WFS KVP reader (`WFSGetFeatureRequest`).
@Suite("WFS filters and parameters")
struct WFSFilterTests {
    static let queryables = Queryables(properties: ["name": .string, "capacity": .integer, "height": .number, "open": .boolean,
                                                    "checked_at": .dateTime, "geometry": .geometry])
    static let fes = "xmlns:fes=\"http://www.opengis.net/fes/2.0\" xmlns:gml=\"http://www.opengis.net/gml/3.2\""

    func parse(_ body: String, crs: GMLCRS = .storage) throws -> FES2.Selection {
        try FES2.parse("<fes:Filter \(Self.fes)>\(body)</fes:Filter>", queryables: Self.queryables, defaultCRS: crs)
    }

    @Test("comparisons type their literal by the property: an integer, a number, a boolean, a date-time, text")
    func comparisons() throws {
        let f = try parse("""
            <fes:And><fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>citytwin:capacity</fes:ValueReference><fes:Literal>120</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo>
            <fes:PropertyIsLessThan><fes:Literal>3.5</fes:Literal><fes:ValueReference>height</fes:ValueReference></fes:PropertyIsLessThan>
            <fes:PropertyIsEqualTo><fes:ValueReference>open</fes:ValueReference><fes:Literal>true</fes:Literal></fes:PropertyIsEqualTo>
            <fes:Not><fes:PropertyIsNotEqualTo><fes:ValueReference>name</fes:ValueReference><fes:Literal>42</fes:Literal></fes:PropertyIsNotEqualTo></fes:Not></fes:And>
            """)
        #expect(f.expression == .and([
            .comparison(.greaterOrEqual, .property("capacity"), .literal(.integer(120))),
            .comparison(.less, .literal(.number(3.5)), .property("height")),
            .comparison(.equal, .property("open"), .literal(.bool(true))),
            .not(.comparison(.notEqual, .property("name"), .literal(.string("42")))),
        ]))
        #expect(f.resourceIds == nil)
    }

    @Test("PropertyIsLike maps its wildcard, single character and escape onto CQL2's %, _ and \\; matchCase=false is CASEI")
    func like() throws {
        let f = try parse("""
            <fes:PropertyIsLike wildCard="*" singleChar="." escapeChar="!" matchCase="false"><fes:ValueReference>name</fes:ValueReference><fes:Literal>避难*所.!*50%</fes:Literal></fes:PropertyIsLike>
            """)
        #expect(f.expression == .like(.property("name"), pattern: "避难%所_*50\\%", caseInsensitive: true))
        let g = try parse("<fes:Or><fes:PropertyIsNull><fes:ValueReference>name</fes:ValueReference></fes:PropertyIsNull>"
                          + "<fes:PropertyIsBetween><fes:ValueReference>capacity</fes:ValueReference><fes:LowerBoundary><fes:Literal>1</fes:Literal></fes:LowerBoundary>"
                          + "<fes:UpperBoundary><fes:Literal>9</fes:Literal></fes:UpperBoundary></fes:PropertyIsBetween></fes:Or>")
        #expect(g.expression == .or([.isNull(.property("name")), .between(.property("capacity"), low: .literal(.integer(1)), high: .literal(.integer(9)))]))
    }

    @Test("BBOX and Within read GML 3.2 in their srsName's axis order: the URN latitude first, EPSG:4326 longitude first")
    func spatial() throws {
        let urn = try parse("""
            <fes:BBOX><gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>30.5 114.2</gml:lowerCorner><gml:upperCorner>30.7 114.4</gml:upperCorner></gml:Envelope></fes:BBOX>
            """)
        let short = try parse("""
            <fes:Intersects><fes:ValueReference>geometry</fes:ValueReference><gml:Envelope srsName="EPSG:4326"><gml:lowerCorner>114.2 30.5</gml:lowerCorner><gml:upperCorner>114.4 30.7</gml:upperCorner></gml:Envelope></fes:Intersects>
            """)
        #expect(urn == short)
        guard case .spatial(.intersects, .polygon(let box))? = urn.expression else { Issue.record("not a spatial filter: \(String(describing: urn.expression))"); return }
        #expect(Envelope(of: box.exterior) == Envelope(minX: 114.2, minY: 30.5, maxX: 114.4, maxY: 30.7))
        // Without a srsName the request's CRS applies (the default: EPSG:4490 as a URN, latitude first).
        let within = try parse("""
            <fes:Within><fes:ValueReference>geometry</fes:ValueReference><gml:Polygon gml:id="p"><gml:exterior><gml:LinearRing>
            <gml:posList>30.5 114.2 30.5 114.4 30.7 114.4 30.5 114.2</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></fes:Within>
            """)
        #expect(within.expression == .spatial(.within, .polygon(Polygon(exterior: [Position(x: 114.2, y: 30.5), Position(x: 114.4, y: 30.5),
                                                                                  Position(x: 114.4, y: 30.7), Position(x: 114.2, y: 30.5)]))))
        // A metric CRS: the Gauss-Krüger zone's northing comes first in its URN.
        let metric = try parse("<fes:Intersects><fes:ValueReference>geometry</fes:ValueReference><gml:Point srsName=\"urn:ogc:def:crs:EPSG::4547\">"
                               + "<gml:pos>3385869.45 529299.86</gml:pos></gml:Point></fes:Intersects>")
        guard case .spatial(_, .point(let p))? = metric.expression, let at = p.position else { Issue.record("not a point"); return }
        #expect(abs(at.x - 114.3055) < 1e-6 && abs(at.y - 30.5928) < 1e-6)
    }

    @Test("ResourceId stands alone; operators CQL2 does not have are OperationNotSupported naming them; unknown properties are refused")
    func refusals() throws {
        #expect(try parse("<fes:ResourceId rid=\"shelters.s01\"/><fes:ResourceId rid=\"shelters.s02\"/>").resourceIds == ["shelters.s01", "shelters.s02"])
        let dwithin = #expect(throws: FESError.self) {
            try parse("<fes:DWithin><fes:ValueReference>geometry</fes:ValueReference><gml:Point><gml:pos>30 114</gml:pos></gml:Point><fes:Distance uom=\"m\">5</fes:Distance></fes:DWithin>")
        }
        #expect(dwithin?.kind == .unsupported && dwithin?.message.contains("DWithin") == true)
        #expect(WFSException.from(dwithin!).code == .operationNotSupported)
        let unknown = #expect(throws: CQLError.self) {
            try parse("<fes:PropertyIsEqualTo><fes:ValueReference>phone</fes:ValueReference><fes:Literal>1</fes:Literal></fes:PropertyIsEqualTo>")
        }
        #expect(unknown?.message.contains("unknown property 'phone'") == true)
        let typed = #expect(throws: FESError.self) {
            try parse("<fes:PropertyIsEqualTo><fes:ValueReference>capacity</fes:ValueReference><fes:Literal>many</fes:Literal></fes:PropertyIsEqualTo>")
        }
        #expect(typed?.kind == .malformed && typed?.message.contains("not a number") == true)
        #expect(throws: FESError.self) { try FES2.parse("<fes:Filter", queryables: nil) }
        #expect(throws: FESError.self) { try parse("<fes:ResourceId rid=\"a.1\"/><fes:PropertyIsNull><fes:ValueReference>name</fes:ValueReference></fes:PropertyIsNull>") }
    }

    @Test("GML CRS names: URNs and OGC URIs are strict (EPSG order), EPSG:n and the gml/srs form longitude first")
    func crsNames() throws {
        #expect(try GMLCRS(parsing: "urn:ogc:def:crs:EPSG::4326").swapsAxes)
        #expect(try GMLCRS(parsing: "http://www.opengis.net/def/crs/EPSG/0/4490").swapsAxes)
        #expect(try GMLCRS(parsing: "urn:x-ogc:def:crs:EPSG:4326").swapsAxes)
        #expect(try !GMLCRS(parsing: "EPSG:4326").swapsAxes)
        #expect(try !GMLCRS(parsing: "http://www.opengis.net/gml/srs/epsg.xml#4326").swapsAxes)
        #expect(try !GMLCRS(parsing: "urn:ogc:def:crs:EPSG::3857").swapsAxes)
        #expect(try GMLCRS(parsing: "urn:ogc:def:crs:EPSG::4547").swapsAxes)
        #expect(throws: GeometryError.self) { try GMLCRS(parsing: "EPSG:999999") }
    }

    func request(_ query: String) throws -> WFSGetFeatureRequest {
        try WFSGetFeatureRequest(WMSParameters(QueryParameters(query)))
    }

    @Test("GetFeature's KVP: names case-insensitive, prefixes dropped, lists per type, BBOX in its CRS's axis order")
    func parameters() throws {
        let r = try request("service=WFS&typeNames=citytwin:shelters,wells&count=5&StartIndex=10&srsName=EPSG:4326&resultType=hits"
                            + "&PROPERTYNAME=(name,geometry)(depth_m)&SORTBY=capacity%20DESC,name&outputFormat=application/json")
        #expect(r.typeNames == ["shelters", "wells"] && r.count == 5 && r.startIndex == 10 && r.hits && r.format == .json)
        #expect(r.propertyNames == [["name", "geometry"], ["depth_m"]])
        #expect(r.sortBy.map(\.property) == ["capacity", "name"] && r.sortBy.map(\.ascending) == [false, true])
        #expect(try request("TYPENAMES=a&OUTPUTFORMAT=application%2Fgml%2Bxml%3B+version%3D3.2").format == .gml)
        let urn = try request("TYPENAMES=a&BBOX=30.5,114.2,30.7,114.4,urn:ogc:def:crs:EPSG::4326").bbox
        let lonLat = try request("TYPENAMES=a&BBOX=114.2,30.5,114.4,30.7&SRSNAME=EPSG:4326").bbox
        #expect(urn != nil && urn == lonLat)
        #expect(try request("STOREDQUERY_ID=urn:ogc:def:query:OGC-WFS::GetFeatureById&ID=shelters.s01").resourceIds == ["shelters.s01"])
    }

    @Test("GetFeature's KVP refusals name their parameter and code")
    func parameterRefusals() throws {
        func refusal(_ query: String) -> (String, String?) {
            do { _ = try request(query); return ("none", nil) } catch {
                let e = WFSException.from(error)
                return (e.code.rawValue, e.locator)
            }
        }
        #expect(refusal("COUNT=3") == ("MissingParameterValue", "TYPENAMES"))
        #expect(refusal("TYPENAMES=a&COUNT=-1") == ("InvalidParameterValue", "COUNT"))
        #expect(refusal("TYPENAMES=a&RESULTTYPE=index") == ("InvalidParameterValue", "RESULTTYPE"))
        #expect(refusal("TYPENAMES=a&OUTPUTFORMAT=shape-zip") == ("InvalidParameterValue", "OUTPUTFORMAT"))
        #expect(refusal("TYPENAMES=a&SRSNAME=EPSG:999999") == ("InvalidParameterValue", "SRSNAME"))
        #expect(refusal("TYPENAMES=a&BBOX=1,2,3") == ("InvalidParameterValue", "BBOX"))
        #expect(refusal("TYPENAMES=a&BBOX=1,2,3,4&RESOURCEID=a.1") == ("InvalidParameterValue", "BBOX"))
        #expect(refusal("TYPENAMES=a,b&FILTER=(x)(y)(z)") == ("InvalidParameterValue", "FILTER"))
        #expect(refusal("TYPENAMES=a&SORTBY=name%20UP") == ("InvalidParameterValue", "SORTBY"))
        #expect(refusal("TYPENAMES=a&typenames=b") == ("InvalidParameterValue", "TYPENAMES"))
        #expect(refusal("STOREDQUERY_ID=urn:x:GetEverything") == ("InvalidParameterValue", "STOREDQUERY_ID"))
    }
}
