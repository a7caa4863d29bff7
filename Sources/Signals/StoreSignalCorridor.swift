import Foundation
import GeoCore
import CityModel
import ProcessRuntime
import SignalSim
import TwinStore

/// A coordinated corridor as the store holds it (`signal_corridors`): its intersections in
/// outbound order with the links between them, ready for `CorridorTiming`.
public struct StoreSignalCorridor: Sendable {
    public static let layer = "signal_corridors"

    public let id: String
    public let name: String?
    public let intersections: [SignalizedIntersection]
    public let links: [CorridorLink]
    /// The approach (N, S, E, W) outbound and inbound traffic arrives on.
    public let outboundApproach: String
    public let inboundApproach: String

    /// Reads corridor `id` and its intersections.
    /// - Throws: `ScenarioError` `.invalidArgument` (field `corridor`) for an unknown id,
    ///   `.invalidDistrict` naming the property for a corridor the kernel cannot use.
    public static func load(id: String, from store: any FeatureStore, by caller: Caller) async throws -> StoreSignalCorridor {
        guard let feature = try await store.feature(layer: layer, id: id, by: caller) else {
            throw ScenarioError(.invalidArgument, "no signal corridor '\(id)' in \(layer)", field: "corridor")
        }
        let p = feature.properties
        func bad(_ property: String, _ reason: String) -> ScenarioError {
            ScenarioError(.invalidDistrict, "\(layer)/\(id): \(property) \(reason)", field: property)
        }
        guard let ids = p["intersections"]?.arrayValue?.compactMap(\.stringValue), ids.count >= 2 else {
            throw bad("intersections", "must list at least two signalized_intersections ids")
        }
        guard let distances = p["distances_m"]?.arrayValue?.compactMap(\.doubleValue), distances.count == ids.count - 1 else {
            throw bad("distances_m", "must give one distance per pair of consecutive intersections")
        }
        guard let kmh = p["design_speed_kmh"]?.doubleValue, kmh > 0 else { throw bad("design_speed_kmh", "must be a positive speed") }
        guard let outbound = p["outbound_approach"]?.stringValue, let inbound = p["inbound_approach"]?.stringValue else {
            throw bad("outbound_approach", "and inbound_approach are required")
        }
        var intersections: [SignalizedIntersection] = []
        for sid in ids {
            guard let intersection = try await SignalizedIntersection.load(id: sid, from: store, by: caller) else {
                throw bad("intersections", "names \(sid), which is not in \(SignalizedIntersection.layer)")
            }
            intersections.append(intersection)
        }
        return StoreSignalCorridor(id: id, name: p["name"]?.stringValue, intersections: intersections,
                                   links: distances.map { CorridorLink(length: $0, outboundSpeed: kmh / 3.6) },
                                   outboundApproach: outbound, inboundApproach: inbound)
    }

    /// The corridor's intersections for `CorridorTiming` with `demands` (one per intersection, in
    /// order): the coordinated lane groups are those serving the through movement of the
    /// outbound and inbound approaches.
    public func coordinated(_ demands: [IntersectionDemand]) throws -> [CorridorIntersection] {
        try zip(intersections, demands).map { intersection, demand in
            func through(_ approach: String) throws -> String {
                guard let group = intersection.laneGroups.first(where: { $0.approach == approach && $0.movements.contains("through") }) else {
                    throw ScenarioError(.invalidDistrict, "\(Self.layer)/\(id): \(intersection.id) has no through lane group on approach \(approach)",
                                        field: "outbound_approach")
                }
                return group.id
            }
            return CorridorIntersection(demand: demand, outboundApproach: try through(outboundApproach),
                                        inboundApproach: try through(inboundApproach))
        }
    }
}
