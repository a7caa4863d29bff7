import Foundation

/// Why a file could not be read as vectors or a raster. Names the file (never a server path
/// beyond the name a caller gave) and, where one is at fault, the layer, feature or band; the
/// reason is GDAL's first line at most, never the file's contents.
public struct DataSourceError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The file is missing, unreadable, or no GDAL driver recognises it.
        case unreadable
        /// It was recognised but is not what was asked for (a raster opened as vectors, no such layer).
        case unsupported
        /// A driver reported a damaged part while reading.
        case malformed
    }

    public var code: Code
    /// The file's name as the caller gave it (its last path component).
    public var file: String
    /// `layer roads`, `feature 12`, `band 1`.
    public var location: String?
    /// The attribute at fault, when one is.
    public var field: String?
    public var reason: String

    public init(_ code: Code, file: String, location: String? = nil, field: String? = nil, _ reason: String) {
        self.code = code
        self.file = file
        self.location = location
        self.field = field
        self.reason = reason
    }

    public var description: String {
        [file, location, field.map { "field \($0)" }].compactMap { $0 }.joined(separator: ", ") + ": " + reason
    }
}
