/// A feature identifier: GeoJSON allows a string or a number.
public enum FeatureID: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(Int64)

    public var description: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        }
    }
}

/// A spatial feature: an optional geometry, properties, and an optional id. This is the one
/// feature type of CityTwin: codecs read and write it, the store keeps it, APIs serve it.
public struct Feature: Hashable, Sendable {
    public var id: FeatureID?
    public var geometry: Geometry?
    public var properties: [String: JSONValue]

    public init(id: FeatureID? = nil, geometry: Geometry?, properties: [String: JSONValue] = [:]) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
    }
}

/// An ordered set of features, as GeoJSON's FeatureCollection.
public struct FeatureCollection: Hashable, Sendable {
    public var features: [Feature]
    public init(_ features: [Feature]) { self.features = features }
}
