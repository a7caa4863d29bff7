import NetworkAnalysis

/// Why no route joins two road positions once some roads are closed, in the words the hazard
/// overlay and the `route` process both answer with.
enum RouteUnavailable {
    /// - Parameters:
    ///   - connectedWhenOpen: whether a route exists with every road open.
    ///   - area: how the closed area is named ("the hazard area", "avoidArea").
    ///   - around: what a detour goes around ("the hazard", "avoidArea").
    static func reason(from a: RoadAccess, to b: RoadAccess, closures: RoadClosures, connectedWhenOpen: Bool,
                       profile: TravelProfile, area: String, around: String) -> String {
        guard connectedWhenOpen else {
            return "'from' and 'to' are not connected by the \(profile.name) road network even with every road open"
        }
        let closed = [(a, "from"), (b, "to")].filter { end in end.0.positions.allSatisfy { closures.contains($0.piece) } }.map { "'\($0.1)'" }
        return closed.isEmpty
            ? "no way around \(around): every route from 'from' to 'to' crosses a road it closes"
            : "the road at \(closed.joined(separator: " and ")) is inside \(area) (closed), so no route avoids the closures"
    }
}
