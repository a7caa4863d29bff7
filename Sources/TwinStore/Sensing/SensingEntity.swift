import Foundation
import GeoCore

/// The entity types of the OGC SensorThings API 1.1 Part 1 (Sensing) data model.
public enum SensingKind: String, CaseIterable, Sendable, Hashable {
    case thing = "Thing"
    case location = "Location"
    case historicalLocation = "HistoricalLocation"
    case datastream = "Datastream"
    case sensor = "Sensor"
    case observedProperty = "ObservedProperty"
    case observation = "Observation"
    case featureOfInterest = "FeatureOfInterest"

    /// The entity set name in URLs: `Things`, `ObservedProperties`, `FeaturesOfInterest`.
    public var entitySet: String {
        switch self {
        case .thing: "Things"
        case .location: "Locations"
        case .historicalLocation: "HistoricalLocations"
        case .datastream: "Datastreams"
        case .sensor: "Sensors"
        case .observedProperty: "ObservedProperties"
        case .observation: "Observations"
        case .featureOfInterest: "FeaturesOfInterest"
        }
    }

    public init?(entitySet: String) {
        guard let k = SensingKind.allCases.first(where: { $0.entitySet == entitySet }) else { return nil }
        self = k
    }
}

/// One entity other than an Observation: its own properties (`name`, `description`,
/// `encodingType`, `location`, `unitOfMeasurement`, …, as JSON) and its outgoing links.
///
/// Outgoing links are the navigation properties the entity holds itself: a Datastream's
/// `Thing`, `Sensor` and `ObservedProperty`; a Thing's `Locations`; a HistoricalLocation's
/// `Thing` and `Locations`. The reverse ones (a Thing's `Datastreams`) are queries on links.
public struct SensingEntity: Sendable, Hashable {
    public var kind: SensingKind
    public var id: Int64
    public var body: [String: JSONValue]
    /// Navigation property name → ids of the linked entities.
    public var links: [String: [Int64]]

    public init(kind: SensingKind, id: Int64, body: [String: JSONValue], links: [String: [Int64]] = [:]) {
        self.kind = kind
        self.id = id
        self.body = body
        self.links = links
    }

    /// The one id a to-one link holds (`Thing` of a Datastream).
    public func link(_ name: String) -> Int64? { links[name]?.first }
}

/// One observation: a row of the observation table, indexed by (datastream, phenomenon start).
/// Times are microseconds since 1970 UTC, the store's time unit.
public struct SensingObservation: Sendable, Hashable {
    public var id: Int64
    public var datastream: Int64
    public var featureOfInterest: Int64?
    public var phenomenonStart: Int64
    /// The end of a phenomenon interval; `nil` for an instant.
    public var phenomenonEnd: Int64?
    public var resultTime: Int64?
    public var result: JSONValue
    public var resultQuality: JSONValue?
    public var validStart: Int64?
    public var validEnd: Int64?
    public var parameters: JSONValue?

    public init(id: Int64, datastream: Int64, featureOfInterest: Int64? = nil, phenomenonStart: Int64, phenomenonEnd: Int64? = nil,
                resultTime: Int64? = nil, result: JSONValue, resultQuality: JSONValue? = nil,
                validStart: Int64? = nil, validEnd: Int64? = nil, parameters: JSONValue? = nil) {
        self.id = id
        self.datastream = datastream
        self.featureOfInterest = featureOfInterest
        self.phenomenonStart = phenomenonStart
        self.phenomenonEnd = phenomenonEnd
        self.resultTime = resultTime
        self.result = result
        self.resultQuality = resultQuality
        self.validStart = validStart
        self.validEnd = validEnd
        self.parameters = parameters
    }

    /// Whether `other` says the same thing (a re-sent observation): everything but the id and
    /// the FeatureOfInterest. The server generates that from the Thing's Location, and the first
    /// writes of a burst, racing, may each have generated one: a gateway re-sending a reading it
    /// got no answer for must get the stored one back, not a conflict.
    public func sameReading(as other: SensingObservation) -> Bool {
        var o = other
        o.id = id
        o.featureOfInterest = featureOfInterest
        return o == self
    }
}

/// Where the navigation properties live: which kind holds the link, under which name, and
/// whether the other end sees one or many.
public enum SensingNavigation {
    /// Kind → its outgoing links (name → target kind, to-many?).
    public static let outgoing: [SensingKind: [String: (SensingKind, Bool)]] = [
        .thing: ["Locations": (.location, true)],
        .historicalLocation: ["Thing": (.thing, false), "Locations": (.location, true)],
        .datastream: ["Thing": (.thing, false), "Sensor": (.sensor, false), "ObservedProperty": (.observedProperty, false)],
        // Internal: the Location a FeatureOfInterest was generated from (STA 1.1 §8.2.7), so the
        // next observation of a Thing at that Location reuses it. Not a navigation property.
        .featureOfInterest: ["_Location": (.location, false)],
    ]

    /// Kind → navigation name → (target kind, the target's outgoing link that points back, to-many?)
    /// for the reverse links (a Thing's Datastreams are Datastreams whose `Thing` is the Thing).
    public static let incoming: [SensingKind: [String: (SensingKind, String)]] = [
        .thing: ["Datastreams": (.datastream, "Thing"), "HistoricalLocations": (.historicalLocation, "Thing")],
        .location: ["Things": (.thing, "Locations"), "HistoricalLocations": (.historicalLocation, "Locations")],
        .sensor: ["Datastreams": (.datastream, "Sensor")],
        .observedProperty: ["Datastreams": (.datastream, "ObservedProperty")],
    ]

    /// Every navigation property of a kind, observations included: name → (target, to-many?).
    public static func properties(of kind: SensingKind) -> [String: (SensingKind, Bool)] {
        var out = (outgoing[kind] ?? [:]).filter { !$0.key.hasPrefix("_") }
        for (name, (target, _)) in incoming[kind] ?? [:] { out[name] = (target, true) }
        switch kind {
        case .datastream: out["Observations"] = (.observation, true)
        case .featureOfInterest: out["Observations"] = (.observation, true)
        case .observation:
            out["Datastream"] = (.datastream, false)
            out["FeatureOfInterest"] = (.featureOfInterest, false)
        default: break
        }
        return out
    }
}
