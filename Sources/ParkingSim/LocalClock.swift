import GeoCore

/// Local wall-clock time as seconds since 1970-01-01 00:00 of the same clock (no time zone: occupancy
/// feeds report local time, and weekday × time-of-day profiles are about the local clock).
public enum LocalClock {
    /// Seconds in a day.
    public static let day: Double = 86_400

    /// Parses `YYYY-MM-DD HH:MM[:SS]` (also with a `T`); nil when it is not such a time.
    public static func parse(_ text: some StringProtocol) -> Double? {
        let s = Array(text.utf8)
        guard s.count >= 16, s[4] == UInt8(ascii: "-"), s[7] == UInt8(ascii: "-"),
              s[10] == UInt8(ascii: " ") || s[10] == UInt8(ascii: "T"), s[13] == UInt8(ascii: ":") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var v = 0
            for i in from..<(from + count) {
                let c = s[i]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2), let h = number(11, 2),
              let mi = number(14, 2), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60 else { return nil }
        var sec = 0
        if s.count >= 19 {
            guard s[16] == UInt8(ascii: ":"), let v = number(17, 2), v < 61 else { return nil }
            sec = v
        }
        return Double(CivilCalendar.days(year: y, month: mo, day: d)) * day + Double(h * 3600 + mi * 60 + sec)
    }

    /// `YYYY-MM-DD` as the start of that local day; nil when malformed.
    public static func parseDate(_ text: some StringProtocol) -> Double? {
        text.count == 10 ? parse(text + " 00:00:00") : parse(text)
    }

    /// `YYYY-MM-DD HH:MM:SS` for a local time.
    public static func format(_ t: Double) -> String {
        let days = Int((t / day).rounded(.down))
        let (y, m, d) = CivilCalendar.date(days: days)
        let s = Int((t - Double(days) * day).rounded())
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)-\(two(m))-\(two(d)) \(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
    }

    /// The local day (days since 1970-01-01) a time falls on.
    public static func dayIndex(_ t: Double) -> Int { Int((t / day).rounded(.down)) }

    /// Seconds since local midnight.
    public static func clock(_ t: Double) -> Double { t - Double(dayIndex(t)) * day }

    /// ISO weekday of a day index: 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
    public static func weekday(ofDay d: Int) -> Int { ((d + 3) % 7 + 7) % 7 }
}
