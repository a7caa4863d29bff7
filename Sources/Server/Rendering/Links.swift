import GeoCore

extension CityTwinServer {
    /// An OGC link object.
    func link(_ path: String, rel: String, type: String, title: String? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["href": .string(path.hasPrefix("http") ? path : url(path)), "rel": .string(rel),
                                      "type": .string(type)]
        if let title { o["title"] = .string(title) }
        return .object(o)
    }

    /// `self` in the response's format and one `alternate` in the other, keeping the other
    /// query parameters of the request.
    func selfAndAlternate(_ path: String, query: QueryParameters, format: OutputFormat, jsonType: String) -> [JSONValue] {
        let json = path + query.encoded(replacing: ["f": "json"])
        let html = path + query.encoded(replacing: ["f": "html"])
        let jsonLink = { (rel: String) in self.link(json, rel: rel, type: jsonType, title: "This document as JSON") }
        let htmlLink = { (rel: String) in self.link(html, rel: rel, type: "text/html", title: "This document as HTML") }
        return format == .json ? [jsonLink("self"), htmlLink("alternate")] : [htmlLink("self"), jsonLink("alternate")]
    }

    /// A JSON document in the negotiated format: as is, or as an HTML page (`english` its
    /// title on English pages) with `extraHTML` first, then its links and the rest of its
    /// members in tables.
    func render(_ document: JSONValue, title: String, english: String? = nil, format: OutputFormat,
                mediaType: String = MediaTypeName.json, extraHTML: String = "") -> Representation {
        switch format {
        case .json:
            return .json(document, mediaType: mediaType)
        case .html:
            var page = HTMLPage(title: title, english: english)
            if let d = document["description"]?.stringValue { page.paragraph(d, class: "lead") }
            page.raw(extraHTML)
            page.links(document["links"]?.arrayValue ?? [])
            var rest = document.objectValue ?? [:]
            rest["links"] = nil
            rest["description"] = nil
            rest["title"] = nil
            if !rest.isEmpty { page.value(.object(rest)) }
            return .html(page.text)
        }
    }
}
