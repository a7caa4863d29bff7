import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `features-in-area`: how many of a layer's features the caller may see lie in an area, which
/// ones, and a summary of chosen properties — "how many shelter places inside this flood
/// polygon, and how many people can they take".
///
/// Inputs: `layer` (a collection id), `area` (a GeoJSON Polygon or MultiPolygon in CRS84
/// lon/lat degrees; CGCS2000 EPSG:4490 coordinates are used as they are, as the two differ by
/// centimetres), `properties` (optional names to summarize) and `relation` (optional:
/// `intersects`, the default, counts features touching the area; `within` only those wholly
/// inside). Outputs: `count`, `ids` (in id order) and `summaries`: per property, for numbers
/// `count`, `sum`, `min`, `max`; for strings `count` and `values` (count per value); plus
/// `missing` (features where the property is absent or null, e.g. masked for the caller).
///
/// The features are read through the store as the caller, so sharing classes, the negative
/// list and attribute masking apply: a redacted attribute is summarized as missing.
public struct FeaturesInArea: TypedProcess {
    public let id = "features-in-area"
    public let version = "1.0.0"
    public let title = "Features in an area"
    public let description = "Counts the features of a layer that intersect (or lie within) a polygon, lists their ids and summarizes chosen properties: sum, minimum and maximum of numbers, counts per value of strings."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "count": ProcessParameter(title: "Count", description: "Number of features in the area.", schema: ["type": "integer", "minimum": 0]),
            "ids": ProcessParameter(title: "Feature ids", description: "Ids of the features in the area, in id order.",
                                    schema: ["type": "array", "items": ["type": "string"]]),
            "summaries": ProcessParameter(title: "Property summaries", description: "Per requested property: count, sum, min, max (numbers); count and values (strings); missing.",
                                          schema: ["type": "object", "additionalProperties": ["type": "object"]]),
        ]
    }

    /// The inputs, read and checked; `properties` is checked against the layer by `check`.
    public struct Input: ProcessInput {
        var layer: String
        var repair: Bool
        var area: Geometry
        var properties: [JSONValue]
        var relation: SpatialPredicate

        public init(from r: ProcessInputReader) throws {
            layer = try r.required("layer", title: "Layer", description: "Id of the collection whose features are counted (a layer with geometry).",
                                   schema: ["type": "string"], placeholder: "") { value in
                guard let layer = value.stringValue, !layer.isEmpty else {
                    throw ProcessInputError("layer", "must be a collection id (a string)")
                }
                return layer
            }
            repair = try r.repair()
            let repair = repair
            area = try r.required("area", title: "Area", description: "The area: a GeoJSON Polygon or MultiPolygon in CRS84 (longitude, latitude in degrees).",
                                  schema: ["type": "object", "required": ["type", "coordinates"],
                                           "properties": ["type": ["type": "string", "enum": ["Polygon", "MultiPolygon"]],
                                                          "coordinates": ["type": "array"]]],
                                  placeholder: .polygon(Polygon(exterior: []))) { try FeaturesInArea.area($0, repair: repair) }
            properties = try r.optional("properties", title: "Properties to summarize",
                                        description: "Property names of the layer; numbers get sum, min and max, strings counts per value.",
                                        schema: ["type": "array", "items": ["type": "string"], "uniqueItems": true]) { value in
                guard let list = value.arrayValue else { throw ProcessInputError("properties", "must be an array of property names") }
                return list
            } ?? []
            relation = try r.optional("relation", title: "Spatial relation",
                                      description: "intersects (default): features touching the area count; within: only features wholly inside it.",
                                      schema: ["type": "string", "enum": ["intersects", "within"], "default": "intersects"]) { value in
                switch value.stringValue {
                case "intersects": return SpatialPredicate.intersects
                case "within": return .within
                default: throw ProcessInputError("relation", "must be 'intersects' or 'within'")
                }
            } ?? .intersects
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: ProcessInputs.unwrap(inputs["layer"])?.stringValue.map { [$0] } ?? [])
    }

    public func check(_ input: Input, store: any FeatureStore, caller: Caller) async throws {
        _ = try await Self.propertyNames(input, store: store, caller: caller)
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let properties = try await Self.propertyNames(input, store: store, caller: caller)
        let query = FeatureQuery(filter: .spatial(input.relation, input.area), properties: properties, limit: 1000)
        let total = try await store.count(layer: input.layer, query, by: caller)
        try await progress.report(0)
        var ids = [String]()
        var summaries = properties.map { PropertySummary(name: $0) }
        var lastReport = 0.0
        for try await feature in store.stream(layer: input.layer, query, by: caller) {
            ids.append(feature.id?.description ?? "")
            for i in summaries.indices { summaries[i].add(feature.properties[summaries[i].name]) }
            let percent = total > 0 ? 100 * Double(ids.count) / Double(total) : 100
            if percent - lastReport >= 5 {
                try await progress.report(min(percent, 99))
                lastReport = percent
            }
        }
        return [
            "count": .integer(Int64(ids.count)),
            "ids": .array(ids.map(JSONValue.string)),
            "summaries": .object(Dictionary(uniqueKeysWithValues: summaries.map { ($0.name, $0.json) })),
        ]
    }

    /// The layer, which must exist with geometry, and the names in `properties`, each a string,
    /// a property of the layer and listed once.
    static func propertyNames(_ input: Input, store: any FeatureStore, caller: Caller) async throws -> [String] {
        let layer = input.layer
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            throw ProcessInputError("layer", "no collection '\(layer)'")
        }
        guard definition.hasGeometry else {
            throw ProcessInputError("layer", "collection '\(layer)' has no geometry")
        }
        var properties = [String]()
        let list = input.properties
        for (i, item) in list.enumerated() {
            guard let name = item.stringValue else {
                throw ProcessInputError("properties", "item \(i) must be a string")
            }
            guard definition.schema.properties[name] != nil else {
                let known = definition.schema.properties.keys.sorted().joined(separator: ", ")
                throw ProcessInputError("properties", "collection '\(layer)' has no property '\(name)' (it has: \(known))")
            }
            guard !properties.contains(name) else { throw ProcessInputError("properties", "'\(name)' is listed twice") }
            properties.append(name)
        }
        return properties
    }

    /// The `area` input as a valid polygon in lon/lat degrees: an invalid one (self-intersecting)
    /// is refused with GEOS's reason unless `repair`, then repaired (see `HazardArea.checked`).
    package static func area(_ value: JSONValue?, repair: Bool = false) throws -> Geometry {
        guard let value, value.objectValue != nil else {
            throw ProcessInputError("area", "must be a GeoJSON Polygon or MultiPolygon object")
        }
        let object: GeoJSONObject
        do {
            object = try GeoJSON.decode(GeoJSON.encodeBytes(value))
        } catch let e as GeometryError {
            let at = e.position.map { " at \($0.replacingOccurrences(of: "$", with: "$.inputs.area"))" } ?? ""
            throw ProcessInputError("area", e.message + at)
        }
        guard case .geometry(let geometry) = object else {
            throw ProcessInputError("area", "must be a GeoJSON geometry, not a feature or collection")
        }
        switch geometry {
        case .polygon, .multiPolygon: break
        default: throw ProcessInputError("area", "must be a Polygon or MultiPolygon")
        }
        guard !geometry.isEmpty else { throw ProcessInputError("area", "is empty") }
        var outside: Position?
        geometry.forEachPosition { p in
            if outside == nil, !(-180...180).contains(p.x) || !(-90...90).contains(p.y) { outside = p }
        }
        if let p = outside {
            throw ProcessInputError("area", "position (\(p.x), \(p.y)) is not a CRS84 longitude, latitude in degrees")
        }
        do {
            return try HazardArea.checked(geometry, repair: repair)
        } catch let e as ScenarioError {
            throw ProcessInputError("area", e.message)
        }
    }
}

