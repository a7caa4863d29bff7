import Foundation
import GeoCore
import TwinStore

/// `ImportMode.upsert(key:)`: gives each feature of a file the id of the current feature whose
/// `key` value it shares, so the store's upsert replaces that one instead of adding a copy.
/// `key` is a property name, or `id` for the features' own ids.
struct KeyedUpsert {
    let key: String
    let layer: LayerDefinition
    let file: String

    private func fail(_ location: String?, _ reason: String) -> ImportError {
        ImportError(.duplicate, file: file, location: location, field: key, reason)
    }

    /// `features` with the ids of the current features they match by `key`; unmatched ones
    /// keep their own id (or none: the store makes one).
    /// - Throws: `ImportError` for a feature without a key value, a key value twice in the
    ///   file or held by two current features, or an unmatched feature whose own id belongs to
    ///   a current feature with another key value.
    func identified(_ features: [Feature], store: any FeatureStore, by caller: Caller) async throws -> [Feature] {
        if key == "id" {
            if let i = features.firstIndex(where: { $0.id == nil }) {
                throw fail("feature \(i + 1)", "the feature has no id to upsert by; give --key FIELD (a field of layer \(layer.id))")
            }
            var seen = Set<String>()
            for (i, f) in features.enumerated() where !seen.insert(f.id?.description ?? "").inserted {
                throw fail("feature \(i + 1)", "id \"\(f.id?.description ?? "")\" is in the file twice")
            }
            return features
        }
        guard layer.schema.properties[key] != nil else {
            throw ImportError(.invalidValue, file: "--key", field: key,
                              "layer \(layer.id) has no field '\(key)' (its fields: \(layer.schema.properties.keys.sorted().joined(separator: ", ")))")
        }
        var current: [String: String] = [:]  // key value → feature id
        var currentIDs = Set<String>()
        for try await f in store.stream(layer: layer.id, FeatureQuery(properties: [key], limit: FeatureQuery.maximumLimit), by: caller) {
            guard let id = f.id?.description else { continue }
            currentIDs.insert(id)
            guard let value = f.properties[key].flatMap(Self.text) else { continue }
            if let other = current[value] {
                throw fail(nil, "layer \(layer.id) holds two features with \(key) \"\(value)\" (\(other), \(id)), so the file cannot say which to replace")
            }
            current[value] = id
        }
        var seen = Set<String>()
        return try features.enumerated().map { i, f in
            guard let value = f.properties[key].flatMap(Self.text) else {
                throw fail("feature \(i + 1)", "the feature has no \(key) to upsert by")
            }
            guard seen.insert(value).inserted else { throw fail("feature \(i + 1)", "\(key) \"\(value)\" is in the file twice") }
            var out = f
            if let id = current[value] {
                out.id = .string(id)
            } else if let own = f.id?.description, currentIDs.contains(own) {
                throw fail("feature \(i + 1)", "\(key) \"\(value)\" is new, but the feature's id \"\(own)\" belongs to a feature of layer \(layer.id) with another \(key)")
            }
            return out
        }
    }

    /// A key value as text (numbers without a fraction as integers: `12` and `12.0` match).
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): s.isEmpty ? nil : s
        case .integer(let i): String(i)
        case .number(let d): d.rounded() == d && abs(d) < 9e15 ? String(Int64(d)) : String(d)
        case .bool(let b): String(b)
        default: nil
        }
    }
}
