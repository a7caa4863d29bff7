import Foundation
import GeoCore

extension DailyRainfall {
    /// Which columns of a rainfall CSV hold what, by header name (matched exactly, after trimming
    /// spaces).
    public struct Columns: Sendable, Hashable {
        /// The day (`YYYY-MM-DD` or `YYYY/MM/DD`) or the reading's time (RFC 3339
        /// `2024-07-01T08:00:00+08:00`, or wall-clock `YYYY-MM-DD hh:mm[:ss]` in the city's zone).
        public var date: String
        /// The depth that fell, mm (on the day, or in the reading's interval).
        public var depth: String
        /// Optional: a column whose cell marks snow (`snow`, `true`, `yes`, `1` or `雪`, any case;
        /// any other text, such as `rain` in a weather column, is no snow).
        public var snow: String?

        public static let defaultDate = "date"
        public static let defaultDepth = "precipitation"

        public init(date: String = defaultDate, depth: String = defaultDepth, snow: String? = nil) {
            self.date = date
            self.depth = depth
            self.snow = snow
        }
    }

    /// The cells that mark a day of snow.
    static let snowMarks: Set<String> = ["snow", "true", "yes", "1", "雪"]

    /// Reads a rainfall record from CSV text (THE CSV reader, `CSVRecords`): a header naming the
    /// columns, then one row per day, or per reading when the times carry a clock (sub-daily
    /// readings are summed into the calendar day they fall on, in the city's zone `zone`). Blank
    /// lines are skipped.
    /// - Throws: `SpongeInputError` naming the row (the physical line, from 1) and the column:
    ///   a missing column, a date or depth that cannot be read, a negative depth, a day listed
    ///   twice in a daily record, days out of order, no row at all. `CSVSyntaxError` for a quoted
    ///   field never closed.
    public init(csv text: String, columns: Columns = Columns(), zone: TimeZone = CityTime.current, source: String = "daily-rainfall") throws {
        var records = CSVRecords(text: text)
        var header: [String]?
        repeat {
            guard let r = try records.next() else { throw SpongeInputError(source, "the file is empty: expected a header naming the columns \(columns.date) and \(columns.depth)") }
            if r != [""] { header = r.map { $0.trimmingCharacters(in: .whitespaces) } }
        } while header == nil
        let names = header!
        func index(_ name: String, _ option: String) throws -> Int {
            guard let k = names.firstIndex(of: name) else {
                throw SpongeInputError(source, "no column '\(name)' in the header (\(names.joined(separator: ", "))); name it with --\(option)")
            }
            return k
        }
        let dateIndex = try index(columns.date, "date-column")
        let depthIndex = try index(columns.depth, "depth-column")
        let snowIndex = try columns.snow.map { try index($0, "snow-column") }
        var days: [Day] = []
        var readings = 0
        var clocked: Bool?
        while let record = try records.next() {
            if record == [""] { continue }
            let row = records.line
            func cell(_ k: Int, _ name: String) throws -> String {
                guard k < record.count else {
                    throw SpongeInputError("\(source) row \(row) column \(name)", "the row has \(record.count) fields, the header \(names.count)")
                }
                return record[k].trimmingCharacters(in: .whitespaces)
            }
            let dateText = try cell(dateIndex, columns.date)
            guard let (day, hasClock) = Self.day(of: dateText, zone: zone) else {
                throw SpongeInputError("\(source) row \(row) column \(columns.date)",
                                       "'\(dateText)' is not a date (YYYY-MM-DD) or a date-time (RFC 3339, or YYYY-MM-DD hh:mm[:ss])")
            }
            if let clocked, clocked != hasClock {
                throw SpongeInputError("\(source) row \(row) column \(columns.date)",
                                       "'\(dateText)' \(hasClock ? "has" : "has no") time of day, unlike the rows before it: a record is daily or sub-daily throughout")
            }
            clocked = hasClock
            let depthText = try cell(depthIndex, columns.depth)
            guard let depth = Double(depthText), depth.isFinite else {
                throw SpongeInputError("\(source) row \(row) column \(columns.depth)", "'\(depthText)' is not a depth in mm")
            }
            guard depth >= 0 else { throw SpongeInputError("\(source) row \(row) column \(columns.depth)", "a depth cannot be negative (\(depthText) mm)") }
            var snow = false
            if let k = snowIndex, let name = columns.snow { snow = Self.snowMarks.contains(try cell(k, name).lowercased()) }
            readings += 1
            if let last = days.last, last.day == day {
                guard hasClock else {
                    throw SpongeInputError("\(source) row \(row) column \(columns.date)", "\(last.date) is listed twice")
                }
                days[days.count - 1].millimetres += depth
                days[days.count - 1].snow = last.snow || snow
                continue
            }
            if let last = days.last, day < last.day {
                throw SpongeInputError("\(source) row \(row) column \(columns.date)", "\(Self.dateText(day)) comes after \(last.date): rows must be in time order")
            }
            days.append(Day(day: day, millimetres: depth, snow: snow))
        }
        guard !days.isEmpty else { throw SpongeInputError(source, "no row of rainfall after the header") }
        self.init(days: days, readings: readings, subDaily: clocked ?? false)
    }

    /// The day a date cell names and whether it carries a time of day; nil when unreadable.
    static func day(of text: String, zone: TimeZone) -> (Int, Bool)? {
        // `YYYY/MM/DD` reads as `YYYY-MM-DD`.
        let normalised = String(text.prefix(10)).replacingOccurrences(of: "/", with: "-") + text.dropFirst(10)
        if normalised.count == 10 {
            guard let (y, m, d) = RFC3339.fullDate(Substring(normalised)) else { return nil }
            return (CivilCalendar.days(year: y, month: m, day: d), false)
        }
        if let instant = RFC3339.dateTime(normalised) {
            let local = RFC3339.fullDate(of: instant, in: zone)
            guard let (y, m, d) = RFC3339.fullDate(Substring(local)) else { return nil }
            return (CivilCalendar.days(year: y, month: m, day: d), true)
        }
        // Wall-clock time in the city's zone: the calendar day is the one written.
        let parts = normalised.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let (y, m, d) = RFC3339.fullDate(parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":")
        guard (2...3).contains(clock.count), let h = Int(clock[0]), let mi = Int(clock[1]), (0..<24).contains(h), (0..<60).contains(mi),
              clock.count == 2 || Double(clock[2]).map({ $0 >= 0 && $0 < 61 }) == true else { return nil }
        return (CivilCalendar.days(year: y, month: m, day: d), true)
    }
}
