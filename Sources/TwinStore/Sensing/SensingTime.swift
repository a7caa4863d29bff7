import Foundation

/// SensorThings time values: an RFC 3339 instant or an interval `start/end`, in microseconds
/// since 1970 UTC (the store's unit).
public enum SensingTime {
    /// Parses an instant; `nil` when malformed.
    public static func instant(_ text: String) -> Int64? {
        RFC3339.dateTime(text).map(RFC3339.microseconds)
    }

    /// Parses an instant or an interval `start/end` (end after start); `nil` when malformed.
    public static func period(_ text: String) -> (start: Int64, end: Int64?)? {
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
    public static func format(_ microseconds: Int64) -> String {
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
    public static var now: Int64 { RFC3339.microseconds(Date()) }
}
