import Foundation
import GeoCore

/// SensorThings time values: an RFC 3339 instant or an interval `start/end`, in microseconds
/// since 1970 UTC (the store's unit).
public enum SensingTime {
    /// Parses an instant; `nil` when malformed.
    public static func instant(_ text: String) -> Int64? {
        RFC3339.dateTime(text).map(RFC3339.microseconds)
    }

    /// Parses an instant or an interval `start/end` (end after start); `nil` when malformed.
    public static func period(_ text: String) -> (start: Int64, end: Int64?)? {
        // An instant (most readings) needs no split.
        if !text.utf8.contains(UInt8(ascii: "/")) { return instant(text).map { ($0, nil) } }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return instant(text).map { ($0, nil) }
        case 2:
            guard let a = instant(String(parts[0])), let b = instant(String(parts[1])), b >= a else { return nil }
            return (a, b)
        default: return nil
        }
    }

    /// `2024-05-01T08:00:00Z` (fractional seconds only when there are some).
    ///
    /// Integer arithmetic on the stored value (no `Date`): this runs once or twice per observation
    /// on every read. It writes what the general formatter writes wherever that one is exact (whole
    /// seconds, and every instant from 1899 to 2040); beyond, the trip through `Date`'s `Double` can be
    /// a microsecond off and this is not. Years outside 0000...9999 keep the general formatter.
    public static func format(_ microseconds: Int64) -> String {
        guard microseconds >= fastLow, microseconds < fastHigh else { return formatGeneral(microseconds) }
        var days = microseconds / 86_400_000_000
        var rem = microseconds % 86_400_000_000
        if rem < 0 { rem += 86_400_000_000; days -= 1 }
        let (year, month, day) = CivilCalendar.date(days: Int(days))
        let y = Int64(year), m = Int64(month), d = Int64(day)
        let secs = rem / 1_000_000
        let frac = rem % 1_000_000
        let length = frac == 0 ? 20 : 27
        return String(unsafeUninitializedCapacity: length) { b in
            func put(_ v: Int64, _ at: Int, _ width: Int) {
                var v = v
                for i in stride(from: at + width - 1, through: at, by: -1) {
                    b[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
            }
            put(y, 0, 4); b[4] = 45; put(m, 5, 2); b[7] = 45; put(d, 8, 2); b[10] = 84
            put(secs / 3600, 11, 2); b[13] = 58; put(secs / 60 % 60, 14, 2); b[16] = 58; put(secs % 60, 17, 2)
            if frac != 0 {
                b[19] = 46
                put(frac, 20, 6)
            }
            b[length - 1] = 90
            return length
        }
    }

    /// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the four-digit years the integer path writes.
    static let fastLow: Int64 = -62_167_219_200_000_000
    static let fastHigh: Int64 = 253_402_300_800_000_000

    /// The general formatter (through `Date`), for the instants the integer path leaves out.
    static func formatGeneral(_ microseconds: Int64) -> String {
        var s = RFC3339.format(RFC3339.date(microseconds: microseconds))
        if s.hasSuffix(".000000Z") { s = String(s.dropLast(8)) + "Z" }
        return s
    }

    /// An instant, or `start/end` for an interval.
    public static func format(_ start: Int64, _ end: Int64?) -> String {
        guard let end else { return format(start) }
        return format(start) + "/" + format(end)
    }

    /// Now, in microseconds.
    public static var now: Int64 { RFC3339.microseconds(TwinClock.current.now) }
}
