import Foundation
import TwinStore

/// A SensorThings resource path below `/sta/v1.1/` (STA 1.1 §9.2): `Things`, `Things(1)`,
/// `Things(1)/Datastreams`, `Datastreams(1)/Observations`, `Things(1)/name`,
/// `Things(1)/name/$value`, `Things(1)/Datastreams/$ref`.
struct STAPath: Sendable {
    enum Segment: Sendable, Hashable {
        case name(String)
        case entity(String, Int64)
        case value
        case ref
    }

    var segments: [Segment]

    init(_ text: Substring) throws {
        var out = [Segment]()
        for raw in text.split(separator: "/", omittingEmptySubsequences: true) {
            let s = String(raw).removingPercentEncoding ?? String(raw)
            if s == "$value" { out.append(.value); continue }
            if s == "$ref" { out.append(.ref); continue }
            if let open = s.firstIndex(of: "("), s.hasSuffix(")") {
                let name = String(s[..<open])
                var inner = s[s.index(after: open)..<s.index(before: s.endIndex)]
                if inner.hasPrefix("'"), inner.hasSuffix("'"), inner.count >= 2 { inner = inner.dropFirst().dropLast() }
                guard let id = Int64(inner), id > 0 else {
                    throw Problem(.notFound, "'\(s)': an entity id is a positive integer")
                }
                out.append(.entity(name, id))
            } else {
                guard !s.isEmpty, s.allSatisfy({ $0.isLetter || $0.isNumber }) else { throw Problem(.notFound, "no resource '\(s)'") }
                out.append(.name(s))
            }
        }
        segments = out
    }
}

/// What a path addresses, once its navigation steps are resolved against the store.
enum STANode: Sendable {
    case collection(SensingKind, STASource)
    case entity(SensingKind, Int64)
    /// One property of an entity; `raw` for `$value`.
    case property(SensingKind, Int64, String, raw: Bool)
}

/// Where the members of a collection come from.
enum STASource: Sendable {
    case all
    /// Entities whose outgoing link holds an id (a Thing's Datastreams).
    case linked(SensingLink)
    /// The ids an entity's own to-many link holds (a Thing's Locations): `holder` kind, id and link name.
    case ids([Int64], holder: (SensingKind, Int64, String))
    /// Observations of a Datastream or a FeatureOfInterest.
    case observations(ObservationRange)
}

/// Properties each kind has besides its navigation properties (`@iot.id` aside).
enum STAProperties {
    static let of: [SensingKind: [String]] = [
        .thing: ["name", "description", "properties"],
        .location: ["name", "description", "encodingType", "location", "properties"],
        .historicalLocation: ["time"],
        .datastream: ["name", "description", "unitOfMeasurement", "observationType", "observedArea", "phenomenonTime", "resultTime", "properties"],
        .sensor: ["name", "description", "encodingType", "metadata", "properties"],
        .observedProperty: ["name", "definition", "description", "properties"],
        .observation: ["phenomenonTime", "resultTime", "result", "resultQuality", "validTime", "parameters"],
        .featureOfInterest: ["name", "description", "encodingType", "feature", "properties"],
    ]

    /// The properties a create request must give.
    static let required: [SensingKind: [String]] = [
        .thing: ["name", "description"],
        .location: ["name", "description", "encodingType", "location"],
        .historicalLocation: ["time"],
        .datastream: ["name", "description", "unitOfMeasurement", "observationType"],
        .sensor: ["name", "description", "encodingType", "metadata"],
        .observedProperty: ["name", "definition", "description"],
        .observation: ["result"],
        .featureOfInterest: ["name", "description", "encodingType", "feature"],
    ]
}
