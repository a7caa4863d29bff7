import Foundation
import GeoCore
import TwinStore

/// The OGC API `datetime` parameter: an RFC 3339 instant (`2024-05-01T08:00:00Z`), a date
/// (`2024-05-01`, the whole UTC day), or an interval `start/end` where either end may be
/// `..` or empty (open).
enum DateTimeParameter {
    static func parse(_ text: String) throws -> TemporalValue {
        let name = "datetime"
        if text.contains("/") {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw Problem.invalid(name, "an interval has exactly one '/'") }
            func end(_ s: Substring, isStart: Bool) throws -> Date? {
                if s.isEmpty || s == ".." { return nil }
                guard let d = instant(String(s), dayEnd: !isStart) else {
                    throw Problem.invalid(name, "'\(s)' is not an RFC 3339 date-time or date")
                }
                return d
            }
            let start = try end(parts[0], isStart: true)
            let stop = try end(parts[1], isStart: false)
            if start == nil && stop == nil { throw Problem.invalid(name, "an interval needs at least one closed end") }
            if let start, let stop, start > stop { throw Problem.invalid(name, "the interval's start is after its end") }
            return .interval(start: start, end: stop)
        }
        if isDate(text), let s = instant(text, dayEnd: false), let e = instant(text, dayEnd: true) {
            return .interval(start: s, end: e)
        }
        guard let d = instant(text, dayEnd: false) else {
            throw Problem.invalid(name, "'\(text)' is not an RFC 3339 date-time, date or interval")
        }
        return .instant(d)
    }

    private static func isDate(_ s: String) -> Bool {
        s.utf8.count == 10 && !s.contains("T") && !s.contains("t")
    }

    /// An RFC 3339 date-time, or a full date as its first (or, with `dayEnd`, last) millisecond in UTC.
    static func instant(_ text: String, dayEnd: Bool) -> Date? {
        if isDate(text) {
            guard let day = RFC3339.startOfDay(text) else { return nil }
            return dayEnd ? day.addingTimeInterval(86_400 - 0.001) : day
        }
        return RFC3339.dateTime(text)
    }
}
