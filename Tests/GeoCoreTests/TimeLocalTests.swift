import Foundation
import GeoCore
import Testing

/// Local date-times and whole-second stamps, written by the one time library as Foundation's
/// calendar and ISO 8601 style write them (what the ad hoc formatters they replace produced).
@Suite("Time: local date-times with the city's offset, whole-second UTC stamps")
struct TimeLocalTests {
    @Test("an instant on a zone's clock carries that zone's offset, as Foundation's calendar reads it")
    func localDateTimes() throws {
        let shanghai = try #require(TimeZone(identifier: "Asia/Shanghai"))
        let instant = try #require(RFC3339.dateTime("2026-11-25T00:00:00.75Z"))
        #expect(RFC3339.localDateTime(instant, in: shanghai) == "2026-11-25T08:00:00+08:00")
        #expect(RFC3339.localDateTime(instant, in: try #require(TimeZone(identifier: "America/St_Johns"))) == "2026-11-24T20:30:00-03:30")
        #expect(RFC3339.localDateTime(instant, in: try #require(TimeZone(identifier: "UTC"))) == "2026-11-25T00:00:00+00:00")
        // Summer time: Berlin is +02:00 in July and +01:00 in January.
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(RFC3339.localDateTime(try #require(RFC3339.dateTime("2026-07-01T10:00:00Z")), in: berlin) == "2026-07-01T12:00:00+02:00")
        #expect(RFC3339.localDateTime(try #require(RFC3339.dateTime("2026-01-01T10:00:00Z")), in: berlin) == "2026-01-01T11:00:00+01:00")
        // Every written local time reads back as the instant (to the second).
        for seconds in stride(from: 1_700_000_000.0, to: 1_800_000_000, by: 7_654_321.5) {
            let date = Date(timeIntervalSince1970: seconds)
            for zone in [shanghai, berlin] {
                let text = RFC3339.localDateTime(date, in: zone)
                #expect(RFC3339.dateTime(text)?.timeIntervalSince1970 == seconds.rounded(.down), "\(text)")
            }
        }
    }

    @Test("a wall-clock time (parking feeds' local seconds) gets the offset its zone has then")
    func wallClockTimes() throws {
        let shanghai = try #require(TimeZone(identifier: "Asia/Shanghai"))
        let noon = Double(CivilCalendar.days(year: 2026, month: 6, day: 17) * 86_400 + 7 * 3_600 + 15 * 60)
        #expect(RFC3339.localDateTime(wallClockSeconds: noon, in: shanghai) == "2026-06-17T07:15:00+08:00")
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(RFC3339.localDateTime(wallClockSeconds: noon, in: berlin) == "2026-06-17T07:15:00+02:00")
    }

    @Test("whole-second UTC stamps are what Foundation's ISO 8601 style writes")
    func wholeSeconds() {
        for seconds in [0.0, 1_714_552_200.25, 1_764_000_000.999, 951_782_400] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.formatSeconds(date) == date.formatted(.iso8601))
        }
        #expect(RFC3339.offsetText(seconds: 8 * 3_600) == "+08:00")
        #expect(RFC3339.offsetText(seconds: -(3 * 3_600 + 1_800)) == "-03:30")
    }
}
