/// An error from the geometry core. A struct (not an enum) so new codes can be added
/// without breaking callers; `message` is what GEOS, PROJ or a codec said, and `position`
/// names where in the input the problem is (a character offset, byte offset or JSON path).
public struct GeometryError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// GEOS reported an error (a NULL, 2 or -1 sentinel).
        public static let geos = Code(rawValue: "geos")
        /// The input text or bytes could not be parsed (WKT, WKB, GeoJSON, ESRI ASCII grid).
        public static let parse = Code(rawValue: "parse")
        /// The geometry is structurally invalid for the requested operation
        /// (unclosed ring, too few points, non-finite coordinate, nesting too deep).
        public static let invalidGeometry = Code(rawValue: "invalid-geometry")
        /// PROJ could not build or run a transformation, or the CRS is unknown.
        public static let crs = Code(rawValue: "crs")
        /// An argument was out of its documented range.
        public static let invalidArgument = Code(rawValue: "invalid-argument")
    }

    public var code: Code
    public var message: String
    /// Where the problem is: e.g. `"offset 17"`, `"byte 9"`, `"$.features[3].geometry.coordinates"`.
    public var position: String?

    public init(_ code: Code, _ message: String, position: String? = nil) {
        self.code = code
        self.message = message
        self.position = position
    }

    public var description: String {
        if let position { return "\(code): \(message) (at \(position))" }
        return "\(code): \(message)"
    }
}
