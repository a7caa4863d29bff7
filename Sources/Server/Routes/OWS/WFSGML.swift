import Foundation
import GeoCore
import TwinStore

/// GML 3.2 as WFS 2.0's GetFeature writes it (`application/gml+xml; version=3.2`): a
/// `wfs:FeatureCollection` of `wfs:member`s, each a feature of its type's application schema
/// (`WFSFeatureType.schema`), its geometry first, then its properties in the schema's order;
/// a property without a value is left out (every element is optional). Geometries carry the
/// request's `srsName` and positions in its axis order (`GMLCRS`), 7 decimals for degrees, 3
/// for metres.
struct WFSGML {
    let srs: GMLCRS
    let decimals: Double

    init(srs: GMLCRS) {
        self.srs = srs
        self.decimals = ((try? srs.crs.metadata.isGeographic) ?? true) ? 1e7 : 1e3
    }

    static let namespaces = """
    xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" \
    xmlns:\(WFSFeatureType.prefix)="\(WFSFeatureType.namespace)" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    """

    /// The collection's start tag (`numberMatched` a count or `unknown`; `next` when more follow).
    static func collectionStart(numberMatched: Int?, numberReturned: Int, timeStamp: String, next: String?, schemaURL: String) -> String {
        let nextAttribute = next.map { " next=\"\(MarkupEscaping.escape($0))\"" } ?? ""
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <wfs:FeatureCollection \(namespaces) timeStamp="\(timeStamp)" numberMatched="\(numberMatched.map(String.init) ?? "unknown")" \
        numberReturned="\(numberReturned)"\(nextAttribute) xsi:schemaLocation="http://www.opengis.net/wfs/2.0 \
        http://schemas.opengis.net/wfs/2.0/wfs.xsd http://www.opengis.net/gml/3.2 http://schemas.opengis.net/gml/3.2.1/gml.xsd \
        \(WFSFeatureType.namespace) \(MarkupEscaping.escape(schemaURL))">

        """
    }

    static let collectionEnd = "</wfs:FeatureCollection>\n"

    /// One feature of `type` (already in the request CRS and axis order); `namespaces` on the
    /// element itself for a feature standing alone (GetFeatureById).
    func feature(_ f: Feature, of type: WFSFeatureType, selected: Set<String>?, geometry includeGeometry: Bool, standalone: Bool = false) -> String {
        let fid = "\(type.id).\(f.id?.description ?? "")"
        var out = "<\(type.typeName) gml:id=\"\(MarkupEscaping.escape(fid))\"\(standalone ? " " + Self.namespaces : "")>"
        if includeGeometry, let g = f.geometry, !g.isEmpty {
            out += "<\(WFSFeatureType.prefix):\(FES2.geometryName)>"
            geometry(g, id: fid + ".geom", srsName: true, into: &out)
            out += "</\(WFSFeatureType.prefix):\(FES2.geometryName)>"
        }
        for (name, _) in type.properties where selected?.contains(name) ?? true {
            guard let value = f.properties[name], !value.isNull else { continue }
            out += "<\(WFSFeatureType.prefix):\(name)>\(MarkupEscaping.escape(Self.text(value)))</\(WFSFeatureType.prefix):\(name)>"
        }
        return out + "</\(type.typeName)>"
    }

    /// A property value as XML text: numbers and booleans as XML Schema writes them, arrays
    /// and objects as their JSON text.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .integer(let i): String(i)
        case .number(let d): String(d)
        case .bool(let b): b ? "true" : "false"
        case .null: ""
        case .array, .object: String(decoding: GeoJSON.encodeBytes(value), as: UTF8.self)
        }
    }

    private func number(_ v: Double) -> String {
        let r = (v * decimals).rounded() / decimals
        return r == r.rounded() && abs(r) < 1e15 ? String(Int64(r)) : String(r)
    }

    private func positions(_ ps: [Position]) -> String {
        ps.map { p in p.z.map { "\(number(p.x)) \(number(p.y)) \(number($0))" } ?? "\(number(p.x)) \(number(p.y))" }.joined(separator: " ")
    }

    private func dimension(_ ps: [Position]) -> String { ps.first?.z != nil ? "3" : "2" }

    private func ring(_ tag: String, _ ps: [Position]) -> String {
        "<gml:\(tag)><gml:LinearRing><gml:posList srsDimension=\"\(dimension(ps))\">\(positions(ps))</gml:posList></gml:LinearRing></gml:\(tag)>"
    }

    /// A geometry with its `gml:id` (required by GML 3.2) and, at the top, its `srsName`.
    func geometry(_ g: Geometry, id: String, srsName: Bool, into out: inout String) {
        let attributes = " gml:id=\"\(MarkupEscaping.escape(id))\"" + (srsName ? " srsName=\"\(MarkupEscaping.escape(srs.name))\"" : "")
        switch g {
        case .point(let p):
            guard let position = p.position else { return }
            out += "<gml:Point\(attributes)><gml:pos srsDimension=\"\(dimension([position]))\">\(positions([position]))</gml:pos></gml:Point>"
        case .lineString(let l):
            out += "<gml:LineString\(attributes)><gml:posList srsDimension=\"\(dimension(l.positions))\">\(positions(l.positions))</gml:posList></gml:LineString>"
        case .polygon(let p):
            out += "<gml:Polygon\(attributes)>" + ring("exterior", p.exterior) + p.interiors.map { ring("interior", $0) }.joined() + "</gml:Polygon>"
        case .multiPoint(let m):
            members("MultiPoint", "pointMember", m.points.map { .point($0) }, attributes, id, &out)
        case .multiLineString(let m):
            members("MultiCurve", "curveMember", m.lineStrings.map { .lineString($0) }, attributes, id, &out)
        case .multiPolygon(let m):
            members("MultiSurface", "surfaceMember", m.polygons.map { .polygon($0) }, attributes, id, &out)
        case .geometryCollection(let c):
            members("MultiGeometry", "geometryMember", c.geometries, attributes, id, &out)
        }
    }

    private func members(_ tag: String, _ member: String, _ parts: [Geometry], _ attributes: String, _ id: String, _ out: inout String) {
        out += "<gml:\(tag)\(attributes)>"
        for (i, part) in parts.enumerated() {
            out += "<gml:\(member)>"
            geometry(part, id: "\(id).\(i + 1)", srsName: false, into: &out)
            out += "</gml:\(member)>"
        }
        out += "</gml:\(tag)>"
    }
}
