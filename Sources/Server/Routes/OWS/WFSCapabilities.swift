import Foundation
import GeoCore
import TwinStore

/// The WFS 2.0 capabilities document (OGC 09-025r2 §8, wfs.xsd): the service, its
/// operations with their parameters and the Basic WFS constraints, one feature type per layer
/// the caller may read (its default CRS EPSG:4490 as a URN, the other CRSs, its lon/lat box),
/// and the filter capabilities: exactly the operators `FES2` translates.
struct WFSCapabilities {
    let types: [WFSFeatureType]
    /// The CRSs besides the default one (`urn:ogc:def:crs:EPSG::…`).
    let otherCRS: [CoordinateReferenceSystem]
    let serviceURL: String

    /// Features one GetFeature answers without `COUNT` (and at most with it).
    static let countDefault = 1000
    static let versions = ["2.0.0", "2.0.2"]

    private func e(_ s: String) -> String { MarkupEscaping.escape(s) }

    var xml: String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <wfs:WFS_Capabilities version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:ows="http://www.opengis.net/ows/1.1" \
        xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:\(WFSFeatureType.prefix)="\(WFSFeatureType.namespace)" \
        xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">
          <ows:ServiceIdentification>
            <ows:Title>CityTwin 一张图</ows:Title>
            <ows:Abstract>CityTwin 城市数字孪生: the city's layers as features (what the caller may read), read-only.</ows:Abstract>
            <ows:ServiceType>WFS</ows:ServiceType>
            <ows:ServiceTypeVersion>2.0.0</ows:ServiceTypeVersion>
            <ows:ServiceTypeVersion>2.0.2</ows:ServiceTypeVersion>
            <ows:Fees>none</ows:Fees>
            <ows:AccessConstraints>none</ows:AccessConstraints>
          </ows:ServiceIdentification>
          <ows:ServiceProvider>
            <ows:ProviderName>CityTwin</ows:ProviderName>
            <ows:ServiceContact><ows:IndividualName/></ows:ServiceContact>
          </ows:ServiceProvider>
          <ows:OperationsMetadata>

        """
        out += operation("GetCapabilities", ["AcceptVersions": Self.versions, "AcceptFormats": ["text/xml"]])
        out += operation("DescribeFeatureType", ["outputFormat": ["application/gml+xml; version=3.2", "text/xml; subtype=gml/3.2"]])
        out += operation("ListStoredQueries", [:])
        out += operation("DescribeStoredQueries", [:])
        out += operation("GetPropertyValue", ["outputFormat": [WFSOutputFormat.gml.rawValue], "resolve": ["none"]])
        out += operation("GetFeature", ["outputFormat": WFSOutputFormat.advertised, "resultType": ["results", "hits"]])
        out += "    <ows:Parameter name=\"version\"><ows:AllowedValues>" + Self.versions.map { "<ows:Value>\($0)</ows:Value>" }.joined()
            + "</ows:AllowedValues></ows:Parameter>\n"
        let constraints: [(String, String)] = [
            ("ImplementsBasicWFS", "TRUE"), ("ImplementsTransactionalWFS", "FALSE"), ("ImplementsLockingWFS", "FALSE"),
            ("KVPEncoding", "TRUE"), ("XMLEncoding", "FALSE"), ("SOAPEncoding", "FALSE"), ("ImplementsInheritance", "FALSE"),
            ("ImplementsRemoteResolve", "FALSE"), ("ImplementsResultPaging", "TRUE"), ("ImplementsStandardJoins", "FALSE"),
            ("ImplementsSpatialJoins", "FALSE"), ("ImplementsTemporalJoins", "FALSE"), ("ImplementsFeatureVersioning", "FALSE"),
            ("ManageStoredQueries", "FALSE"), ("CountDefault", String(Self.countDefault)),
        ]
        out += constraints.map { "    <ows:Constraint name=\"\($0.0)\"><ows:NoValues/><ows:DefaultValue>\($0.1)</ows:DefaultValue></ows:Constraint>\n" }.joined()
        out += "    <ows:Constraint name=\"QueryExpressions\"><ows:AllowedValues><ows:Value>wfs:Query</ows:Value><ows:Value>wfs:StoredQuery</ows:Value></ows:AllowedValues></ows:Constraint>\n"
        out += "  </ows:OperationsMetadata>\n  <wfs:FeatureTypeList>\n"
        for t in types { out += featureType(t) }
        out += "  </wfs:FeatureTypeList>\n"
        return out + Self.filterCapabilities + "</wfs:WFS_Capabilities>\n"
    }

    private func operation(_ name: String, _ parameters: [String: [String]]) -> String {
        var out = "    <ows:Operation name=\"\(name)\"><ows:DCP><ows:HTTP><ows:Get xlink:href=\"\(e(serviceURL))?\"/></ows:HTTP></ows:DCP>\n"
        for (parameter, values) in parameters.sorted(by: { $0.key < $1.key }) {
            out += "      <ows:Parameter name=\"\(parameter)\"><ows:AllowedValues>" + values.map { "<ows:Value>\(e($0))</ows:Value>" }.joined()
                + "</ows:AllowedValues></ows:Parameter>\n"
        }
        return out + "    </ows:Operation>\n"
    }

    private func featureType(_ t: WFSFeatureType) -> String {
        let d = t.info.definition
        var out = """
            <wfs:FeatureType>
              <wfs:Name>\(t.typeName)</wfs:Name>
              <wfs:Title>\(e(d.title.zh))</wfs:Title>
              <wfs:Abstract>\(e(d.title.en))</wfs:Abstract>
              <ows:Keywords><ows:Keyword>\(e(d.category.rawValue))</ows:Keyword></ows:Keywords>
              <wfs:DefaultCRS>\(GMLCRS.storage.name)</wfs:DefaultCRS>

