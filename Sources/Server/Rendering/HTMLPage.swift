import GeoCore

/// Server-rendered HTML for every resource: one designed page (`PageStyle`, served from
/// `/static/citytwin.css`; no scripts, no CDN) with a skip link, the site navigation, a
/// language switch (Chinese by default, English with `lang=en` or `Accept-Language`), the JSON
/// content in tables and links as anchors. All text goes through `escape`.
struct HTMLPage {
    var title: String
    /// The page's language (`PageRequest.current`, else Chinese).
    let language: PageLanguage
    private var body = ""

    /// - Parameters:
    ///   - title: the Chinese title (or one that needs no translation);
    ///   - english: the English title, when it differs.
    init(title: String, english: String? = nil) {
        language = PageRequest.current?.language ?? .zh
        self.title = language == .en ? (english ?? title) : title
    }

    /// `zh` on a Chinese page, `en` on an English one.
    func tr(_ zh: String, _ en: String) -> String { language.text(zh, en) }

    /// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attributes.
    static func escape(_ s: String) -> String { MarkupEscaping.escape(s) }

    /// An href as an attribute value: only http(s) URLs and paths become links; this site's
    /// links keep the language the caller chose (`lang`).
    static func href(_ s: String) -> String? {
        let lower = s.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || s.hasPrefix("/") else { return nil }
        return escape(PageRequest.current?.carryingLanguage(s) ?? s)
    }

    /// An anchor to `href` (a path or http(s) URL) with escaped `text`; plain text for another scheme.
    static func link(_ href: String, _ text: String, attributes: String = "") -> String {
        guard let h = Self.href(href) else { return escape(text) }
        return "<a href=\"\(h)\"\(attributes)>\(escape(text))</a>"
    }

    mutating func heading(_ text: String, level: Int = 2) {
        body += "<h\(level)>\(Self.escape(text))</h\(level)>\n"
    }

    mutating func paragraph(_ text: String, class name: String? = nil) {
        body += (name.map { "<p class=\"\($0)\">" } ?? "<p>") + "\(Self.escape(text))</p>\n"
    }

    /// Raw, already-escaped markup.
    mutating func raw(_ html: String) { body += html }

    /// A highlighted notice (a token is needed, a job failed), with optional raw markup after the text.
    mutating func notice(_ text: String, html: String = "") {
        body += "<div class=\"notice\" role=\"note\"><p>\(Self.escape(text))\(html)</p></div>\n"
    }

    /// Prominent links (downloads, next steps): (href, text).
    mutating func actions(_ items: [(String, String)], label: String) {
        guard !items.isEmpty else { return }
        body += "<ul class=\"actions\" aria-label=\"\(Self.escape(label))\">"
            + items.map { "<li>" + Self.link($0.0, $0.1) + "</li>" }.joined() + "</ul>\n"
    }

    /// Cards linking the main parts of the site: (href, title, description).
    mutating func cards(_ items: [(String, String, String)]) {
        body += "<ul class=\"cards\">"
        for (href, title, text) in items {
            body += "<li>" + Self.link(href, title) + "<p>\(Self.escape(text))</p></li>"
        }
        body += "</ul>\n"
    }

    /// A table with a header row; cells are raw (escaped) markup. Wide tables scroll on their own.
    mutating func table(_ columns: [String], _ rows: [[String]], caption: String? = nil) {
        body += Self.table(columns, rows, caption: caption)
    }

    static func table(_ columns: [String], _ rows: [[String]], caption: String? = nil) -> String {
        var s = "<div class=\"scroll\"><table>"
        if let caption { s += "<caption>\(escape(caption))</caption>" }
        s += "<thead><tr>" + columns.map { "<th scope=\"col\">\(escape($0))</th>" }.joined() + "</tr></thead><tbody>"
        for row in rows { s += "<tr>" + row.map { "<td>\($0)</td>" }.joined() + "</tr>" }
        return s + "</tbody></table></div>\n"
    }

    /// OGC link objects as a list of anchors.
    mutating func links(_ links: [JSONValue]) {
        guard !links.isEmpty else { return }
        body += "<h2>\(Self.escape(tr("链接", "Links")))</h2>\n<ul class=\"links\">\n"
        for l in links { body += "<li>" + Self.anchor(l) + "</li>\n" }
        body += "</ul>\n"
    }

