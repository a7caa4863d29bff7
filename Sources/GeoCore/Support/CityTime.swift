import Foundation

/// The city's civil time zone: whose calendar day "today" is (the turn restrictions in force).
/// One named setting, the environment variable `CITYTWIN_TIME_ZONE` (an IANA identifier such as
/// `Asia/Shanghai` or `Europe/Berlin`); unset, the sample district's `Asia/Shanghai` (UTC+8).
public enum CityTime {
    /// The setting's name.
    public static let variable = "CITYTWIN_TIME_ZONE"
    /// The zone when the setting is unset or empty: the sample district's.
    public static let defaultIdentifier = "Asia/Shanghai"

    /// The city's time zone from `environment` (the process's by default).
    /// - Throws: `GeometryError.invalidArgument` naming the setting when it names no time zone.
    public static func zone(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TimeZone {
        let identifier = environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultIdentifier
        guard let zone = TimeZone(identifier: identifier) else {
            throw GeometryError(.invalidArgument, "\(variable): '\(identifier)' is not an IANA time zone (e.g. Asia/Shanghai)")
        }
        return zone
    }

    /// The process's setting, read once, for formatters that stamp local times (`…+08:00` for the
    /// sample district). A setting that names no zone gives the default here; `zone()` is where
    /// a command that depends on the calendar reports it.
    public static let current: TimeZone = (try? zone()) ?? TimeZone(identifier: defaultIdentifier)!
}
