import ProcessRuntime

/// A sponge-city input that cannot be used, naming where it is wrong: a rainfall record's row and
/// column (`row 12, column precipitation`), an option (`rate`), or a model's item.
public struct SpongeInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input at fault: `daily-rainfall row 12 column precipitation`, `rate`, `model`.
    public var input: String
    /// Why it was refused, in the reader's words.
    public var reason: String

    public init(_ input: String, _ reason: String) {
        self.input = input
        self.reason = reason
    }

    public var description: String { "\(input): \(reason)" }
}

// A refused input reads as `invalid-input` naming it, through the one error mapping (the server's
// `Problem(mapping:)` and the CLI's `CommandFailure(presenting:)`).
extension SpongeInputError: InputFailure {
    public var failedInput: String { input }
    public var failureReason: String { reason }
}
