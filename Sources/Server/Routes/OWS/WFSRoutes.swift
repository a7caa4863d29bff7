import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// WFS 2.0 at `/wfs` (issue 55 §4) for read-only clients (GDAL's WFS driver, OWSLib, QGIS,
/// ArcGIS, SuperMap), to OGC 09-025r2's Simple and Basic conformance in the KVP encoding:
/// GetCapabilities, DescribeFeatureType (GML 3.2 application schemas), GetPropertyValue, GetFeature (GML 3.2 or
/// GeoJSON; TYPENAMES, COUNT/STARTINDEX paging, RESULTTYPE=hits, SRSNAME, BBOX, RESOURCEID,
/// PROPERTYNAME, SORTBY, FES 2.0 FILTER) and the stored query GetFeatureById with
/// ListStoredQueries/DescribeStoredQueries. A caller sees exactly the layers and attribute
/// values it may read, as through every other output: a layer hidden from it is absent from the
/// capabilities and refused by name. Every failure is an OWS `ExceptionReport` (`WFSException`).
struct WFSRoutes: OperationCollection {
    let store: any FeatureStore
    let layers: LayerDirectory
    /// The layers with geometry the caller may read, by id.
    let visibleLayers: @Sendable (Caller) async throws -> [LayerInfo]
    /// The city's metric CRS (an `OtherCRS` of every feature type).
    let metricCRS: @Sendable () async throws -> CoordinateReferenceSystem?
    /// Brings live views (parking) up to date before `layers` are read.
    let catchUp: @Sendable ([String]) async -> Void
    /// `…/wfs`.
    let serviceURL: String
    /// Layers with more features report `numberMatched="unknown"` unless counted for RESULTTYPE=hits.
    let exactCountLimit: Int
    /// Where recent pages ended (`STARTINDEX` continues from there).
    let cursors = WFSPageCursors()

    static let schemas: [String: JSONValue] = [
        "WFSCapabilities": ["type": "string", "description": "WFS_Capabilities 2.0.0 XML"],
        "WFSFeatureCollection": ["type": "string", "description": "wfs:FeatureCollection (GML 3.2)"],
    ]

    var operations: [APIOperation] {
        [APIOperation(
            id: "getWFS", method: .get, path: "/wfs",
            summary: "OGC WFS 2.0 (KVP): REQUEST=GetCapabilities, DescribeFeatureType, GetPropertyValue (VALUEREFERENCE and the GetFeature parameters), GetFeature (GML 3.2 or GeoJSON; TYPENAMES, COUNT, STARTINDEX, RESULTTYPE, SRSNAME, BBOX, RESOURCEID, PROPERTYNAME, SORTBY, FES 2.0 FILTER, STOREDQUERY_ID=urn:ogc:def:query:OGC-WFS::GetFeatureById), ListStoredQueries, DescribeStoredQueries; names case-insensitive.",
            tag: "Data",
            parameters: [APIParameter("REQUEST", "GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue, ListStoredQueries or DescribeStoredQueries.", required: true),
                         APIParameter("SERVICE", "WFS."), APIParameter("VERSION", "2.0.0 or 2.0.2.")],
            responses: [.ok("The capabilities, schema, features or stored queries.",
                            [("application/xml", "WFSCapabilities"), ("application/gml+xml; version=3.2", "WFSFeatureCollection"),
                             (MediaTypeName.json, "FeatureCollection")]),
                        APIResponse(status: 400, description: "An OWS ExceptionReport naming the code and the parameter at fault.",
                                    content: [("application/xml", "ServiceExceptionReport")])],
            acceptsQueryables: true  // WFS names are case-insensitive and many: WMSParameters reads them
        ) { [self] _, context, query in
            do {
                let p = try WMSParameters(query)
                if let service = p["SERVICE"], service.uppercased() != "WFS" {
                    throw WFSException(.invalidParameterValue, "SERVICE '\(service)' is not WFS", locator: "SERVICE")
                }
                let request = try p.required("REQUEST").lowercased()
                if request != "getcapabilities", let version = p["VERSION"], !WFSCapabilities.versions.contains(version) {
                    throw WFSException(.invalidParameterValue, "VERSION '\(version)' is not served: \(WFSCapabilities.versions.joined(separator: ", "))", locator: "VERSION")
                }
                switch request {
                case "getcapabilities": return try await capabilities(p, context.caller)
                case "describefeaturetype": return try await describeFeatureType(p, context.caller)
                case "getfeature": return try await getFeature(p, query, context.caller)
                case "getpropertyvalue": return try await getPropertyValue(p, query, context.caller)
                case "liststoredqueries", "describestoredqueries": return try await storedQueries(p, list: request == "liststoredqueries", context.caller)
                case let other:
                    throw WFSException(.operationNotSupported,
                                       "REQUEST '\(other)' is not served: GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue, ListStoredQueries, DescribeStoredQueries (read-only: no Transaction or locking)",
                                       locator: "REQUEST")
                }
            } catch {
                let exception = WFSException.from(error)
                if exception.status.code >= 500 && exception.code == .noApplicableCode { context.logger.error("wfs: \(error)") }
                return exception.representation
            }
        }]
    }

