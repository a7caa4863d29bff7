import Foundation
import GeoCore
import TwinStore

/// What an import does with the features a layer already holds (`citytwin import --mode`).
/// Every mode writes in one transaction: the layer gets the whole file or nothing.
public enum ImportMode: Sendable, Hashable {
    /// The default: adds the file's features and refuses, writing nothing, a feature whose id
    /// the layer already holds, or a feature without an id while the layer holds features (it
    /// may well be one of them: importing the same file twice must not double a layer).
    case new
    /// Adds the file's features; those without an id get a new one. An id the layer already
    /// holds is refused.
    case append
    /// The file becomes the layer: features with an id the layer holds replace it, the others
    /// are added, and current features the file does not have end (their history stays).
    case replace
    /// Features whose `key` (a property, or `id`) matches a current feature's replace it and
    /// keep its id; the others are added. Unchanged features write nothing.
    case upsert(key: String)

    /// `append`, `replace`, `upsert` (with `key`), or `nil` for the default (`new`).
    /// - Throws: `ImportError(.invalidValue)` naming `--mode` or `--key`.
    public init(name: String?, key: String?) throws {
        switch name {
        case nil:
            guard key == nil else { throw ImportError(.invalidValue, file: "--key", "--key needs --mode upsert") }
            self = .new
        case "append", "replace":
            guard key == nil else { throw ImportError(.invalidValue, file: "--key", "--key needs --mode upsert, not --mode \(name ?? "")") }
            self = name == "append" ? .append : .replace
        case "upsert":
            self = .upsert(key: key ?? "id")
        default:
            throw ImportError(.invalidValue, file: "--mode", "--mode is append, replace or upsert (default: refuse features the layer may already hold), not '\(name ?? "")'")
        }
    }
}

/// A source that refuses a record without an id (after any field map): for `ImportMode.new`
/// into a layer that already holds `held` features.
struct UnidentifiedRecordGuard<Base: FeatureSource>: FeatureSource {
    var base: Base
    let layer: String
    let held: Int

    var file: URL { base.file }
    var crs: CoordinateReferenceSystem? { base.crs }
    var expectedCount: Int? { base.expectedCount }

    mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        let records = try base.next(upTo: limit)
        if let record = records.first(where: { $0.feature.id == nil }) {
            throw ImportError(.duplicate, file: base.file.lastPathComponent, location: record.location, field: "id",
                              "the feature has no id and layer \(layer) already holds \(held) features, so importing would add "
                              + "copies beside any it already has; nothing written. Choose --mode replace (the file becomes the layer), "
                              + "--mode upsert --key FIELD (match features by a field) or --mode append (add them all)")
        }
        return records
    }
}
