/// Input a parking computation cannot use, naming the field (a JSON-style path such as
/// `lots[3].capacity` or `observations[12].occupied`) and the reason.
public struct ParkingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending field as a JSON-style path.
    public var field: String
    public var reason: String

    public init(field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
