/// A road-graph input out of range, or a query the graph cannot answer (no open road to snap
/// to), naming the field at fault (`breaks[1]`, `lines[3].speedKmh`, `from`): the road kernels'
/// own error. Bad geometry stays a `GeometryError`.
public struct RoadNetworkError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// The input at fault.
    public var field: String?

    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }

    public var description: String { field.map { "\(message) (\($0))" } ?? message }
}
