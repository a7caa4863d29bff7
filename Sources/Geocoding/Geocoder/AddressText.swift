/// Normalisation of Chinese address text, shared by the geocoder's index and its queries so that
/// both sides meet in the same form.
///
/// Rules, in order: full-width ASCII (U+FF01–FF5E) and the ideographic space become ASCII; white
/// space and punctuation are dropped (a `-` or `—` between digits is kept as a separator, for
/// `3-1-502`); Latin letters are upper-cased; runs of Chinese numerals become decimal digits
/// (`三十二` → `32`, `一百零五` → `105`, `五零二` → `502`); the building words 幢/号楼/座 become 栋,
/// 门 after a number becomes 单元, 户/房 after a number become 室, and 楼/F after a number become 层.
public enum AddressText {
    /// The normalised form of `text` as Unicode scalars.
    public static func normalizedScalars(_ text: String) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(text.unicodeScalars.count)
        // Pass 1: width, white space, punctuation, case.
        var pass: [Unicode.Scalar] = []
        pass.reserveCapacity(text.unicodeScalars.count)
        for s in text.unicodeScalars {
            var v = s.value
            if v == 0x3000 { continue }
            if v >= 0xFF01 && v <= 0xFF5E { v -= 0xFEE0 }
            if v == 0x2014 || v == 0x2013 || v == 0x2212 { v = 0x2D }   // dashes → '-'
            guard let c = Unicode.Scalar(v) else { continue }
            if v == 0x2D { pass.append(c); continue }
            if c.properties.isWhitespace { continue }
            switch c.properties.generalCategory {
            case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                 .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol,
                 .control, .format:
                if v == 0x23 { pass.append(c) }   // '#' as in 3#楼
                continue
            default: break
            }
            if v >= 0x61 && v <= 0x7A, let upper = Unicode.Scalar(v - 0x20) { pass.append(upper); continue }
            pass.append(c)
        }
        // Pass 2: Chinese numerals to digits.
        var i = 0
        while i < pass.count {
            if chineseDigit(pass[i]) != nil || isChineseMultiplier(pass[i]) {
                var j = i
                while j < pass.count, chineseDigit(pass[j]) != nil || isChineseMultiplier(pass[j]) { j += 1 }
                if let value = chineseNumber(pass[i..<j]) {
                    out.append(contentsOf: value.unicodeScalars)
                } else {
                    out.append(contentsOf: pass[i..<j])
                }
                i = j
            } else {
                out.append(pass[i])
                i += 1
            }
        }
        // Pass 3: unit words after numbers; '-' only between digits.
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(out.count)
        i = 0
        while i < out.count {
            let c = out[i]
            let afterDigit = result.last.map(isDigit) ?? false
            let next: Unicode.Scalar? = i + 1 < out.count ? out[i + 1] : nil
            switch c {
            case "-":
                if afterDigit, let next, isDigit(next) { result.append("-") }
            case "#":
                if afterDigit { result.append("栋") }
            case "幢", "座":
                result.append(afterDigit ? "栋" : c)
            case "号" where next == "楼":
                if afterDigit { result.append("栋"); i += 1 } else { result.append(c) }
            case "门" where afterDigit:
                result.append(contentsOf: "单元".unicodeScalars)
            case "户" where afterDigit, "房" where afterDigit:
                result.append("室")
            case "楼" where afterDigit, "F" where afterDigit:
                result.append("层")
            default:
                result.append(c)
            }
            i += 1
        }
        return result
    }

    /// The normalised form of `text` as a string (see the type's rules).
    public static func normalized(_ text: String) -> String {
        var s = String.UnicodeScalarView()
        s.append(contentsOf: normalizedScalars(text))
        return String(s)
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

    static func chineseDigit(_ c: Unicode.Scalar) -> Int? {
        switch c {
        case "零", "〇": 0
        case "一": 1
        case "二": 2
        case "三": 3
        case "四": 4
        case "五": 5
        case "六": 6
        case "七": 7
        case "八": 8
        case "九": 9
        default: nil
        }
    }

    static func isChineseMultiplier(_ c: Unicode.Scalar) -> Bool { c == "十" || c == "百" || c == "千" }

    /// The decimal digits of a run of Chinese numerals: positional when it holds 十/百/千
    /// (`三十二` → 32, `十` → 10, `一百零五` → 105), digit by digit otherwise (`五零二` → 502).
    /// `nil` when the run is not a well-formed number (e.g. `十十`).
    static func chineseNumber(_ run: ArraySlice<Unicode.Scalar>) -> String? {
        if !run.contains(where: isChineseMultiplier) {
            return String(run.map { Character(String(chineseDigit($0) ?? 0)) })
        }
        var total = 0, pending: Int? = nil, lastMultiplier = 10_000
        for c in run {
            if let d = chineseDigit(c) {
                if pending != nil && d != 0 { return nil }
                pending = d == 0 ? nil : d
            } else {
                let m = c == "十" ? 10 : (c == "百" ? 100 : 1000)
                guard m < lastMultiplier else { return nil }
                lastMultiplier = m
                total += (pending ?? (m == 10 ? 1 : 0)) * m
                if pending == nil && m != 10 { return nil }
                pending = nil
            }
        }
        total += pending ?? 0
        return String(total)
    }
}
