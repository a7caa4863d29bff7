import Foundation

/// A filter that cannot be used: malformed CQL2 text or JSON, an unknown property, a literal of
/// the wrong type, or a CQL2 feature CityTwin does not support.
///
/// `message` is the whole sentence a client sees (e.g. "expected ')' at offset 27, found 'AND'");
/// `position` says where: `"offset 27"` (a character offset, counted in Unicode scalars, in
/// cql2-text) or a JSON path such as `"$.args[1].args[0]"` (cql2-json); `token` is the offending
/// input (a keyword, a property name, a literal) or `nil` at the end of the input.
public struct CQLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var position: String
    public var token: String?

    public init(_ message: String, position: String, token: String? = nil) {
        self.message = message
        self.position = position
        self.token = token
    }

    public var description: String { message }
}