/// The running summary of one property over the features in the area.
struct PropertySummary {
    let name: String
    var numbers = 0
    var integerSum: Int64? = 0
    var sum = 0.0
    var minimum: JSONValue?
    var maximum: JSONValue?
    var strings = 0
    var values: [String: Int64] = [:]
    var missing = 0
    var other = 0

    init(name: String) { self.name = name }

    mutating func add(_ value: JSONValue?) {
        switch value {
        case nil, .null?:
            missing += 1
        case .integer(let i)?:
            numbers += 1
            sum += Double(i)
            if let s = integerSum {
                let (r, overflow) = s.addingReportingOverflow(i)
                integerSum = overflow ? nil : r
            }
            note(.integer(i), Double(i))
        case .number(let d)?:
            numbers += 1
            sum += d
            integerSum = nil
            note(.number(d), d)
        case .string(let s)?:
            strings += 1
            values[s, default: 0] += 1
        default:
            other += 1
        }
    }

    private mutating func note(_ value: JSONValue, _ d: Double) {
        if minimum.flatMap(\.doubleValue).map({ d < $0 }) ?? true { minimum = value }
        if maximum.flatMap(\.doubleValue).map({ d > $0 }) ?? true { maximum = value }
    }

    var json: JSONValue {
        var o: [String: JSONValue] = ["missing": .integer(Int64(missing))]
        if numbers > 0 {
            o["count"] = .integer(Int64(numbers))
            o["sum"] = integerSum.map(JSONValue.integer) ?? .number(sum)
            o["min"] = minimum ?? .null
            o["max"] = maximum ?? .null
        }
        if strings > 0 {
            o["count"] = .integer(Int64(numbers + strings))
            o["values"] = .object(values.mapValues(JSONValue.integer))
        }
        if numbers == 0 && strings == 0 { o["count"] = 0 }
        if other > 0 { o["other"] = .integer(Int64(other)) }
        return .object(o)
    }
}
