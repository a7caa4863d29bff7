import Foundation

/// Why an import failed, naming the file, the place in it (`row 7`, `feature 3`, `line 12`,
/// `record 5`) and the field when known, so a surveyor can open the file and fix it.
///
/// A struct with a `code` (not an enum) so new kinds of failure can be added without breaking callers.
public struct ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The file cannot be opened or read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// The file's structure is broken (bad header, truncated record, malformed JSON, unknown section).
        public static let malformed = Code(rawValue: "malformed")
        /// A value does not fit its field (not a number, not in the layer schema's enum, …).
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// A geometry is missing, empty or of a type the layer does not store.
        public static let invalidGeometry = Code(rawValue: "invalid-geometry")
        /// The source CRS is unknown or its coordinates cannot be transformed to EPSG:4490.
        public static let crs = Code(rawValue: "crs")
        /// A reference to another record does not resolve (a pipe's S_Exp point, a conduit's node).
        public static let danglingReference = Code(rawValue: "dangling-reference")
        /// The layer already holds a feature of the file (its id, or the key of an upsert, twice).
        public static let duplicate = Code(rawValue: "duplicate")
        /// The file's format or the requested layer is not supported.
        public static let unsupported = Code(rawValue: "unsupported")
    }

    public var code: Code
    /// The file, as the user named it.
    public var file: String
    /// Where in the file: `row 7` (CSV, DBF; data rows counted from 1), `feature 3` (GeoJSON,
    /// GeoPackage, Shapefile; from 1), `line 12` (SWMM, counted from 1 over physical lines).
    public var location: String?
    /// The column, attribute or property involved.
    public var field: String?
    public var reason: String

    public init(_ code: Code, file: String, location: String? = nil, field: String? = nil, _ reason: String) {
        self.code = code
        self.file = file
        self.location = location
        self.field = field
        self.reason = reason
    }

    /// `points.csv, row 7, field depth_m: "abc" is not a number`.
    public var description: String {
        var head = [file]
        if let location { head.append(location) }
        if let field { head.append("field \(field)") }
        return head.joined(separator: ", ") + ": " + reason
    }
}
