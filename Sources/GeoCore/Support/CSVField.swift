/// THE writer of CSV fields (RFC 4180), the counterpart of `CSVRecords`: every CSV CityTwin
/// writes (feature pages and downloads, the geocoder's batches, SensorThings' `CSV` result
/// format, a flood run's time series, the CLI's exports) writes each field through it.
///
/// A field holding a comma, a quote, CR or LF is quoted, its quotes doubled. A **text** field
/// that a spreadsheet would read as a formula (OWASP's CSV injection rule: it starts with `=`,
/// `+`, `-`, `@`, a tab or a carriage return) is written with a single quote before it, and
/// quoted: `=HYPERLINK("http://x","y")` becomes `"'=HYPERLINK(""http://x"",""y"")"`, which
/// Excel, LibreOffice and WPS show as the text it is. A **number** field (a value of a numeric
/// column, written from a number) is never changed: `-12.5` stays the number -12.5. Which kind a
/// field is comes from its column (the layer schema's `integer`/`number` types, a column the
/// writer computes such as a longitude), never from how its text looks; a number column's field
/// that is not a plain decimal number is treated as text.
public enum CSVField {
    /// What a column holds.
    public enum Kind: Sendable, Hashable {
        /// Text (and anything else not written as a number): neutralised when it could be a formula.
        case text
        /// Numbers written as numbers: written as they are.
        case number
    }

    /// The characters that make a spreadsheet read a text cell as a formula (OWASP).
    static let formulaStarts: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D]

    /// Appends `field` to `out` as one CSV field.
    public static func append(_ field: String, as kind: Kind = .text, to out: inout [UInt8]) {
        let neutralise = needsNeutralising(field, as: kind)
        let needsQuotes = neutralise || field.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0D || $0 == 0x0A }
        guard needsQuotes else {
            out += field.utf8
            return
        }
        out.append(UInt8(ascii: "\""))
        if neutralise { out.append(UInt8(ascii: "'")) }
        for b in field.utf8 {
            if b == UInt8(ascii: "\"") { out.append(b) }
            out.append(b)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `field` as one CSV field.
    public static func text(_ field: String, as kind: Kind = .text) -> String {
        var out = [UInt8]()
        out.reserveCapacity(field.utf8.count + 2)
        append(field, as: kind, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `fields` as one CSV record, without its line end.
    public static func record(_ fields: [String], kinds: [Kind] = []) -> String {
        var out = [UInt8]()
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            append(f, as: i < kinds.count ? kinds[i] : .text, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `field` of a column of `kind` must be written with the single quote before it.
    public static func needsNeutralising(_ field: String, as kind: Kind) -> Bool {
        guard let first = field.utf8.first, formulaStarts.contains(first) else { return false }
        return kind == .text || !isPlainNumber(field)
    }

    /// Whether `s` is a decimal number as CityTwin writes numbers (`-12`, `+3.5`, `-1.5e-7`),
    /// and nothing else.
    static func isPlainNumber(_ s: String) -> Bool {
        var bytes = s.utf8[...]
        if let f = bytes.first, f == UInt8(ascii: "-") || f == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var digits = 0, dot = false, exponent = false, exponentDigits = 0, afterExponentSign = false
        for b in bytes {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if exponent { exponentDigits += 1 } else { digits += 1 }
                afterExponentSign = false
            case UInt8(ascii: "."):
                guard !dot, !exponent else { return false }
                dot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard !exponent, digits > 0 else { return false }
                exponent = true
                afterExponentSign = true
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard afterExponentSign else { return false }
                afterExponentSign = false
            default: return false
            }
        }
        return digits > 0 && (!exponent || exponentDigits > 0)
    }
}
