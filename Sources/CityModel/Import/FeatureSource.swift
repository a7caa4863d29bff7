import Foundation
import GeoCore

/// One feature as a reader found it, with where it came from (for error messages).
public struct SourceRecord: Sendable {
    /// `row 7`, `feature 3`, `line 12`: the place `ImportError.location` names.
    public var location: String
    /// Geometry in the source CRS; properties as read (CSV gives strings, typed by the importer).
    public var feature: Feature

    public init(location: String, feature: Feature) {
        self.location = location
        self.feature = feature
    }
}

/// A file format reader: yields the features of one file in bounded chunks, in the file's own
/// CRS. The importer (`LayerImport`) transforms them to EPSG:4490, types and validates them
/// against the layer schema, and writes them in one transaction.
public protocol FeatureSource {
    /// The file being read (named in every `ImportError`).
    var file: URL { get }
    /// The CRS of the coordinates when the file says (GeoJSON: CRS84; a `.prj`; a GeoPackage
    /// `srs_id`); `nil` when it does not (CSV), so the importer falls back to `--source-crs`.
    var crs: CoordinateReferenceSystem? { get }
    /// The number of features when the file's header tells it (for the progress bar).
    var expectedCount: Int? { get }
    /// The next at most `limit` features; an empty array at the end of the file.
    mutating func next(upTo limit: Int) throws -> [SourceRecord]
}

extension FeatureSource {
    /// The file name used in errors.
    var fileName: String { file.lastPathComponent }

    func error(_ code: ImportError.Code, _ location: String? = nil, field: String? = nil, _ reason: String) -> ImportError {
        ImportError(code, file: fileName, location: location, field: field, reason)
    }
}
