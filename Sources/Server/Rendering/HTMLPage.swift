import GeoCore

/// Server-rendered HTML for every resource: a plain page (no scripts, no CDN) with the JSON
/// content in tables and links as anchors. All text goes through `escape`.
struct HTMLPage {
    var title: String
    private var body = ""

    init(title: String) { self.title = title }

    /// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// An href as an attribute value: only http(s) URLs and paths become links.
    static func href(_ s: String) -> String? {
        let lower = s.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || s.hasPrefix("/") else { return nil }
        return escape(s)
    }

    mutating func heading(_ text: String, level: Int = 2) {
        body += "<h\(level)>\(Self.escape(text))</h\(level)>\n"
    }

    mutating func paragraph(_ text: String) {
        body += "<p>\(Self.escape(text))</p>\n"
    }

    /// Raw, already-escaped markup.
    mutating func raw(_ html: String) { body += html }

    /// OGC link objects as a list of anchors (`rel`: title).
    mutating func links(_ links: [JSONValue]) {
        guard !links.isEmpty else { return }
        body += "<ul class=\"links\">\n"
        for l in links { body += "<li>" + Self.anchor(l) + "</li>\n" }
        body += "</ul>\n"
    }

    static func anchor(_ link: JSONValue) -> String {
        let rel = link["rel"]?.stringValue ?? "link"
        let text = link["title"]?.stringValue ?? link["href"]?.stringValue ?? rel
        let type = link["type"]?.stringValue.map { " (\(escape($0)))" } ?? ""
        guard let raw = link["href"]?.stringValue, let href = href(raw) else {
            return "\(escape(rel)): \(escape(text))\(type)"
        }
        return "<b>\(escape(rel))</b>: <a href=\"\(href)\">\(escape(text))</a>\(type)"
    }

    /// Any JSON value: objects as two-column tables, arrays of links as anchor lists,
    /// other arrays as lists, scalars as text.
    mutating func value(_ v: JSONValue) { body += Self.render(v) }

    static func render(_ v: JSONValue) -> String {
        switch v {
        case .null: return "<i>null</i>"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return String(d)
        case .string(let s):
            if let h = href(s), s.hasPrefix("http") { return "<a href=\"\(h)\">\(escape(s))</a>" }
            return escape(s)
        case .array(let a):
            if a.isEmpty { return "[]" }
            if a.allSatisfy({ $0["href"] != nil }) {
                return "<ul>" + a.map { "<li>" + anchor($0) + "</li>" }.joined() + "</ul>"
            }
            if a.allSatisfy({ $0.objectValue == nil && $0.arrayValue == nil }) {
                return a.map(render).joined(separator: ", ")
            }
            return "<ol>" + a.map { "<li>" + render($0) + "</li>" }.joined() + "</ol>"
        case .object(let o):
            var s = "<table>"
            for key in o.keys.sorted() {
                s += "<tr><th>\(escape(key))</th><td>\(render(o[key] ?? .null))</td></tr>"
            }
            return s + "</table>"
        }
    }

    /// The complete document.
    var text: String {
        """
        <!DOCTYPE html>
        <html lang="zh-CN"><head><meta charset="utf-8"><title>\(Self.escape(title)) · CityTwin</title>
        <style>body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:.5em 0}
        th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}th{background:#f4f4f4}
        code{background:#f4f4f4}</style></head>
        <body><header><a href="/">CityTwin</a></header>
        <h1>\(Self.escape(title))</h1>
        \(body)</body></html>
        """
    }
}