    /// Chinese titles of the link titles the API writes in English.
    static let chineseTitles: [String: String] = [
        "This document as JSON": "本页的 JSON 格式", "This document as HTML": "本页的 HTML 格式",
        "The next page": "下一页", "Features as GeoJSON": "要素 (GeoJSON)", "Features as HTML": "要素 (网页)",
        "Queryables": "可查询属性", "Vector tilesets": "矢量瓦片集", "Execute the process": "执行该处理",
        "This job's status": "任务状态", "The job's results": "任务结果",
        "The API definition (OpenAPI 3.0)": "API 定义 (OpenAPI 3.0)", "The API documentation": "API 文档",
        "Conformance classes": "符合性类", "Collections (layers)": "图层", "Vector tilesets of the whole map": "全图矢量瓦片集",
        "Tile matrix sets": "瓦片矩阵集", "Web map (一张图)": "一张图 (网页地图)", "Processes": "处理服务", "Jobs": "任务",
    ]

    /// A link object as an anchor: its title (in Chinese on a Chinese page when known), its
    /// relation and media type after it.
    static func anchor(_ link: JSONValue) -> String {
        let rel = link["rel"]?.stringValue ?? "link"
        var text = link["title"]?.stringValue ?? link["href"]?.stringValue ?? rel
        if PageRequest.current?.language ?? .zh == .zh, let zh = chineseTitles[text] { text = zh }
        let type = link["type"]?.stringValue.map { " · \(escape($0))" } ?? ""
        let relation = " <span class=\"muted\">(\(escape(rel))\(type))</span>"
        guard let raw = link["href"]?.stringValue, let href = href(raw) else { return escape(text) + relation }
        let relAttribute = rel.contains(":") || rel.contains(" ") ? "" : " rel=\"\(escape(rel))\""
        return "<a href=\"\(href)\"\(relAttribute)>\(escape(text))</a>" + relation
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
            var s = "<div class=\"scroll\"><table>"
            for key in o.keys.sorted() {
                s += "<tr><th scope=\"row\">\(escape(key))</th><td>\(render(o[key] ?? .null))</td></tr>"
            }
            return s + "</table></div>"
        }
    }

    /// The site navigation: (path, Chinese, English).
    static let navigation: [(String, String, String)] = [
        ("/", "首页", "Home"), ("/collections", "图层", "Collections"), ("/processes", "处理服务", "Processes"),
        ("/jobs", "任务", "Jobs"), ("/map", "一张图", "Map"), ("/api.html", "API 文档", "API"),
    ]

    private var header: String {
        let current = PageRequest.current?.path ?? ""
        var s = "<header class=\"site\"><a class=\"brand\" href=\"\(Self.href("/?f=html") ?? "/")\">CityTwin \(Self.escape(tr("城市数字孪生", "city digital twin")))</a>"
        s += "<nav class=\"main\" aria-label=\"\(Self.escape(tr("主导航", "Main")))\"><ul>"
        for (path, zh, en) in Self.navigation {
            let target = path == "/map" || path == "/api.html" ? path : path + "?f=html"
            let isCurrent = path == "/" ? current == "/" : current == path || current.hasPrefix(path + "/")
                || (path == "/api.html" && current == "/api")
            s += "<li>" + Self.link(target, tr(zh, en), attributes: isCurrent ? " aria-current=\"page\"" : "") + "</li>"
        }
        s += "</ul></nav>"
        if let page = PageRequest.current {
            s += "<div class=\"lang\" role=\"group\" aria-label=\"\(Self.escape(tr("语言", "Language")))\">"
            for (language, name) in [(PageLanguage.zh, "中文"), (.en, "English")] {
                let href = Self.escape(page.switched(to: language))
                let current = language == self.language ? " aria-current=\"true\"" : ""
                s += "<a href=\"\(href)\" lang=\"\(language.tag)\" hreflang=\"\(language.tag)\"\(current)>\(name)</a>"
            }
            s += "</div>"
        }
        return s + "</header>\n"
    }

    /// The complete document.
    var text: String {
        """
        <!DOCTYPE html>
        <html lang="\(language.tag)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Self.escape(title)) · CityTwin</title><link rel="stylesheet" href="\(PageStyle.href)"></head>
        <body><a class="skip" href="#main">\(Self.escape(tr("跳到正文", "Skip to content")))</a>
        \(header)<main id="main" tabindex="-1">
        <h1>\(Self.escape(title))</h1>
        \(body)</main>
        <footer class="site"><p>CityTwin · \(Self.escape(tr("城市数字孪生 OGC API", "OGC API of the city's digital twin"))) · \
        \(Self.link("/api", tr("API 定义", "API definition"))) · \(Self.link("/conformance?f=html", tr("符合性", "Conformance")))</p></footer>
        </body></html>
        """
    }
}
