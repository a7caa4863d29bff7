/// The one error type of the Tiles module: what went wrong with a tile request or a tile's
/// bytes, with the offending input named in `message`.
public struct TileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A closed set of reasons that callers map to HTTP statuses.
    public enum Code: String, Hashable, Sendable {
        /// No tile matrix set with that identifier (HTTP 404).
        case unknownTileMatrixSet
        /// A tile matrix (level), row or column outside the matrix set (HTTP 404).
        case outsideMatrix
        /// A position or envelope that is not finite or not in the matrix set's domain (HTTP 400).
        case invalidArgument
        /// Bytes that are not a valid Mapbox Vector Tile 2.1 (decoder only).
        case malformedTile
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
