import GeoCore
import NetworkAnalysis
import ProcessRuntime

/// The emergency analyses' travel profile schema and off-network resources as JSON.
extension ProcessInputs {
    /// An off-network resource as JSON.
    package static func json(_ r: OffRoadResource) -> JSONValue {
        ["layer": .string(r.resource.layer), "id": .string(r.resource.id), "name": r.resource.name.map(JSONValue.string) ?? .null,
         "access_metres": number(r.accessMetres), "reason": .string(r.reason)]
    }

    package static let profileSchema: JSONValue = ["type": "string", "enum": ["driving", "walking"], "default": "driving"]
}

/// The emergency analyses' fields as a `ProcessInput` reads them.
extension ProcessInputReader {
    /// `maximumSnapMetres` (0…10000, default `StoreRoadGraph.defaultMaximumSnapMetres`, 500 m).
    package func maximumSnapMetres() throws -> Double {
        try number("maximumSnapMetres", title: "Maximum snap distance",
                   description: """
                       How far in metres a point (incident, origin, resource) may lie from the nearest road and still be \
                       routed (0…10000, default 500); a point beyond it is refused, a resource beyond it is listed as off \
                       the network.
                       """,
                   in: 0...10_000, default: StoreRoadGraph.defaultMaximumSnapMetres)
    }

    /// `profile`: `driving` (default) or `walking` (also `drive`, `car`, `walk`, `foot`, any case).
    package func profile(description: String) throws -> TravelProfile {
        guard let s = try optionalString("profile", title: "Travel profile", description: description,
                                         schema: ProcessInputs.profileSchema) else { return .driving }
        guard let p = TravelProfile.named(s) else { throw ProcessInputError("profile", "must be 'driving' or 'walking', got '\(s)'") }
        return p
    }
}
