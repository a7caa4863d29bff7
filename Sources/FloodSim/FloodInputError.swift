/// A flood kernel's input out of range or inconsistent, naming the field at fault
/// (`settings.cflFactor`, `links[3]`, `breakpoint 2`): a kernel's own error, not a geometry one.
public struct FloodInputError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// The input at fault, as a path into the kernel's arguments.
    public var field: String?

    public init(_ message: String, field: String? = nil) {
        self.message = message
        self.field = field
    }

    public var description: String { field.map { "\(message) (\($0))" } ?? message }
}
