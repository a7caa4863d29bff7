import Foundation
import GeoCore

/// A GeoJSON file (a FeatureCollection, a Feature or a bare geometry) or a GeoJSON sequence
/// (RFC 8142 RS-separated or newline-delimited). Coordinates are CRS84 (RFC 7946), which CityTwin
/// treats as the same frame as CGCS2000 EPSG:4490.
///
/// The codec decodes the whole document at once (GeoJSON has no cheap record boundary inside a
/// FeatureCollection); chunks are then handed out from the decoded features.
public struct GeoJSONSource: FeatureSource {
    public let file: URL
    public var crs: CoordinateReferenceSystem? { .crs84 }
    public var expectedCount: Int? { features.count }
    private let features: [Feature]
    private var next = 0

    /// Reads `file`; a sequence when `sequence` is true or the name ends in `.geojsonl`,
    /// `.geojsons`, `.ndjson`, `.jsonl` or `.geojsonseq`.
    /// - Throws: `ImportError` `.malformed` with the decoder's position (`record N: $.features[3]…`).
    public init(file: URL, sequence: Bool? = nil) throws {
        self.file = file
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw ImportError(.unreadable, file: file.lastPathComponent, "cannot read the file: \(error.localizedDescription)")
        }
        let isSequence = sequence ?? Self.sequenceExtensions.contains(file.pathExtension.lowercased())
        do {
            features = isSequence ? try GeoJSON.decodeSequence(data) : try GeoJSON.decode(data).features
        } catch let e as GeometryError {
            throw ImportError(.malformed, file: file.lastPathComponent, location: e.position, e.message)
        }
    }

    /// File extensions read as GeoJSON sequences.
    public static let sequenceExtensions: Set<String> = ["geojsonl", "geojsons", "geojsonseq", "ndjson", "jsonl"]

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        let end = min(features.count, next + limit)
        defer { next = end }
        return (next..<end).map { SourceRecord(location: "feature \($0 + 1)", feature: features[$0]) }
    }
}