        """
        for crs in otherCRS { out += "      <wfs:OtherCRS>\(GMLCRS(epsg: crs).name)</wfs:OtherCRS>\n" }
        out += "      <wfs:OutputFormats>" + WFSOutputFormat.advertised.map { "<wfs:Format>\(e($0))</wfs:Format>" }.joined() + "</wfs:OutputFormats>\n"
        if let x = t.info.extent {
            out += "      <ows:WGS84BoundingBox><ows:LowerCorner>\(x.minX) \(x.minY)</ows:LowerCorner><ows:UpperCorner>\(x.maxX) \(x.maxY)</ows:UpperCorner></ows:WGS84BoundingBox>\n"
        }
        return out + "    </wfs:FeatureType>\n"
    }

    /// `fes:Filter_Capabilities`: the conformance of FES 2.0 this service meets and the operators of `FES2`.
    static var filterCapabilities: String {
        let conformance: [(String, String)] = [
            ("ImplementsQuery", "TRUE"), ("ImplementsAdHocQuery", "TRUE"), ("ImplementsFunctions", "FALSE"), ("ImplementsResourceId", "TRUE"),
            ("ImplementsMinStandardFilter", "TRUE"), ("ImplementsStandardFilter", "FALSE"), ("ImplementsMinSpatialFilter", "TRUE"),
            ("ImplementsSpatialFilter", "TRUE"), ("ImplementsMinTemporalFilter", "FALSE"), ("ImplementsTemporalFilter", "FALSE"),
            ("ImplementsVersionNav", "FALSE"), ("ImplementsSorting", "TRUE"), ("ImplementsExtendedOperators", "FALSE"),
            ("ImplementsMinimumXPath", "FALSE"), ("ImplementsSchemaElementFunc", "FALSE"),
        ]
        var out = "  <fes:Filter_Capabilities>\n    <fes:Conformance>\n"
        out += conformance.map { "      <fes:Constraint name=\"\($0.0)\"><ows:NoValues/><ows:DefaultValue>\($0.1)</ows:DefaultValue></fes:Constraint>\n" }.joined()
        out += "    </fes:Conformance>\n    <fes:Id_Capabilities><fes:ResourceIdentifier name=\"fes:ResourceId\"/></fes:Id_Capabilities>\n"
        out += "    <fes:Scalar_Capabilities>\n      <fes:LogicalOperators/>\n      <fes:ComparisonOperators>\n"
        for name in FES2.comparisonOperators.keys.sorted() + FES2.otherComparisonOperators {
            out += "        <fes:ComparisonOperator name=\"\(name)\"/>\n"
        }
        out += "      </fes:ComparisonOperators>\n    </fes:Scalar_Capabilities>\n    <fes:Spatial_Capabilities>\n      <fes:GeometryOperands>\n"
        for name in ["Envelope", "Point", "LineString", "Polygon", "MultiPoint", "MultiCurve", "MultiSurface"] {
            out += "        <fes:GeometryOperand name=\"gml:\(name)\"/>\n"
        }
        out += "      </fes:GeometryOperands>\n      <fes:SpatialOperators>\n"
        for name in FES2.spatialOperators.keys.sorted() { out += "        <fes:SpatialOperator name=\"\(name)\"/>\n" }
        return out + "      </fes:SpatialOperators>\n    </fes:Spatial_Capabilities>\n  </fes:Filter_Capabilities>\n"
    }
}
