import GeoCore

/// One target of a nearest-N query.
public struct ReachedTarget: Sendable, Hashable {
    /// Index into the caller's target list.
    public var index: Int
    /// Travel time in seconds.
    public var seconds: Double
    /// The route, when requested.
    public var route: Route?
}

extension RoadGraph {
    /// Travel times (seconds) from `origin` to each target; `nil` for unreachable targets.
    /// One PHAST sweep (or one Dijkstra with closures) serves all targets.
    public func travelTimes(from origin: EdgePosition, to targets: [EdgePosition],
                            avoiding closures: RoadClosures = .none) -> [Double?] {
        travelTimes(from: RoadAccess(origin), to: targets.map(RoadAccess.init), avoiding: closures)
    }

    /// Travel times (seconds) from the best of `origin`'s tied road positions to the best of each
    /// target's (see `RoadAccess`); `nil` for unreachable targets. One search serves all targets.
    public func travelTimes(from origin: RoadAccess, to targets: [RoadAccess],
                            avoiding closures: RoadClosures = .none) -> [Double?] {
        let tree = tree(from: origin.positions, closures: closures)
        return targets.map { arrival(at: $0.positions, from: origin.positions, tree: tree, closures: closures)?.seconds }
    }

    /// A travel-time matrix (seconds): row `i` holds the times from `origins[i]` to every target.
    public func travelTimeMatrix(from origins: [EdgePosition], to targets: [EdgePosition],
                                 avoiding closures: RoadClosures = .none) -> [[Double?]] {
        origins.map { travelTimes(from: $0, to: targets, avoiding: closures) }
    }

    /// A travel-time matrix (seconds) between points met at their tied road positions.
    public func travelTimeMatrix(from origins: [RoadAccess], to targets: [RoadAccess],
                                 avoiding closures: RoadClosures = .none) -> [[Double?]] {
        origins.map { travelTimes(from: $0, to: targets, avoiding: closures) }
    }

    /// The `count` targets fastest to reach from `origin`, fastest first (ties by index), with
    /// routes when `withRoutes`. The caller filters candidates (category, capacity, status)
    /// before passing them; unreachable targets are left out.
    public func nearest(from origin: EdgePosition, targets: [EdgePosition], count: Int,
                        avoiding closures: RoadClosures = .none, withRoutes: Bool = true) -> [ReachedTarget] {
        nearest(from: RoadAccess(origin), targets: targets.map(RoadAccess.init), count: count, avoiding: closures,
                withRoutes: withRoutes)
    }

    /// The same between points met at their tied road positions (see `RoadAccess`): a target is
    /// reached through the best of its positions.
    /// `selection`: `sweepSelection(reaching:)` of these targets or of a set holding them, made once
    /// by a caller that searches them again (made here when nil).
    public func nearest(from origin: RoadAccess, targets: [RoadAccess], count: Int,
                        avoiding closures: RoadClosures = .none, withRoutes: Bool = true, sweeping selection: [Int32]? = nil) -> [ReachedTarget] {
        guard count > 0, !targets.isEmpty else { return [] }
        // Without closures, the hierarchy is swept only above the targets (RPHAST).
        let selection = closures.isEmpty ? (selection ?? sweepSelection(reaching: targets)) : nil
        let tree = tree(from: origin.positions, closures: closures, sweeping: selection)
        var reached: [ReachedTarget] = []
        for (i, t) in targets.enumerated() {
            if let a = arrival(at: t.positions, from: origin.positions, tree: tree, closures: closures) {
                reached.append(ReachedTarget(index: i, seconds: a.seconds, route: nil))
            }
        }
        reached.sort { ($0.seconds, $0.index) < ($1.seconds, $1.index) }
        var best = Array(reached.prefix(count))
        if withRoutes {
            for k in best.indices {
                best[k].route = route(to: targets[best[k].index].positions, tree: tree, closures: closures)
            }
        }
        return best
    }
}
