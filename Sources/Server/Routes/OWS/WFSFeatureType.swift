import Foundation
import GeoCore
import TwinStore

/// A layer as a WFS feature type for one caller: its qualified name and its properties in the
/// one order the schema (DescribeFeatureType) and the GML of GetFeature both follow.
struct WFSFeatureType: Sendable {
    static let prefix = "citytwin"
    static let namespace = "https://citytwin.dev/features"

    let info: LayerInfo
    /// The schema's properties, sorted by name, with their queryable types; an attribute masked
    /// for the caller is text (its masked value), whatever its clear type. Names that are not
    /// XML names are left out (GML could not carry them).
    let properties: [(name: String, type: Queryables.ValueType)]

    var id: String { info.definition.id }
    var typeName: String { "\(Self.prefix):\(id)" }

    init(_ info: LayerInfo, caller: Caller) {
        self.info = info
        var types = Queryables(layer: info.definition, geometryName: FES2.geometryName).properties
        types[FES2.geometryName] = nil
        for s in info.definition.sensitive where !AccessPolicy.seesClearValue(of: s, in: info.definition, caller) && types[s.attribute] != nil {
            types[s.attribute] = .string
        }
        properties = types.filter { Self.isXMLName($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// An NCName: a letter or `_` first, then letters, digits, `_`, `-`, `.`.
    static func isXMLName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }

    /// The XML Schema type of a property.
    static func xsdType(_ type: Queryables.ValueType) -> String {
        switch type {
        case .integer: "xsd:long"
        case .number: "xsd:double"
        case .boolean: "xsd:boolean"
        case .date: "xsd:date"
        case .dateTime: "xsd:dateTime"
        case .string, .any, .geometry: "xsd:string"
        }
    }

    /// The GML 3.2 property type of the layer's geometry.
    var geometryPropertyType: String {
        switch info.definition.acceptsAnyGeometry ? nil : info.definition.geometryType {
        case .point?: "gml:PointPropertyType"
        case .lineString?: "gml:LineStringPropertyType"
        case .polygon?: "gml:PolygonPropertyType"
        case .multiPoint?: "gml:MultiPointPropertyType"
        case .multiLineString?: "gml:MultiCurvePropertyType"
        case .multiPolygon?: "gml:MultiSurfacePropertyType"
        default: "gml:GeometryPropertyType"
        }
    }

    /// The `xsd:schema` of DescribeFeatureType for `types` (GML 3.2 application schema: each
    /// type extends `gml:AbstractFeatureType` with its geometry and properties, all optional).
    static func schema(_ types: [WFSFeatureType]) -> String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:gml="http://www.opengis.net/gml/3.2" \
        xmlns:\(prefix)="\(namespace)" targetNamespace="\(namespace)" elementFormDefault="qualified" version="1.0">
          <xsd:import namespace="http://www.opengis.net/gml/3.2" schemaLocation="http://schemas.opengis.net/gml/3.2.1/gml.xsd"/>

        """
        for t in types {
            out += """
              <xsd:complexType name="\(t.id)Type">
                <xsd:complexContent>
                  <xsd:extension base="gml:AbstractFeatureType">
                    <xsd:sequence>

            """
            if t.info.definition.hasGeometry {
                out += "          <xsd:element name=\"\(FES2.geometryName)\" type=\"\(t.geometryPropertyType)\" minOccurs=\"0\" maxOccurs=\"1\" nillable=\"true\"/>\n"
            }
            for (name, type) in t.properties {
                out += "          <xsd:element name=\"\(name)\" type=\"\(xsdType(type))\" minOccurs=\"0\" maxOccurs=\"1\" nillable=\"true\"/>\n"
            }
            out += """
                    </xsd:sequence>
                  </xsd:extension>
                </xsd:complexContent>
              </xsd:complexType>
              <xsd:element name="\(t.id)" type="\(prefix):\(t.id)Type" substitutionGroup="gml:AbstractFeature"/>

            """
        }
        return out + "</xsd:schema>\n"
    }
}
