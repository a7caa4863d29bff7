import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TwinStore

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

/// The state an analysis answers against (issue 77): inputs `conditions`, `at` and `vehicle`.
package struct ConditionsInput: Sendable {
    package var selection: CityConditions.Selection
    package var at: Date?
    /// The vehicle class named, nil for the process's default.
    package var vehicle: VehicleClass?

    /// The conditions in the store as `caller` sees them.
    package func load(store: any FeatureStore, by caller: Caller) async throws -> CityConditions {
        do {
            return try await CityConditions.load(selection, at: at, store: store, by: caller)
        } catch let e as ScenarioError where e.field == "conditions" {
            throw ProcessInputError("conditions", e.message)
        }
    }

    /// The vehicle class of a request travelling by `profile` (`fallback` when none is named and
    /// the profile is driving).
    /// - Throws: `ProcessInputError` naming `vehicle` when the class does not travel by `profile`.
    package func vehicle(for profile: TravelProfile, default fallback: VehicleClass = .car) throws -> VehicleClass {
        guard let vehicle else { return profile == .walking ? .walking : fallback }
        guard vehicle.profile == profile else {
            throw ProcessInputError("vehicle", "\(vehicle.id) travels \(vehicle.profile.name), not \(profile.name): give profile \(vehicle.profile.name) or another vehicle")
        }
        return vehicle
    }
}

extension ProcessInputReader {
    /// `conditions` (`current`, default; `none`; a flood run id), `at` (RFC 3339, default the
    /// request's time) and `vehicle` (`fire_engine`, `car`, `walking`).
    package func conditions(vehicleDefault: String) throws -> ConditionsInput {
        let text = try optionalString(
            "conditions", title: "Conditions",
            description: """
                The state of the city to answer against: 'current' (default: the flood run published as current and the \
                road closures in force at 'at'), 'none' (the dry city) or a flood run id (GET /flood-runs) for a what-if. \
                The answer's 'conditions' names the state used.
                """,
            schema: ["type": "string", "default": "current", "examples": ["current", "none"]])
        let selection = try CityConditions.Selection.parse(text)
        let at = try optionalString("at", title: "At", description: "The instant (RFC 3339) the conditions hold at; default now.",
                                    schema: ["type": "string", "format": "date-time"]).map { text -> Date in
            guard let d = ScenarioInstant.instant(text) else { throw ProcessInputError("at", "must be an RFC 3339 instant, e.g. 2026-07-01T08:00:00Z") }
            return d
        }
        let ids = VehicleClass.all.map(\.id)
        let vehicle = try optionalString(
            "vehicle", title: "Vehicle class",
            description: """
                Who travels: fire_engine (closed by water deeper than 0.50 m), car (0.30 m) or walking (0.25 m); shallower \
                water slows vehicles by Pregnolato et al. 2017 (docs/capabilities/emergency.md). Default \(vehicleDefault).
                """,
            schema: ["type": "string", "enum": .array(ids.map(JSONValue.string))]).map { id -> VehicleClass in
            guard let v = VehicleClass.named(id) else { throw ProcessInputError("vehicle", "must be one of \(ids.joined(separator: ", ")), got '\(id)'") }
            return v
        }
        return ConditionsInput(selection: selection, at: at, vehicle: vehicle)
    }
}
