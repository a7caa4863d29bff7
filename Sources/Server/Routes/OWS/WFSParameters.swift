import Foundation
import GeoCore
import TwinStore

/// The output formats of GetFeature: GML 3.2 (the default) and GeoJSON.
enum WFSOutputFormat: String, Sendable, CaseIterable {
    case gml = "application/gml+xml; version=3.2"
    case json = "application/json"

    /// The names clients send (GeoServer's aliases too), compared without spaces or `+`
    /// (a `+` left unencoded in a query string arrives as a space).
    init?(_ text: String) {
        let key = text.lowercased().filter { !$0.isWhitespace && $0 != "+" && $0 != "\"" }
        switch key {
        case "application/gmlxml;version=3.2", "application/gmlxml", "text/xml;subtype=gml/3.2", "gml32", "gml3.2": self = .gml
        case "application/json", "json", "application/geojson", "geojson": self = .json
        default: return nil
        }
    }

    /// The names advertised for `outputFormat`.
    static let advertised = ["application/gml+xml; version=3.2", "text/xml; subtype=gml/3.2", "application/json"]
}

/// The key-value parameters of a WFS 2.0 GetFeature (OGC 09-025r2 §7.6 and §11.2.4 Table 17),
/// read through `WMSParameters` (case-insensitive names, each given once): what is selected
/// (`TYPENAMES`, `RESOURCEID`, `BBOX`, `FILTER`, `STOREDQUERY_ID`), how much (`COUNT`,
/// `STARTINDEX`, `RESULTTYPE`) and how it is written (`OUTPUTFORMAT`, `SRSNAME`,
/// `PROPERTYNAME`, `SORTBY`). Values are checked here, each failure naming its parameter;
/// layers, properties and filters are checked against the layers when the request runs.
struct WFSGetFeatureRequest: Sendable {
    /// The layers (their ids, prefixes dropped), in order; empty only with `resourceIds`.
    var typeNames: [String]
    var count: Int?
    var startIndex: Int
    var hits: Bool
    var format: WFSOutputFormat
    var srs: GMLCRS
    /// `BBOX` as an EPSG:4490 lon/lat envelope.
    var bbox: Envelope?
    /// `RESOURCEID`: `layer.id` names.
    var resourceIds: [String]?
    /// `PROPERTYNAME`, one list per type name (or one for all); `nil`: every property.
    var propertyNames: [[String]]?
    var sortBy: [(property: String, ascending: Bool)]
    /// `FILTER`, one document per type name (or one for all).
    var filters: [String]?
    /// `STOREDQUERY_ID=urn:ogc:def:query:OGC-WFS::GetFeatureById`: answer the one feature `ID` names.
    var byID: String?

    static let namespacePrefix = "citytwin"
    static let getFeatureByID = "urn:ogc:def:query:OGC-WFS::GetFeatureById"

    init(_ p: WMSParameters) throws {
        format = try p["OUTPUTFORMAT"].map {
            guard let f = WFSOutputFormat($0) else {
                throw WFSException(.invalidParameterValue, "OUTPUTFORMAT '\($0)' is not served: \(WFSOutputFormat.advertised.joined(separator: ", "))",
                                   locator: "OUTPUTFORMAT")
            }
            return f
        } ?? .gml
        srs = try p["SRSNAME"].map { try WFSGetFeatureRequest.crs($0, locator: "SRSNAME") } ?? .storage
        count = try WFSGetFeatureRequest.integer(p, "COUNT") ?? WFSGetFeatureRequest.integer(p, "MAXFEATURES")
        startIndex = try WFSGetFeatureRequest.integer(p, "STARTINDEX") ?? 0
        switch (p["RESULTTYPE"] ?? "results").lowercased() {
        case "results": hits = false
        case "hits": hits = true
        case let other: throw WFSException(.invalidParameterValue, "RESULTTYPE '\(other)' is not results or hits", locator: "RESULTTYPE")
        }
        if let language = p["FILTER_LANGUAGE"], language != "urn:ogc:def:query:OGC-FES:Filter" {
            throw WFSException(.invalidParameterValue, "FILTER_LANGUAGE '\(language)' is not served: urn:ogc:def:query:OGC-FES:Filter", locator: "FILTER_LANGUAGE")
        }
        if let stored = p["STOREDQUERY_ID"] {
            guard stored == WFSGetFeatureRequest.getFeatureByID else {
                throw WFSException(.invalidParameterValue, "STOREDQUERY_ID '\(stored)' is not a stored query: \(WFSGetFeatureRequest.getFeatureByID)", locator: "STOREDQUERY_ID")
            }
            byID = try p.required("ID")
        }
        typeNames = try (p["TYPENAMES"] ?? p["TYPENAME"]).map { raw in
            try WFSGetFeatureRequest.list(raw).map { name in
                guard !name.isEmpty, !name.contains("(") else {
                    throw WFSException(.invalidParameterValue, "TYPENAMES '\(raw)': name each layer once (joins are not served)", locator: "TYPENAMES")
                }
                return XMLTreeName.local(name)
            }
        } ?? []
        resourceIds = p["RESOURCEID"].map(WFSGetFeatureRequest.list)
        let crs = srs
        bbox = try p["BBOX"].map { try WFSGetFeatureRequest.bbox($0, default: crs) }
        filters = p["FILTER"].map(WFSGetFeatureRequest.parenthesised)
        propertyNames = p["PROPERTYNAME"].map { WFSGetFeatureRequest.parenthesised($0).map { WFSGetFeatureRequest.list($0).map(XMLTreeName.local) } }
        sortBy = try p["SORTBY"].map(WFSGetFeatureRequest.sortKeys) ?? []
        if byID != nil { resourceIds = [byID ?? ""] }
        let selections = [filters != nil, resourceIds != nil && byID == nil, bbox != nil].filter { $0 }.count
        guard selections <= 1 else {
            throw WFSException(.invalidParameterValue, "FILTER, RESOURCEID and BBOX exclude each other: give one", locator: filters != nil ? "FILTER" : "BBOX")
        }
        if typeNames.isEmpty && resourceIds == nil {
            throw WFSException(.missingParameterValue, "parameter TYPENAMES is required (or RESOURCEID, or STOREDQUERY_ID)", locator: "TYPENAMES")
        }
        for (name, lists) in [("FILTER", filters?.count), ("PROPERTYNAME", propertyNames?.count)] {
            if let lists, lists != 1, lists != typeNames.count {
                throw WFSException(.invalidParameterValue, "\(name) has \(lists) lists for \(typeNames.count) type names: give one, or one per type name", locator: name)
            }
        }
    }