    static func xml(_ text: String, mediaType: String = "application/xml; charset=utf-8", maxAge: Int? = nil) -> Representation {
        var r = Representation(mediaType: mediaType, body: Array(text.utf8))
        r.headers[.cacheControl] = maxAge.map { "public, max-age=\($0)" } ?? "no-cache"
        return r
    }

    /// The feature types the caller may read (layers with geometry and an XML name).
    func visibleTypes(_ caller: Caller) async throws -> [WFSFeatureType] {
        try await visibleLayers(caller).filter { WFSFeatureType.isXMLName($0.definition.id) }.map { WFSFeatureType($0, caller: caller) }
    }

    /// The feature type a request names, if the caller may read it; else `InvalidParameterValue`
    /// (with 401/403 when signing in or another department would help), as a missing one.
    func featureType(_ name: String, _ caller: Caller, locator: String = "TYPENAMES") async throws -> WFSFeatureType {
        let info: LayerInfo
        do { info = try await layers.layer(name, for: caller) } catch {
            let e = WFSException.from(error)
            throw WFSException(.invalidParameterValue, "feature type '\(name)' is unknown: \(e.message)", locator: locator, status: e.status)
        }
        guard info.definition.hasGeometry, WFSFeatureType.isXMLName(name) else {
            throw WFSException(.invalidParameterValue, "feature type '\(name)' is unknown: the layer has no geometry", locator: locator)
        }
        return WFSFeatureType(info, caller: caller)
    }

    private func capabilities(_ p: WMSParameters, _ caller: Caller) async throws -> Representation {
        if let accepted = p["ACCEPTVERSIONS"] {
            let versions = WFSGetFeatureRequest.list(accepted)
            guard versions.contains(where: WFSCapabilities.versions.contains) else {
                throw WFSException(.versionNegotiationFailed, "ACCEPTVERSIONS '\(accepted)': this service speaks \(WFSCapabilities.versions.joined(separator: ", "))",
                                   locator: "ACCEPTVERSIONS")
            }
        }
        let metric = try await metricCRS()
        let other = CRSParameter.advertised(cityMetric: metric).filter { $0 != .crs84 && $0 != .cgcs2000 }
        let document = WFSCapabilities(types: try await visibleTypes(caller), otherCRS: other, serviceURL: serviceURL)
        return Self.xml(document.xml, maxAge: 60)
    }

    private func describeFeatureType(_ p: WMSParameters, _ caller: Caller) async throws -> Representation {
        if let format = p["OUTPUTFORMAT"], WFSOutputFormat(format) != .gml {
            throw WFSException(.invalidParameterValue, "OUTPUTFORMAT '\(format)' is not served: application/gml+xml; version=3.2", locator: "OUTPUTFORMAT")
        }
        var types: [WFSFeatureType] = []
        if let names = p["TYPENAMES"] ?? p["TYPENAME"], !names.isEmpty {
            for name in WFSGetFeatureRequest.list(names) { types.append(try await featureType(XMLTreeName.local(name), caller)) }
        } else {
            types = try await visibleTypes(caller)
        }
        return Self.xml(WFSFeatureType.schema(types), mediaType: "text/xml; subtype=gml/3.2; charset=utf-8", maxAge: 60)
    }

    private func storedQueries(_ p: WMSParameters, list: Bool, _ caller: Caller) async throws -> Representation {
        let id = WFSGetFeatureRequest.getFeatureByID
        if !list, let asked = p["STOREDQUERY_ID"], !WFSGetFeatureRequest.list(asked).allSatisfy({ $0 == id }) {
            throw WFSException(.invalidParameterValue, "STOREDQUERY_ID '\(asked)': the one stored query is \(id)", locator: "STOREDQUERY_ID")
        }
        let names = try await visibleTypes(caller).map(\.typeName)
        let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <wfs:\(list ? "ListStoredQueriesResponse" : "DescribeStoredQueriesResponse") xmlns:wfs="http://www.opengis.net/wfs/2.0" \
        xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:\(WFSFeatureType.prefix)="\(WFSFeatureType.namespace)">

        """
        let body = list
            ? "  <wfs:StoredQuery id=\"\(id)\">\n    <wfs:Title>Get feature by identifier</wfs:Title>\n"
                + names.map { "    <wfs:ReturnFeatureType>\($0)</wfs:ReturnFeatureType>\n" }.joined() + "  </wfs:StoredQuery>\n"
            : """
              <wfs:StoredQueryDescription id="\(id)">
                <wfs:Title>Get feature by identifier</wfs:Title>
                <wfs:Abstract>The feature whose gml:id (layer.id) is ID.</wfs:Abstract>
                <wfs:Parameter name="ID" type="xsd:string"/>
                <wfs:QueryExpressionText isPrivate="true" language="urn:ogc:def:queryLanguage:OGC-WFS::WFS_QueryExpression" \
            returnFeatureTypes="\(names.joined(separator: " "))"/>
              </wfs:StoredQueryDescription>

            """
        return Self.xml(head + body + "</wfs:\(list ? "ListStoredQueriesResponse" : "DescribeStoredQueriesResponse")>\n", maxAge: 60)
    }
}
