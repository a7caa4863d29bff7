import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// GetPropertyValue (OGC 09-025r2 §10, Basic WFS): one property (`VALUEREFERENCE`, or
/// `geometry`) of the features a GetFeature with the same parameters selects, as a
/// `wfs:ValueCollection` whose members are the property elements as GetFeature writes them;
/// a feature without a value adds no member.
extension WFSRoutes {
    func getPropertyValue(_ p: WMSParameters, _ raw: QueryParameters, _ caller: Caller) async throws -> Representation {
        let reference = XMLTreeName.local(try p.required("VALUEREFERENCE").split(separator: "/").last.map(String.init) ?? "")
        let r = try WFSGetFeatureRequest(p)
        guard r.byID == nil else {
            throw WFSException(.invalidParameterValue, "GetPropertyValue takes ad hoc queries, not STOREDQUERY_ID", locator: "STOREDQUERY_ID")
        }
        let selections = try await self.selections(r, caller)
        for s in selections where reference != FES2.geometryName && !s.type.properties.contains(where: { $0.name == reference }) {
            throw WFSException(.invalidParameterValue, "VALUEREFERENCE: '\(reference)' is not a property of \(s.type.typeName)", locator: "VALUEREFERENCE")
        }
        let result = try await page(r, selections, raw, caller)
        let projected = try project(result.found.map(\.1), r.srs, eastFirst: false)
        let writer = WFSGML(srs: r.srs)
        var members = ""
        var returned = 0
        for (i, (type, _)) in result.found.enumerated() {
            let element = writer.feature(projected[i], of: type, selected: [reference], geometry: reference == FES2.geometryName)
            // The feature's element around the one property: keep what is inside it.
            guard let open = element.firstIndex(of: ">"), let close = element.range(of: "</\(type.typeName)>", options: .backwards) else { continue }
            let inner = element[element.index(after: open)..<close.lowerBound]
            guard !inner.isEmpty else { continue }
            members += "  <wfs:member>\(inner)</wfs:member>\n"
            returned += 1
        }
        let nextAttribute = result.next.map { " next=\"\(MarkupEscaping.escape($0))\"" } ?? ""
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <wfs:ValueCollection \(WFSGML.namespaces) timeStamp="\(RFC3339.formatSeconds(TwinClock.current.now))" \
        numberMatched="\(result.matched.map(String.init) ?? "unknown")" numberReturned="\(r.hits ? 0 : returned)"\(nextAttribute) \
        xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">

        """ + members + "</wfs:ValueCollection>\n"
        return Self.xml(text, mediaType: WFSOutputFormat.gml.rawValue)
    }
}