    /// A CRS name (`GMLCRS`: GeoServer's axis rules) PROJ relates to the storage CRS.
    static func crs(_ text: String, locator: String) throws -> GMLCRS {
        do { return try GMLCRS(parsing: text) } catch let e as GeometryError {
            throw WFSException(.invalidParameterValue, "\(locator) '\(text)': \(e.message)", locator: locator)
        }
    }

    static func integer(_ p: WMSParameters, _ name: String) throws -> Int? {
        guard let raw = p[name] else { return nil }
        guard let n = Int(raw.trimmingCharacters(in: .whitespaces)), n >= 0 else {
            throw WFSException(.invalidParameterValue, "\(name) '\(raw)' is not a non-negative integer", locator: name)
        }
        return n
    }

    static func list(_ raw: String) -> [String] {
        raw.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `(a)(b)` as `["a", "b"]`; text without the parentheses as itself.
    static func parenthesised(_ raw: String) -> [String] {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("(") else { return [text] }
        var out: [String] = [], depth = 0, current = ""
        for c in text {
            if c == "(" { depth += 1; if depth == 1 { current = ""; continue } }
            if c == ")" { depth -= 1; if depth == 0 { out.append(current); continue } }
            if depth > 0 { current.append(c) }
        }
        return out
    }

    /// `BBOX=a,b,c,d[,crs]`, in the axis order of its CRS (`SRSNAME`'s, else the default
    /// `urn:ogc:def:crs:EPSG::4490`, latitude first), as an EPSG:4490 lon/lat envelope.
    static func bbox(_ raw: String, default srs: GMLCRS) throws -> Envelope {
        let parts = list(raw)
        let numbers = parts.prefix(4).map { Double($0) }
        guard parts.count == 4 || parts.count == 5, numbers.count == 4, let a = numbers[0], let b = numbers[1], let c = numbers[2], let d = numbers[3],
              [a, b, c, d].allSatisfy(\.isFinite) else {
            throw WFSException(.invalidParameterValue, "BBOX '\(raw)' is not four numbers and an optional CRS", locator: "BBOX")
        }
        guard a <= c, b <= d else { throw WFSException(.invalidParameterValue, "BBOX '\(raw)': each minimum must not exceed its maximum", locator: "BBOX") }
        let crs = parts.count == 5 ? try WFSGetFeatureRequest.crs(parts[4], locator: "BBOX") : srs
        do {
            return try crs.envelopeToStorage(Position(x: a, y: b), Position(x: c, y: d))
        } catch let e as GeometryError {
            throw WFSException(.invalidParameterValue, "BBOX '\(raw)' in \(crs.name): \(e.message)", locator: "BBOX")
        }
    }

    /// `SORTBY=name ASC,height DESC` (`A`/`D` too, as GeoServer reads them).
    static func sortKeys(_ raw: String) throws -> [(property: String, ascending: Bool)] {
        try list(raw).map { item in
            let words = item.split(whereSeparator: \.isWhitespace).map(String.init)
            guard (1...2).contains(words.count) else { throw WFSException(.invalidParameterValue, "SORTBY '\(item)' is not 'property [ASC|DESC]'", locator: "SORTBY") }
            switch words.count == 2 ? words[1].uppercased() : "ASC" {
            case "ASC", "A": return (XMLTreeName.local(words[0]), true)
            case "DESC", "D": return (XMLTreeName.local(words[0]), false)
            default: throw WFSException(.invalidParameterValue, "SORTBY '\(item)': the order is ASC or DESC", locator: "SORTBY")
            }
        }
    }
}

/// Qualified names as WFS clients write them (`citytwin:buildings`): the local part.
enum XMLTreeName {
    static func local(_ name: String) -> String {
        name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }
}
