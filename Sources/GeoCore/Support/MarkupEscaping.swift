/// The one escaping of text put into markup: XML (SUMO's files, GML), HTML pages and SVG
/// drawings alike. `&`, `<`, `>`, `"` and `'` become entities, so the result is safe as element
/// text and inside an attribute quoted with either quote.
public enum MarkupEscaping {
    public static func escape(_ s: String) -> String {
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
}
