/// Decimal text for coordinates, shared by the WKT and GeoJSON codecs: one way to print a
/// coordinate and one way to read one, both working on UTF-8 bytes without `String` round trips
/// on the common path.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum NumberText {
    /// Exact powers of ten representable as `Double` (10^0 ... 10^22).
    static let exactPowersOfTen: [Double] = {
        var p = [Double](repeating: 1, count: 23)
        for i in 1..<23 { p[i] = p[i - 1] * 10 }
        return p
    }()

    // MARK: - Writing

    /// Appends `value` in decimal. With `precision`, rounds to that many decimals (half away from
    /// zero) and drops trailing zeros; without, writes the shortest text that reads back to the
    /// same `Double`, in plain notation for ordinary magnitudes (exponent form only beyond 1e±20).
    /// Non-finite values are written as `nan`/`inf`/`-inf` (callers that cannot carry them check first).
    @inline(__always)
    static func append(_ value: Double, precision: Int?, to out: inout [UInt8]) {
        if let precision, precision >= 0, precision <= 15 {
            let scaled = value * exactPowersOfTen[precision]
            if abs(scaled) < 4.0e15 {
                appendFixed(Int64(scaled.rounded(.toNearestOrAwayFromZero)), decimals: precision, to: &out)
                return
            }
        }
        appendShortest(value, to: &out)
    }

    /// `m / 10^decimals` in plain notation without trailing zeros; `-0` is written as `0`.
    static func appendFixed(_ m: Int64, decimals: Int, to out: inout [UInt8]) {
        if m == 0 { out.append(UInt8(ascii: "0")); return }
        if m < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = m.magnitude
        var fractionDigits = decimals
        while fractionDigits > 0 && magnitude % 10 == 0 {
            magnitude /= 10
            fractionDigits -= 1
        }
        // At most 20 digits plus a point and a leading zero run.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buf in
            var end = 48
            var written = 0
            repeat {
                end -= 1
                buf[end] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
                magnitude /= 10
                written += 1
                if written == fractionDigits && fractionDigits > 0 && magnitude > 0 {
                    end -= 1
                    buf[end] = UInt8(ascii: ".")
                }
            } while magnitude > 0
            if written <= fractionDigits {
                // 0.00ddd: pad with zeros up to the point.
                while written < fractionDigits {
                    end -= 1
                    buf[end] = UInt8(ascii: "0")
                    written += 1
                }
                end -= 1
                buf[end] = UInt8(ascii: ".")
                end -= 1
                buf[end] = UInt8(ascii: "0")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[end..<48]))
        }
    }

    /// Shortest round-trip text (Swift's own algorithm), rewritten out of exponent form.
    static func appendShortest(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: value.isNaN ? Array("nan".utf8) : value < 0 ? Array("-inf".utf8) : Array("inf".utf8))
            return
        }
        if value == value.rounded(.towardZero) && abs(value) < 1.0e15 {
            appendFixed(Int64(value), decimals: 0, to: &out)
            return
        }
        // Most coordinates have 15 or fewer significant digits (survey data, rounded output).
        // Rounding to 15 digits is then exact and, since distinct 15-digit decimals are distinct
        // doubles, the result with trailing zeros dropped is the shortest text; the division
        // check (exact by Clinger's rule) proves the candidate reads back to `value`.
        let magnitude = abs(value)
        if magnitude >= 1e-7 && magnitude < 1e15 {
            let decimals = 14 - Int(log10(magnitude).rounded(.down))
            if decimals >= 0 && decimals <= 22 {
                let scale = exactPowersOfTen[decimals]
                let m = (magnitude * scale).rounded()
                if m <= 9_007_199_254_740_992 && m / scale == magnitude {
                    let digits = Int64(m)
                    appendFixed(value < 0 ? -digits : digits, decimals: decimals, to: &out)
                    return
                }
            }
        }
        let text = value.description
        // The common case, plain notation ("114.30000000000001"): copy it as it is.
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(UInt8(ascii: "e")) else { return false }
            var end = bytes.count
            if end >= 2 && bytes[end - 1] == UInt8(ascii: "0") && bytes[end - 2] == UInt8(ascii: ".") { end -= 2 }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<end]))
            return true
        }
        if copied == true { return }
        var utf8 = text.utf8[...]
        var negative = false
        if utf8.first == UInt8(ascii: "-") { negative = true; utf8 = utf8.dropFirst() }
        // Split "d.ddde±xx" into digits, the position of the point, and the exponent.
        var digits: [UInt8] = []
        digits.reserveCapacity(24)
        var pointIndex: Int? = nil
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        for b in utf8 {
            if inExponent {
                if b == UInt8(ascii: "-") { exponentSign = -1 } else if b != UInt8(ascii: "+") {
                    exponent = exponent * 10 + Int(b &- UInt8(ascii: "0"))
                }
            } else if b == UInt8(ascii: ".") {
                pointIndex = digits.count
            } else if b == UInt8(ascii: "e") || b == UInt8(ascii: "E") {
                inExponent = true
            } else {
                digits.append(b)
            }
        }
        exponent *= exponentSign
        // value = 0.digits * 10^(decimalPoint)
        var decimalPoint = (pointIndex ?? digits.count) + exponent
        // Trim leading zeros (0.000123 -> 123 with a smaller point) and trailing zeros.
        var start = 0
        while start < digits.count - 1 && digits[start] == UInt8(ascii: "0") { start += 1; decimalPoint -= 1 }
        var end = digits.count
        while end > start + 1 && digits[end - 1] == UInt8(ascii: "0") { end -= 1 }
        let significant = digits[start..<end]
        if negative { out.append(UInt8(ascii: "-")) }
        if decimalPoint > 21 || decimalPoint < -19 {
            // Keep exponent form for extreme magnitudes: d.ddde±x
            out.append(significant.first!)
            if significant.count > 1 {
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: significant.dropFirst())
            }
            out.append(UInt8(ascii: "e"))
            let e = decimalPoint - 1
            out.append(e < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            out.append(contentsOf: String(abs(e)).utf8)
        } else if decimalPoint <= 0 {
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "."))
            for _ in 0..<(-decimalPoint) { out.append(UInt8(ascii: "0")) }
            out.append(contentsOf: significant)
        } else if decimalPoint >= significant.count {
            out.append(contentsOf: significant)
            for _ in 0..<(decimalPoint - significant.count) { out.append(UInt8(ascii: "0")) }
        } else {
            let split = significant.startIndex + decimalPoint
            out.append(contentsOf: significant[..<split])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: significant[split...])
        }
    }

    /// The text `append(_:precision:to:)` writes, as a `String`.
    static func text(_ value: Double, precision: Int? = nil) -> String {
        var out: [UInt8] = []
        append(value, precision: precision, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: - Reading

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// Scans a decimal number starting at `start`. `json` selects JSON's stricter grammar (no
    /// leading `+`, no leading zeros, digits on both sides of the point); otherwise WKT's lenient
    /// one (`+1`, `.5`, `1.`). Returns the value and the index after the number, or `nil` when no
    /// number starts at `start`. Overflow yields an infinite value: callers reject non-finite ones.
    @inline(__always)
    static func scan(_ p: UnsafePointer<UInt8>, _ n: Int, at start: Int, json: Bool) -> (value: Double, end: Int)? {
        var j = start
        var negative = false
        if j < n && p[j] == UInt8(ascii: "-") {
            negative = true
            j += 1
        } else if !json && j < n && p[j] == UInt8(ascii: "+") {
            j += 1
        }
        var mantissa: UInt64 = 0
        var exponent = 0
        var exact = true
        let intStart = j
        while j < n && isDigit(p[j]) {
            if mantissa < 100_000_000_000_000_000 {
                mantissa = mantissa &* 10 &+ UInt64(p[j] &- UInt8(ascii: "0"))
            } else {
                exponent += 1
                exact = false
            }
            j += 1
        }
        let intDigits = j - intStart
        if json {
            if intDigits == 0 { return nil }
            if intDigits > 1 && p[intStart] == UInt8(ascii: "0") { return nil }
        }
        var fracDigits = 0
        if j < n && p[j] == UInt8(ascii: ".") {
            j += 1
            let fracStart = j
            while j < n && isDigit(p[j]) {
                if mantissa < 100_000_000_000_000_000 {
                    mantissa = mantissa &* 10 &+ UInt64(p[j] &- UInt8(ascii: "0"))
                    exponent -= 1
                } else {
                    exact = false
                }
                j += 1
            }
            fracDigits = j - fracStart
            if json && fracDigits == 0 { return nil }
        }
        if intDigits + fracDigits == 0 { return nil }
        if j < n && (p[j] == UInt8(ascii: "e") || p[j] == UInt8(ascii: "E")) {
            var k = j + 1
            var expNegative = false
            if k < n && (p[k] == UInt8(ascii: "+") || p[k] == UInt8(ascii: "-")) {
                expNegative = p[k] == UInt8(ascii: "-")
                k += 1
            }
            let expStart = k
            var e = 0
            while k < n && isDigit(p[k]) {
                if e < 100_000 { e = e * 10 + Int(p[k] &- UInt8(ascii: "0")) }
                k += 1
            }
            if k == expStart { return nil }
            exponent += expNegative ? -e : e
            j = k
        }
        // Clinger's fast path: both the mantissa and the power of ten are exact doubles, so one
        // IEEE multiplication or division gives the correctly rounded result.
        if exact && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            var v = Double(mantissa)
            if exponent < 0 { v /= exactPowersOfTen[-exponent] } else { v *= exactPowersOfTen[exponent] }
            return (negative ? -v : v, j)
        }
        if mantissa == 0 && exact { return (negative ? -0.0 : 0.0, j) }
        // 16+ significant digits or a large exponent: the C library parses exactly. The byte at
        // `j` ends the number for strtod as it did for the scan above, so it never reads past it;
        // if strtod stops elsewhere (a locale whose decimal point is not '.'), fall through.
        if j < n {
            var parsedEnd: UnsafeMutablePointer<CChar>? = nil
            let text = UnsafeRawPointer(p + start).assumingMemoryBound(to: CChar.self)
            let v = strtod(text, &parsedEnd)
            if let parsedEnd, UnsafePointer(parsedEnd) == text + (j - start) { return (v, j) }
        }
        let text = String(decoding: UnsafeBufferPointer(start: p + start, count: j - start), as: UTF8.self)
        guard let v = Double(text) else { return nil }
        return (v, j)
    }
}
