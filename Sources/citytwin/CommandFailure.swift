/// A command that ran and failed (as opposed to a command line that is wrong, which is a
/// `ValidationError` and prints the usage): the reason alone, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
