/// The one escaping of text put into markup: XML (SUMO's files, GML, the OGC capabilities and
/// GetFeatureInfo), HTML pages and SVG drawings alike. `&`, `<`, `>`, `"` and `'` become
/// entities, so the result is safe as element text and inside an attribute quoted with either
/// quote.
///
/// Characters XML 1.0 cannot carry at all, escaped or not (its `Char` production: the C0
/// controls other than tab, LF and CR, and U+FFFE, U+FFFF), become U+FFFD REPLACEMENT CHARACTER,
/// so that a document holding text stored before the store refused them (`PreparedFeature`)
/// is still well-formed for every client.
public enum MarkupEscaping {
    /// What stands in for a character XML cannot carry.
    public static let replacement: Unicode.Scalar = "\u{FFFD}"

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
            case _ where !isXMLCharacter(c): out.unicodeScalars.append(replacement)
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Whether XML 1.0 can carry `c` (its `Char` production; Swift's scalars are never surrogates).
    public static func isXMLCharacter(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x09, 0x0A, 0x0D: true
        case 0..<0x20: false
        case 0xFFFE, 0xFFFF: false
        default: true
        }
    }

    /// The first character of `s` text may not hold (a C0 control other than tab, LF and CR;
    /// U+0000 included): what every write of a feature property or a SensorThings member refuses.
    public static func firstRefusedControl(in s: String) -> Unicode.Scalar? {
        // Most text has no byte below 0x20: look at the bytes before the scalars.
        guard s.utf8.contains(where: { $0 < 0x20 }) else { return nil }
        return s.unicodeScalars.first { $0.value < 0x20 && !isXMLCharacter($0) }
    }

    /// `U+0001`: how a message names a character (never the text around it).
    public static func codePoint(_ c: Unicode.Scalar) -> String {
        let hex = String(c.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
