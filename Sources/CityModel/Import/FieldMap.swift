import Foundation
import GeoCore
import TwinStore

/// Source field names renamed to the layer's (`--field-map src=dst,...`): a Shapefile's DBF
/// cuts names to 10 characters (`outlet_diameter_mm` arrives as `outlet_dia`), and other
/// departments name their columns their own way. Mapping a field to `id` makes its value the
/// feature id (unless the layer schema has an `id` property of its own).
public struct FieldMap: Sendable, Hashable {
    /// Source name → layer name.
    public private(set) var renames: [String: String]

    public init(_ renames: [String: String] = [:]) {
        self.renames = renames
    }

    /// Parses `src=dst,src2=dst2`: every pair has both names, no source or target twice.
    /// - Throws: `ImportError(.invalidValue)` naming the pair.
    public init(parsing text: String) throws {
        var renames: [String: String] = [:]
        var targets = Set<String>()
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            func fail(_ reason: String) -> ImportError {
                ImportError(.invalidValue, file: "--field-map", field: String(pair), reason)
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw fail("each pair is SOURCE=TARGET, e.g. outlet_dia=outlet_diameter_mm") }
            guard renames[parts[0]] == nil else { throw fail("source field '\(parts[0])' is mapped twice") }
            guard targets.insert(parts[1]).inserted else { throw fail("two source fields map to '\(parts[1])'") }
            renames[parts[0]] = parts[1]
        }
        self.renames = renames
    }

    public var isEmpty: Bool { renames.isEmpty }

    /// Checks that every target is a field of `layer` (or `id`).
    public func check(against layer: LayerDefinition) throws {
        let fields = layer.schema.properties.keys
        for (source, target) in renames.sorted(by: { $0.key < $1.key }) where target != "id" && fields.contains(target) == false {
            throw ImportError(.invalidValue, file: "--field-map", field: "\(source)=\(target)",
                              "layer \(layer.id) has no field '\(target)' (its fields: \(fields.sorted().joined(separator: ", ")))")
        }
    }

    /// `feature` with its properties renamed; a value mapped to `id` becomes the feature id
    /// when `keepsIDProperty` is false (the layer has no `id` property).
    public func apply(to feature: Feature, keepsIDProperty: Bool) -> Feature {
        guard !renames.isEmpty else { return feature }
        var out = feature
        var properties: [String: JSONValue] = [:]
        properties.reserveCapacity(feature.properties.count)
        // Unmapped names first, so a mapped field wins over a source field of the target's name.
        for (name, value) in feature.properties where renames[name] == nil { properties[name] = value }
        for (name, value) in feature.properties {
            guard let target = renames[name] else { continue }
            if target == "id" && !keepsIDProperty {
                switch value {
                case .string(let s) where !s.isEmpty: out.id = .string(s)
                case .integer(let i): out.id = .integer(i)
                case .number(let d) where d.rounded() == d && abs(d) < 9e15: out.id = .integer(Int64(d))
                default: break
                }
                continue
            }
            properties[target] = value
        }
        out.properties = properties
        return out
    }
}

/// A source whose records come out with `map` applied (see `FieldMap`).
public struct FieldMappedSource: FeatureSource {
    public var base: any FeatureSource
    public let map: FieldMap
    let keepsIDProperty: Bool

    public init(_ base: any FeatureSource, map: FieldMap, keepsIDProperty: Bool) {
        self.base = base
        self.map = map
        self.keepsIDProperty = keepsIDProperty
    }

    public var file: URL { base.file }
    public var crs: CoordinateReferenceSystem? { base.crs }
    public var expectedCount: Int? { base.expectedCount }

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        try base.next(upTo: limit).map { SourceRecord(location: $0.location, feature: map.apply(to: $0.feature, keepsIDProperty: keepsIDProperty)) }
    }
}
