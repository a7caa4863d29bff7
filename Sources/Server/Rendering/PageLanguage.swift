import Hummingbird

/// The language of the HTML pages: Chinese by default, English on request — the `lang` query
/// parameter (`zh` or `en`), else an `Accept-Language` that ranks English above Chinese. JSON
/// documents are not translated (their members are the API's, their titles the layers' own).
enum PageLanguage: String, Sendable, CaseIterable {
    case zh, en

    /// The `lang` attribute of a page in this language.
    var tag: String { self == .zh ? "zh-CN" : "en" }

    /// `zh` in Chinese, `en` in English.
    func text(_ zh: String, _ en: String) -> String { self == .zh ? zh : en }

    /// The `lang` parameter's language.
    /// - Throws: `invalid-parameter` naming `lang` for anything but zh or en (zh-CN, en-US… accepted).
    static func parameter(_ value: String) throws -> PageLanguage {
        let primary = value.lowercased().split(separator: "-").first.map(String.init) ?? ""
        guard let language = PageLanguage(rawValue: primary) else {
            throw Problem.invalid("lang", "'\(value)' is not one of zh, en")
        }
        return language
    }

    /// The language an `Accept-Language` header prefers among zh and en (RFC 9110 §12.5.4:
    /// highest quality wins, earlier entries win ties), or zh when it names neither.
    static func preferred(_ acceptLanguage: String?) -> PageLanguage {
        guard let header = acceptLanguage else { return .zh }
        var best: (PageLanguage, Double)?
        for (i, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let range = parts.first, let primary = range.split(separator: "-").first,
                  let language = PageLanguage(rawValue: String(primary)) else { continue }
            var q = 1.0
            for p in parts.dropFirst() where p.hasPrefix("q=") { q = Double(p.dropFirst(2)) ?? 0 }
            let weight = q - Double(i) * 1e-6
            if q > 0, weight > best?.1 ?? -1 { best = (language, weight) }
        }
        return best?.0 ?? .zh
    }
}

extension APIParameter {
    /// `lang` on every operation with an HTML representation (`APIOperation` adds it beside `f`).
    static let lang = APIParameter(
        "lang", "Language of the HTML page: zh (default) or en. Overrides the Accept-Language header; JSON is not translated.",
        schema: ["type": "string", "enum": ["zh", "en"]])
}

/// What an HTML page needs of its request — its path and query (for the language switch and
/// for links that keep the chosen language) and the language — set by the router around every
/// handler, so pages built anywhere below it speak the caller's language.
struct PageRequest: Sendable {
    @TaskLocal static var current: PageRequest?

    let path: String
    let query: QueryParameters
    /// The `lang` parameter's language, when given (links then carry it on).
    let chosen: PageLanguage?
    private let acceptLanguage: String?
    /// The server's base URL: links under it are this site's own.
    let baseURL: String

    /// - Throws: `invalid-parameter` naming `lang` for a value other than zh or en.
    init(_ request: Request, _ query: QueryParameters, baseURL: String) throws {
        path = request.uri.path
        self.query = query
        chosen = try query["lang"].map(PageLanguage.parameter)
        acceptLanguage = request.headers[.acceptLanguage]
        self.baseURL = baseURL
    }

    /// The page's language: `lang`, else `Accept-Language`, else zh.
    var language: PageLanguage { chosen ?? PageLanguage.preferred(acceptLanguage) }

    /// This page in `language` (the other query parameters kept).
    func switched(to language: PageLanguage) -> String {
        path + query.encoded(replacing: ["lang": language.rawValue])
    }

    /// A link to an HTML page of this site (`f=html`, `/api.html`) carrying the chosen language
    /// on (`lang` given); any other link unchanged (not every operation takes `lang`).
    func carryingLanguage(_ href: String) -> String {
        guard let chosen else { return href }
        var local = href
        if !baseURL.isEmpty, href.hasPrefix(baseURL) { local = String(href.dropFirst(baseURL.count)) }
        guard local.hasPrefix("/"), !local.hasPrefix("//"), !local.contains("lang="),
              local.contains("f=html") || local.hasPrefix("/api.html") else { return href }
        let (pathPart, fragment) = local.firstIndex(of: "#").map { (String(local[..<$0]), String(local[$0...])) } ?? (local, "")
        return pathPart + (pathPart.contains("?") ? "&" : "?") + "lang=" + chosen.rawValue + fragment
    }
}

extension PageLanguage {
    /// The language of the page being built (`PageRequest.current`), else zh.
    static var current: PageLanguage { PageRequest.current?.language ?? .zh }
}
