/// Why a map could not be drawn, with the offending input: a style the renderer does not
/// understand, a request it cannot draw, or a failure of cairo, pango or an encoder.
public struct MapRenderingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The style has a value or expression the renderer does not read.
        case style
        /// The map asked for is not drawable (size, bbox, CRS, format).
        case request
        /// Cairo, pango or the image encoder failed.
        case drawing
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
