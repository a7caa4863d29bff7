import Foundation
import GeoCore
import Testing

/// Day counts against Foundation's Gregorian calendar in UTC, an independent implementation (from 1600:
/// Foundation's calendar turns Julian before October 1582, ours stays proleptic Gregorian).
@Suite("Civil calendar day counts")
struct CivilCalendarTests {
    static let gregorian: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()

    @Test("days since 1970-01-01 and back agree with Foundation across leap years, centuries and before 1970")
    func againstFoundation() throws {
        var rng = SplitMix64(seed: 2026)
        // 1600-01-01, 1969-12-31, 1970-01-01, 2000-02-29, 2026-03-01, 9999-12-31 and random days between.
        var days = [-135_140, -1, 0, 11_016, 20_513, 2_932_896]
        for _ in 0..<2_000 { days.append(Int(rng.next() % 3_068_037) - 135_140) }
        for n in days {
            let date = Date(timeIntervalSince1970: Double(n) * 86_400)
            let parts = Self.gregorian.dateComponents([.year, .month, .day], from: date)
            let civil = CivilCalendar.date(days: n)
            #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day, "day \(n)")
            #expect(CivilCalendar.days(year: civil.year, month: civil.month, day: civil.day) == n)
        }
        #expect(CivilCalendar.days(year: 2000, month: 2, day: 29) + 1 == CivilCalendar.days(year: 2000, month: 3, day: 1))
        #expect(CivilCalendar.days(year: 1900, month: 2, day: 28) + 1 == CivilCalendar.days(year: 1900, month: 3, day: 1))
    }
}
