import Foundation

extension RFC3339 {
    /// An instant in whole seconds (truncated), UTC: `2026-11-25T00:00:00Z`, as HTTP-facing
    /// stamps and token expiries are written (what `Date.formatted(.iso8601)` wrote before).
    public static func formatSeconds(_ date: Date) -> String {
        wallClock(Int64(date.timeIntervalSince1970.rounded(.down))) + "Z"
    }

    /// An instant as the civil date-time in `zone` with that zone's offset, whole seconds
    /// (truncated): `2026-11-25T08:00:00+08:00` for `2026-11-25T00:00:00Z` in Asia/Shanghai.
    public static func localDateTime(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        return wallClock(Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset)) + offsetText(seconds: offset)
    }

    /// A wall-clock time of the city (seconds since 1970-01-01 00:00 of the local clock, as
    /// parking feeds count) with the offset `zone` has at that time: `2026-06-17T07:15:00+08:00`.
    public static func localDateTime(wallClockSeconds t: Double, in zone: TimeZone) -> String {
        let seconds = Int64(t.rounded())
        let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds - Int64(guess))))
        return wallClock(seconds) + offsetText(seconds: offset)
    }

    /// A UTC offset as RFC 3339 writes it: `+08:00`, `-03:30`, `+00:00`.
    public static func offsetText(seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        return (seconds < 0 ? "-" : "+") + pad(Int64(minutes / 60), 2) + ":" + pad(Int64(minutes % 60), 2)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of whole seconds since 1970-01-01T00:00:00 of some clock.
    private static func wallClock(_ seconds: Int64) -> String {
        var days = seconds / 86_400
        var rem = seconds % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = CivilCalendar.date(days: Int(days))
        return "\(pad(Int64(y), 4))-\(pad(Int64(m), 2))-\(pad(Int64(d), 2))T\(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2))"
    }

    private static func pad(_ v: Int64, _ w: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, w - s.count)) + s
    }
}
