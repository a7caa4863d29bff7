import GeoCore

/// A rainfall record as calendar days: the depth that fell on each day (mm) and whether it fell
/// as snow. Days are numbered since 1970-01-01 (`CivilCalendar`); a day the record does not list
/// is missing, not dry. Sub-daily readings are summed into the day they fall on.
public struct DailyRainfall: Sendable, Hashable {
    public struct Day: Sendable, Hashable {
        /// Days since 1970-01-01.
        public var day: Int
        /// Depth that fell on the day, mm.
        public var millimetres: Double
        /// Whether the record marks the day as snow (GB/T 51345-2018 leaves snowfall out).
        public var snow: Bool

        public init(day: Int, millimetres: Double, snow: Bool = false) {
            self.day = day
            self.millimetres = millimetres
            self.snow = snow
        }

        /// `YYYY-MM-DD`.
        public var date: String { DailyRainfall.dateText(day) }
    }

    /// The days, in increasing order, each once.
    public var days: [Day]
    /// Readings the record held (more than `days.count` when it was sub-daily).
    public var readings: Int
    /// Whether readings finer than a day were summed into days.
    public var subDaily: Bool

    /// - Parameter days: in increasing order, each day once (the readers guarantee it).
    public init(days: [Day], readings: Int? = nil, subDaily: Bool = false) {
        self.days = days
        self.readings = readings ?? days.count
        self.subDaily = subDaily
    }

    /// What the record covers: its first and last day and the calendar days between them.
    public struct Coverage: Sendable, Hashable, Encodable {
        public var firstDate: String
        public var lastDate: String
        /// Calendar days from the first to the last, both included.
        public var calendarDays: Int
        /// Days the record lists.
        public var recordedDays: Int
        /// Calendar days between the first and the last that the record does not list.
        public var missingDays: Int
        /// Calendar days / 365.25, to 0.01.
        public var years: Double
        public var readings: Int
        public var subDaily: Bool
    }

    /// The record's coverage; nil when it holds no day.
    public var coverage: Coverage? {
        guard let first = days.first, let last = days.last else { return nil }
        let span = last.day - first.day + 1
        return Coverage(firstDate: first.date, lastDate: last.date, calendarDays: span, recordedDays: days.count,
                        missingDays: span - days.count, years: (Double(span) / 365.25 * 100).rounded() / 100,
                        readings: readings, subDaily: subDaily)
    }

    /// `YYYY-MM-DD` of a day number.
    public static func dateText(_ day: Int) -> String {
        let (y, m, d) = CivilCalendar.date(days: day)
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }
}
