import Foundation

/// RFC 3339 dates and date-times, as JSON Schema's `format: "date"` / `"date-time"`, CQL2's
/// `DATE(...)` / `TIMESTAMP(...)`, OGC API's `datetime`, SensorThings and the scenarios write
/// them: THE time parser and formatter of the project (in: offsets, fractional seconds, `Z`;
/// out: UTC), on integer arithmetic over `CivilCalendar`.
public enum RFC3339 {
    /// Parses `YYYY-MM-DD` into (year, month, day) after checking the day exists in that month.
    public static func fullDate(_ s: Substring) -> (Int, Int, Int)? {
        let u = Array(s.utf8)
        guard u.count == 10, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"),
              let y = digits(u[0..<4]), let m = digits(u[5..<7]), let d = digits(u[8..<10]),
              (1...12).contains(m), d >= 1, d <= daysIn(month: m, year: y) else { return nil }
        return (y, m, d)
    }

    /// Whether `s` is a valid `full-date`.
    public static func isDate(_ s: String) -> Bool { fullDate(Substring(s)) != nil }

    /// A `full-date` as the first instant of that day in UTC; `nil` when malformed.
    public static func startOfDay(_ s: String) -> Date? {
        guard let (y, m, d) = fullDate(Substring(s)) else { return nil }
        return Date(timeIntervalSince1970: Double(CivilCalendar.days(year: y, month: m, day: d) * 86_400))
    }

    /// The `full-date` (`YYYY-MM-DD`) an instant falls on in `zone` (the city's: `CityTime.zone`).
    public static func fullDate(of date: Date, in zone: TimeZone) -> String {
        let local = date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))
        let (y, m, d) = CivilCalendar.date(days: Int((local / 86_400).rounded(.down)))
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// Parses an RFC 3339 `date-time` (`2024-05-01T08:30:00Z`, `…+08:00`, fractional seconds
    /// allowed, `t`/`z` in either case) into an instant; `nil` when malformed.
    public static func dateTime(_ s: String) -> Date? {
        let u = Array(s.utf8)
        guard u.count >= 20, u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: "t"),
              let (y, mo, d) = fullDate(Substring(s).prefix(10)),
              u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":"),
              let h = digits(u[11..<13]), let mi = digits(u[14..<16]), let sec = digits(u[17..<19]),
              h < 24, mi < 60, sec <= 60 else { return nil }
        var i = 19
        var fraction = 0.0
        if u[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1
            let start = i
            while i < u.count, (48...57).contains(u[i]) {
                fraction += Double(u[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        guard i < u.count else { return nil }
        var offset = 0
        if u[i] == UInt8(ascii: "Z") || u[i] == UInt8(ascii: "z") {
            i += 1
        } else if u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
            guard u.count - i == 6, u[i + 3] == UInt8(ascii: ":"),
                  let oh = digits(u[(i + 1)..<(i + 3)]), let om = digits(u[(i + 4)..<(i + 6)]),
                  oh < 24, om < 60 else { return nil }
            offset = (oh * 60 + om) * 60 * (u[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == u.count else { return nil }
        let days = CivilCalendar.days(year: y, month: mo, day: d)
        let seconds = Double(days * 86_400 + h * 3_600 + mi * 60 + sec - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// An instant as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds).
    public static func format(_ date: Date) -> String {
        let micros = microseconds(date)
        var days = micros / 86_400_000_000
        var rem = micros % 86_400_000_000
        if rem < 0 { rem += 86_400_000_000; days -= 1 }
        let (y, m, d) = CivilCalendar.date(days: Int(days))
        let secs = rem / 1_000_000
        let frac = rem % 1_000_000
        func pad(_ v: Int64, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(Int64(y), 4))-\(pad(Int64(m), 2))-\(pad(Int64(d), 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2)).\(pad(frac, 6))Z"
    }

    /// Microseconds since 1970-01-01T00:00:00Z: the store's time unit (exact in SQLite and PostgreSQL).
    public static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    public static func date(microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    private static func digits(_ s: ArraySlice<UInt8>) -> Int? {
        var v = 0
        for c in s {
            guard (48...57).contains(c) else { return nil }
            v = v * 10 + Int(c - 48)
        }
        return v
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
