import ArgumentParser
import Server
import TwinStore

/// A command that ran and failed (as opposed to a command line that is wrong, which is a
/// `ValidationError` and prints the usage): the reason alone, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// THE CLI's error mapping, beside the HTTP one and in its words: an error the API shows its
    /// caller reads as the problem's `detail` (`Problem(mapping:)`), so a command and a request
    /// that fail on the same error say the same thing; `context` (the file or step at fault) goes
    /// before it. An error the API keeps in its log (a fault of the store or the system) shows
    /// its own text here, where the operator who runs the command is the one who reads it.
    init(presenting error: any Error, in context: String? = nil) {
        let prefix = context.map { "\($0): " } ?? ""
        self.init(prefix + Self.words(error))
    }

    /// Any error a command let escape, as it is shown: the mapped `CommandFailure` for a typed
    /// error of a module; the command line's own errors (ArgumentParser's, `ValidationError`,
    /// `ExitCode`, `CleanExit`, a `CommandFailure` already worded) pass through unchanged.
    static func presenting(_ error: any Error) -> any Error {
        if error is CommandFailure || error is ValidationError || error is ExitCode || error is CleanExit { return error }
        let problem = Problem(mapping: error)
        guard problem.kind == .internalError, !(error is Problem) else { return CommandFailure(problem.detail) }
        if let e = error as? StoreError { return CommandFailure(e.message) }
        return error
    }

    private static func words(_ error: any Error) -> String {
        switch presenting(error) {
        case let failure as CommandFailure: failure.description
        case let other: String(describing: other)
        }
    }
}
