import Foundation
import GeoCore

/// The instants a scenario and its runs are stamped with, as RFC 3339 text: a scenario's base
/// and start (`Scenario`), a flood run's times and time steps.
public enum ScenarioInstant {
    /// An RFC 3339 instant, or nil.
    public static func instant(_ text: String) -> Date? {
        RFC3339.dateTime(text)
    }

    /// `date` as RFC 3339 in UTC, to the millisecond when it is not a whole second
    /// (`2026-07-01T08:00:00Z`, `2026-07-01T08:00:00.125Z`): a base map instant read back is the
    /// instant written, so a scenario created just after an edit sees that edit.
    public static func instantText(_ date: Date) -> String {
        guard date.timeIntervalSince1970.rounded(.down) != date.timeIntervalSince1970 else { return text(date) }
        // The formatter truncates to the millisecond, and a millisecond such as .001 is held in
        // binary a hair below it (….000999…, doubles near 1.8e9 s are 0.24 µs apart): the instant is
        // taken to its nearest millisecond and 0.4 ms past it, so the text names that millisecond.
        let millisecond = (date.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: (millisecond + 0.4) / 1000).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// `date` as RFC 3339 in UTC with seconds (`2026-07-01T08:00:00Z`).
    public static func text(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
