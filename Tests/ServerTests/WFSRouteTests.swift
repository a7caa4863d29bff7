import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
@testable import Server
import TestSupport
import Testing

/// WFS 2.0 at `/wfs` over the fixture's store (24 open shelters, the not-shared wells layer):
/// capabilities, schemas, GetFeature in GML 3.2 and GeoJSON with paging, CRSs, selections and
/// filters, the stored query, exceptions, the caller's access rules, and GDAL's GML driver
/// reading the GML back with its schema.
@Suite("WFS 2.0")
struct WFSRouteTests {
    static let getFeature = "/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature"

    func body(_ r: TestResponse) -> String { String(buffer: r.body) }

    /// The count in `attribute="…"` of a collection's start tag.
    func number(_ attribute: String, in text: String) -> String? {
        guard let range = text.range(of: "\(attribute)=\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    func members(_ text: String) -> Int { text.components(separatedBy: "<wfs:member>").count - 1 }

    func exception(_ r: TestResponse) -> (code: String?, locator: String?) {
        (number("exceptionCode", in: body(r)), number("locator", in: body(r)))
    }

    @Test("capabilities list the layers the caller may read, the Basic WFS constraints, the default and other CRSs and exactly the filter operators served")
    func capabilities() async throws {
        try await WritableAPI.run { api in
            let anonymous = body(try await api.client.get("/wfs?SERVICE=WFS&REQUEST=GetCapabilities&ACCEPTVERSIONS=2.0.0"))
            #expect(anonymous.contains("<wfs:Name>citytwin:shelters</wfs:Name>") && !anonymous.contains("citytwin:wells"))
            for part in ["<ows:Constraint name=\"ImplementsBasicWFS\"><ows:NoValues/><ows:DefaultValue>TRUE",
                         "<ows:Constraint name=\"ImplementsResultPaging\"><ows:NoValues/><ows:DefaultValue>TRUE",
                         "<ows:Constraint name=\"CountDefault\"><ows:NoValues/><ows:DefaultValue>\(WFSCapabilities.countDefault)<",
                         "<wfs:DefaultCRS>urn:ogc:def:crs:EPSG::4490</wfs:DefaultCRS>", "<wfs:OtherCRS>urn:ogc:def:crs:EPSG::4326</wfs:OtherCRS>",
                         "<wfs:OtherCRS>urn:ogc:def:crs:EPSG::3857</wfs:OtherCRS>", "<ows:WGS84BoundingBox>",
                         "<fes:SpatialOperator name=\"BBOX\"/>", "<fes:ComparisonOperator name=\"PropertyIsLike\"/>"] {
                #expect(anonymous.contains(part), "capabilities lack \(part)")
            }
            #expect(!anonymous.contains("DWithin") && !anonymous.contains("PropertyIsNil"))
            let owner = body(try await api.client.get("/wfs?SERVICE=WFS&REQUEST=GetCapabilities", headers: WritableAPI.bearer(api.token("水务局"))))
            #expect(owner.contains("<wfs:Name>citytwin:wells</wfs:Name>"))
            let refused = try await api.client.get("/wfs?SERVICE=WFS&REQUEST=GetCapabilities&ACCEPTVERSIONS=1.1.0")
            #expect(refused.status == .badRequest && exception(refused).code == "VersionNegotiationFailed")
        }
    }

    @Test("DescribeFeatureType is a GML 3.2 application schema; a masked attribute is text for the caller who sees it masked")
    func describe() async throws {
        try await WritableAPI.run { api in
            let xsd = body(try await api.client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType&TYPENAMES=citytwin:shelters"))
            for part in ["<xsd:extension base=\"gml:AbstractFeatureType\">", "name=\"geometry\" type=\"gml:PointPropertyType\"",
                         "name=\"capacity\" type=\"xsd:long\"", "name=\"checked_at\" type=\"xsd:dateTime\"", "name=\"phone\" type=\"xsd:string\"",
                         "<xsd:element name=\"shelters\" type=\"citytwin:sheltersType\" substitutionGroup=\"gml:AbstractFeature\"/>"] {
                #expect(xsd.contains(part), "the schema lacks \(part)")
            }
            let hidden = try await api.client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType&TYPENAMES=wells")
            #expect(hidden.status.code >= 400 && exception(hidden) == ("InvalidParameterValue", "TYPENAMES"))
        }
    }

    @Test("GetFeature in GML: every shelter, masked for the public, in the SRSNAME's axis order (URN latitude first, EPSG:4326 longitude first, the metric zone northing first)")
    func features() async throws {
        try await WritableAPI.run { api in
            let all = try await api.client.get(Self.getFeature + "&TYPENAMES=citytwin:shelters")
            #expect(all.headers[.contentType] == "application/gml+xml; version=3.2")
            let text = body(all)
            #expect(number("numberMatched", in: text) == "24" && number("numberReturned", in: text) == "24" && members(text) == 24)
            #expect(text.contains("<citytwin:shelters gml:id=\"shelters.hankou\"><citytwin:geometry><gml:Point gml:id=\"shelters.hankou.geom\" srsName=\"urn:ogc:def:crs:EPSG::4490\"><gml:pos srsDimension=\"2\">30.5928 114.3055</gml:pos>"))
            #expect(!text.contains("13812345678") && !text.contains("张三") && text.contains("&lt;script&gt;"))
            let short = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&RESOURCEID=shelters.hankou&SRSNAME=EPSG:4326"))
            #expect(short.contains("srsName=\"EPSG:4326\"><gml:pos srsDimension=\"2\">114.3055 30.5928</gml:pos>"))
            let metric = body(try await api.client.get(Self.getFeature + "&RESOURCEID=shelters.hankou&SRSNAME=urn:ogc:def:crs:EPSG::4547"))
            #expect(metric.contains("<gml:pos srsDimension=\"2\">3385869.4"), "\(metric)")
            let owner = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&RESOURCEID=shelters.s01", headers: WritableAPI.bearer(api.token("应急管理局"))))
            #expect(owner.contains("<citytwin:phone>13812345678</citytwin:phone>"))
        }
    }

    @Test("COUNT and STARTINDEX page with numberMatched and next; RESULTTYPE=hits counts; several TYPENAMES page as one sequence")
    func paging() async throws {
        try await WritableAPI.run { api in
            let first = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&COUNT=10"))
            #expect(number("numberMatched", in: first) == "24" && number("numberReturned", in: first) == "10")
            let next = try #require(number("next", in: first)?.replacingOccurrences(of: "&amp;", with: "&"))
            #expect(next.hasPrefix("http://test.local/wfs?") && next.contains("STARTINDEX=10") && next.contains("COUNT=10"))
            let last = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&COUNT=10&STARTINDEX=20"))
            #expect(number("numberReturned", in: last) == "4" && number("next", in: last) == nil)
            let hits = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&RESULTTYPE=hits"))
            #expect(number("numberMatched", in: hits) == "24" && number("numberReturned", in: hits) == "0" && members(hits) == 0)
            let both = try await api.client.get(Self.getFeature + "&TYPENAMES=shelters,wells&COUNT=30&STARTINDEX=20", headers: WritableAPI.bearer(api.token("水务局")))
            #expect(number("numberMatched", in: body(both)) == "25" && members(body(both)) == 5 && body(both).contains("gml:id=\"wells.w1\""))
        }
    }

    @Test("BBOX, RESOURCEID, PROPERTYNAME, SORTBY and a FES FILTER select and shape the features; GeoJSON writes the same")
    func selections() async throws {
        try await WritableAPI.run { api in
            let box = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&BBOX=30.5925,114.3050,30.5930,114.3060"))
            #expect(members(box) == 1 && box.contains("shelters.hankou"))
            let ids = body(try await api.client.get(Self.getFeature + "&RESOURCEID=shelters.s01,shelters.s02,shelters.nothing"))
            #expect(members(ids) == 2)
            let named = body(try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&PROPERTYNAME=name&SORTBY=capacity%20DESC&COUNT=2"))
            #expect(named.contains("gml:id=\"shelters.hankou\"><citytwin:name>汉口</citytwin:name></citytwin:shelters>"))
            #expect(!named.contains("<citytwin:capacity>") && !named.contains("<gml:Point"))
            let filter = """
                <fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>capacity</fes:ValueReference>\
                <fes:Literal>200</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo></fes:Filter>
                """
            let query = Self.getFeature + "&TYPENAMES=shelters&RESULTTYPE=hits&FILTER=" + QueryParameters.escape(filter)
            #expect(number("numberMatched", in: body(try await api.client.get(query))) == "14")
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(buffer: try await api.client.get(
                Self.getFeature + "&TYPENAMES=shelters&OUTPUTFORMAT=application/json&RESOURCEID=shelters.hankou").body))
            #expect(json["numberMatched"] == 1 && json["features"]?.arrayValue?.first?["id"] == "shelters.hankou")
            #expect(json["features"]?.arrayValue?.first?["geometry"]?["coordinates"] == [114.3055, 30.5928])
        }
    }

    @Test("GetFeatureById answers the feature alone; the stored queries are listed and described; an unknown id is NotFound")
    func storedQuery() async throws {
        try await WritableAPI.run { api in
            let byID = "/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&STOREDQUERY_ID=urn:ogc:def:query:OGC-WFS::GetFeatureById&ID="
            let one = body(try await api.client.get(byID + "shelters.s03"))
            #expect(one.contains("<citytwin:shelters gml:id=\"shelters.s03\" xmlns:wfs=") && !one.contains("wfs:FeatureCollection"))
            let missing = try await api.client.get(byID + "shelters.nothing")
            #expect(missing.status == .notFound && exception(missing).code == "NotFound")
            let hidden = try await api.client.get(byID + "wells.w1")
            #expect(hidden.status.code >= 400 && exception(hidden).code == "InvalidParameterValue")
            let list = body(try await api.client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=ListStoredQueries"))
            #expect(list.contains("<wfs:StoredQuery id=\"urn:ogc:def:query:OGC-WFS::GetFeatureById\">") && list.contains("citytwin:shelters"))
            let described = body(try await api.client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeStoredQueries"))
            #expect(described.contains("<wfs:Parameter name=\"ID\" type=\"xsd:string\"/>"))
        }
    }

    @Test("GetPropertyValue answers one property of the selected features as a ValueCollection, paged like GetFeature")
    func propertyValue() async throws {
        try await WritableAPI.run { api in
            let query = "/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=GetPropertyValue&TYPENAMES=shelters&SORTBY=capacity%20DESC&COUNT=2"
            let names = body(try await api.client.get(query + "&VALUEREFERENCE=citytwin:name"))
            #expect(names.contains("<wfs:ValueCollection") && number("numberMatched", in: names) == "24" && number("numberReturned", in: names) == "2")
            #expect(names.contains("<wfs:member><citytwin:name>汉口</citytwin:name></wfs:member>") && number("next", in: names)?.contains("STARTINDEX=2") == true)
            let geometry = body(try await api.client.get(query + "&VALUEREFERENCE=geometry&SRSNAME=EPSG:4326"))
            #expect(geometry.contains("<wfs:member><citytwin:geometry><gml:Point gml:id=\"shelters.hankou.geom\" srsName=\"EPSG:4326\"><gml:pos srsDimension=\"2\">114.3055 30.5928</gml:pos>"))
            let masked = body(try await api.client.get(query + "&VALUEREFERENCE=phone&RESOURCEID=shelters.s01"))
            #expect(!masked.contains("13812345678"))
            let unknown = try await api.client.get(query + "&VALUEREFERENCE=colour")
            #expect(unknown.status == .badRequest && exception(unknown) == ("InvalidParameterValue", "VALUEREFERENCE"))
            let missing = try await api.client.get(query)
            #expect(exception(missing) == ("MissingParameterValue", "VALUEREFERENCE"))
        }
    }

    @Test("exceptions are OWS ExceptionReports with the standard's code, the locator and its status")
    func exceptions() async throws {
        try await WritableAPI.run { api in
            let fes = "<fes:Filter xmlns:fes=\"http://www.opengis.net/fes/2.0\">"
            let masked = fes + "<fes:PropertyIsEqualTo><fes:ValueReference>phone</fes:ValueReference><fes:Literal>13812345678</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>"
            var cases: [(String, HTTPResponse.Status, String, String?)] = []
            cases.append(("/wfs?SERVICE=WFS", .badRequest, "MissingParameterValue", "REQUEST"))
            cases.append(("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=Transaction", .badRequest, "OperationNotSupported", "REQUEST"))
            cases.append(("/wfs?SERVICE=WMS&REQUEST=GetCapabilities", .badRequest, "InvalidParameterValue", "SERVICE"))
            cases.append(("/wfs?SERVICE=WFS&VERSION=1.1.0&REQUEST=GetFeature&TYPENAMES=shelters", .badRequest, "InvalidParameterValue", "VERSION"))
            cases.append((Self.getFeature + "&TYPENAMES=nowhere", .badRequest, "InvalidParameterValue", "TYPENAMES"))
            cases.append((Self.getFeature + "&TYPENAMES=shelters&PROPERTYNAME=colour", .badRequest, "InvalidParameterValue", "PROPERTYNAME"))
            cases.append((Self.getFeature + "&TYPENAMES=shelters&SORTBY=colour", .badRequest, "InvalidParameterValue", "SORTBY"))
            cases.append((Self.getFeature + "&TYPENAMES=shelters&FILTER=" + QueryParameters.escape(fes + "<fes:After/></fes:Filter>"),
                          .badRequest, "OperationNotSupported", "FILTER"))
            // A masked attribute is not a queryable for the public: a filter cannot probe it.
            cases.append((Self.getFeature + "&TYPENAMES=shelters&FILTER=" + QueryParameters.escape(masked), .badRequest, "InvalidParameterValue", "FILTER"))
            cases.append((Self.getFeature + "&TYPENAMES=shelters&FILTER=%3Cfes:Filter", .badRequest, "InvalidParameterValue", "FILTER"))
            for (uri, status, code, locator) in cases {
                let r = try await api.client.get(uri)
                #expect(r.status == status, "\(uri)")
                #expect(exception(r) == (code, locator), "\(uri): \(body(r))")
                #expect(body(r).contains("<ows:ExceptionReport") && r.headers[.contentType]?.hasPrefix("application/xml") == true)
            }
            let wells = try await api.client.get(Self.getFeature + "&TYPENAMES=wells")
            // A not-shared layer looks missing to the public, as through every other output.
            #expect(wells.status == .badRequest && exception(wells) == ("InvalidParameterValue", "TYPENAMES"), "\(wells.status) \(body(wells))")
            #expect(body(wells).contains("feature type &#39;wells&#39; is unknown: no collection"))
        }
    }

    @Test("GDAL's GML driver reads the GetFeature GML with its DescribeFeatureType schema: 24 features, typed fields, positions in lon/lat")
    func gdalReadsTheGML() async throws {
        try await WritableAPI.run { api in
            let gml = try await api.client.get(Self.getFeature + "&TYPENAMES=shelters&SORTBY=capacity")
            let xsd = try await api.client.get("/wfs?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType&TYPENAMES=shelters")
            try await withTemporaryDirectory("citytwin-wfs") { dir in
                try Data(buffer: gml.body).write(to: dir.appending("shelters.gml"))
                try Data(buffer: xsd.body).write(to: dir.appending("shelters.xsd"))
                let out = dir.appending("shelters.geojson").path
                let run = try await CommandProcess.run("/usr/bin/ogr2ogr", ["-f", "GeoJSON", out, dir.appending("shelters.gml").path],
                                                       environment: ["GML_DOWNLOAD_SCHEMA": "NO"], within: 120)
                #expect(run.exitStatus == 0, "\(run.output)")
                let json = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: out)))
                let features = json["features"]?.arrayValue ?? []
                #expect(features.count == 24)
                let hankou = features.first { $0["properties"]?["gml_id"] == "shelters.hankou" }
                #expect(hankou?["properties"]?["capacity"] == 500 && hankou?["properties"]?["name"] == "汉口")
                let coordinates = hankou?["geometry"]?["coordinates"]?.arrayValue?.compactMap(\.doubleValue) ?? []
                #expect(coordinates.count == 2 && abs(coordinates[0] - 114.3055) < 1e-9 && abs(coordinates[1] - 30.5928) < 1e-9, "\(coordinates)")
                #expect(features.first?["properties"]?["capacity"] == 100)
            }
        }
    }
}
