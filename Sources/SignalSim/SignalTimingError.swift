/// Input a signal-timing computation cannot use, naming the field (a JSON path such as
/// `approaches[2].flows_veh_h.left` or `stages[1][0]`) and the reason.
public struct SignalTimingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The offending field as a JSON-style path.
    public var field: String
    public var reason: String

    public init(field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
