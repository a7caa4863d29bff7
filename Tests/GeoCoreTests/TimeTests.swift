import Foundation
import GeoCore
import Testing

/// The one time library: RFC 3339 in (offsets, fractional seconds, `Z`) and out, the city's time
/// zone from its one setting, and the injectable clock.
@Suite("Time: RFC 3339, the city's time zone, the injectable clock")
struct TimeTests {
    @Test("RFC 3339 date-times with Z, offsets and fractional seconds are the instants Foundation's ISO 8601 reader gives")
    func parsesLikeFoundation() throws {
        for text in ["2024-05-01T08:30:00Z", "2024-05-01T08:30:00+08:00", "2024-05-01T08:30:00-05:30", "2024-02-29T23:59:59.125Z",
                     "1999-12-31T16:00:00.5+08:00", "2026-07-01t08:00:00z"] {
            let ours = try #require(RFC3339.dateTime(text), "\(text)")
            let style = text.contains(".") ? Date.ISO8601FormatStyle(includingFractionalSeconds: true) : Date.ISO8601FormatStyle()
            let foundation = try style.parse(text.uppercased())
            #expect(abs(ours.timeIntervalSince1970 - foundation.timeIntervalSince1970) < 1e-6, "\(text)")
        }
        #expect(RFC3339.dateTime("2024-05-01T08:30:00.123456Z")?.timeIntervalSince1970 == 1_714_552_200.123456)
    }

    @Test("malformed date-times and dates are refused")
    func refusesMalformed() {
        for text in ["2024-05-01T08:30:00", "2024-05-01 08:30:00Z", "2024-02-30T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T08:30:00+0800",
                     "2024-05-01T08:30:00.Z", "2024-5-01T08:30:00Z", ""] {
            #expect(RFC3339.dateTime(text) == nil, "\(text)")
        }
        #expect(RFC3339.startOfDay("2023-02-29") == nil)
        #expect(RFC3339.startOfDay("2024-02-29")?.timeIntervalSince1970 == 1_709_164_800)
    }

    @Test("an instant is written in UTC to the microsecond and read back as itself")
    func formatsAndReadsBack() throws {
        let date = Date(timeIntervalSince1970: 1_714_552_200.25)
        #expect(RFC3339.format(date) == "2024-05-01T08:30:00.250000Z")
        #expect(RFC3339.dateTime(RFC3339.format(date)) == date)
    }

    @Test("the city's day: Asia/Shanghai unless CITYTWIN_TIME_ZONE names another; a bad name is refused naming the setting")
    func cityDay() throws {
        let lateUTC = try #require(RFC3339.dateTime("2026-06-17T17:00:00Z"))   // 01:00 on the 18th in Shanghai
        #expect(RFC3339.fullDate(of: lateUTC, in: try CityTime.zone(environment: [:])) == "2026-06-18")
        #expect(RFC3339.fullDate(of: lateUTC, in: try CityTime.zone(environment: [CityTime.variable: "Europe/Berlin"])) == "2026-06-17")
        #expect(RFC3339.fullDate(of: lateUTC, in: try CityTime.zone(environment: [CityTime.variable: ""])) == "2026-06-18")
        let error = #expect(throws: GeometryError.self) { try CityTime.zone(environment: [CityTime.variable: "Mars/Olympus"]) }
        #expect(error?.message.contains(CityTime.variable) == true)
    }

    @Test("the task's clock is the wall clock until a test binds one and moves it")
    func injectableClock() {
        let before = Date()
        #expect(abs(TwinClock.current.now.timeIntervalSince(before)) < 5)
        let clock = TwinClock()
        clock.advance(by: .seconds(3600))
        TwinClock.$current.withValue(clock) {
            #expect(TwinClock.current.now.timeIntervalSince(before) >= 3600)
        }
        #expect(TwinClock.current.now.timeIntervalSince(before) < 3600)
    }
}
