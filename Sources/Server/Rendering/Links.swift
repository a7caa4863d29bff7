import Foundation
import GeoCore
import HTTPTypes

/// The server's own URLs as the documents it writes give them: absolute, under the base URL
/// (`ServerOptions.baseURL`). Every route collection that writes links holds one.
struct SiteLinks: Sendable {
    /// The base URL, without a trailing slash (`http://127.0.0.1:8080`).
    let baseURL: String

    /// An absolute URL for `path` (which starts with `/`).
    func url(_ path: String) -> String { baseURL + path }

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
}

/// A JSON document in the negotiated format: as is, or as an HTML page (`english` its title on
/// English pages) with `extraHTML` first, then its links and the rest of its members in tables.
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

/// A path parameter, percent-decoded.
func pathParameter(_ context: CityTwinRequestContext, _ name: String) throws -> String {
    guard let raw = context.parameters.get(name) else { throw Problem(.notFound, "missing path segment {\(name)}") }
    // Foundation's decoding costs more than the rest of a cached tile request; most
    // segments have nothing to decode.
    guard raw.utf8.contains(UInt8(ascii: "%")) else { return raw }
    return raw.removingPercentEncoding ?? raw
}
extension Representation {
    /// This representation sending `links` (the body's own, in its order) also as an RFC 8288 `Link` header, as OGC API
    /// Features 1 recommends (/rec/core/link-header): a client can follow `self`, `alternate`,
    /// `next` or `collection` without parsing the body, and an HTML page or a GeoJSON page carries
    /// the same links. Each link gives its `rel` and `type`; titles stay in the body (they are
    /// Chinese, which a header would have to encode).
    func linking(_ links: [JSONValue]) -> Representation {
        let values = links.compactMap { link -> String? in
            guard let href = link["href"]?.stringValue, let rel = link["rel"]?.stringValue else { return nil }
            var value = "<\(Self.headerSafe(href))>; rel=\"\(rel)\""
            if let type = link["type"]?.stringValue, !type.isEmpty { value += "; type=\"\(type)\"" }
            return value
        }
        var linked = self
        if !values.isEmpty { linked.headers[.link] = values.joined(separator: ", ") }
        return linked
    }

    /// `href` with what may not stand between `<` and `>` in a header (non-ASCII, spaces, `>`)
    /// percent-encoded; the links the server writes are encoded already.
    private static func headerSafe(_ href: String) -> String {
        guard href.utf8.contains(where: { $0 >= 0x7F || $0 <= 0x20 || $0 == UInt8(ascii: ">") }) else { return href }
        return href.addingPercentEncoding(withAllowedCharacters: headerURICharacters) ?? href
    }

    private static let headerURICharacters = CharacterSet(charactersIn: "!"..."~")
        .subtracting(CharacterSet(charactersIn: ">"))
}

extension HTTPField.Name {
    /// RFC 8288 web linking.
    static let link = HTTPField.Name("Link")!
}
