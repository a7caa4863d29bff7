import GeoCore
import NetworkAnalysis

/// A coverage standard: who travels, and how far in time they may go.
public struct CoverageStandard: Sendable, Hashable {
    public var profile: TravelProfile
    /// The limit in seconds of travel along the roads.
    public var limitSeconds: Double

    public init(profile: TravelProfile, limitSeconds: Double) {
        self.profile = profile
        self.limitSeconds = limitSeconds
    }

    /// 建标152-2017: a fire engine reaches its district within 5 minutes of dispatch (driving, 300 s).
    public static let fireStation = CoverageStandard(profile: .driving, limitSeconds: 300)

    /// GB 51143 紧急 shelters: within `metres` (default 500 m) walk along the roads, at the
    /// walking profile's 5 km/h (500 m = 360 s).
    public static func shelterWalk(metres: Double = 500) -> CoverageStandard {
        CoverageStandard(profile: .walking, limitSeconds: metres / ((TravelProfile.walking.fixedSpeedKmh ?? 5) / 3.6))
    }

    /// The limit as a distance when the profile has a fixed speed (walking), else `nil`.
    public var limitMetres: Double? { profile.fixedSpeedKmh.map { limitSeconds * $0 / 3.6 } }
}

/// Which demand points a set of facilities reaches within a standard: for each point the fastest
/// facility and its time. Travel runs from the facility to the point (the engine drives out; a
/// walk is the same both ways), between their road positions (the nearest positions on open
/// roads, ties included: see `RoadAccess`); the straight access stretch from a point to its road
/// is not counted. A facility or point farther than `maximumSnapMetres` from every road is off
/// the network: such a facility covers nothing (listed in `offRoadFacilities` with the reason)
/// and such a point is not covered (counted in `offRoadDemand`).
public struct FacilityCoverage: Sendable {
    public let standard: CoverageStandard
    public let facilities: [EmergencyResource]
    public let demand: [DemandPoint]
    /// Seconds from the fastest facility, `nil` when none reaches the point at all.
    public let bestSeconds: [Double?]
    /// Index into `facilities` of the fastest one.
    public let bestFacility: [Int?]
    /// The maximum snap distance applied (metres).
    public let maximumSnapMetres: Double
    /// Straight metres from each facility to its road position (`nil`: no open road).
    public let facilitySnapMetres: [Double?]
    /// Facilities off the network, with the reason; they cover nothing.
    public let offRoadFacilities: [OffRoadResource]
    /// Indices of demand points off the network (never covered).
    public let offRoadDemand: [Int]
    /// Road access of each demand point (`nil` when off the network).
    let demandEdges: [RoadAccess?]

    /// One one-to-all search per facility (PHAST on the road graph's hierarchy).
    /// - Parameter maximumSnapMetres: the farthest a facility or demand point may lie from the roads.
    /// - Throws: `GeometryError` from reprojection.
    public init(facilities: [EmergencyResource], demand: [DemandPoint], roads: StoreRoadGraph,
                standard: CoverageStandard, avoiding closures: RoadClosures = .none,
                maximumSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres) throws {
        let edges = try roads.access(lonLats: demand.map(\.position), avoiding: closures).map { a in
            a.flatMap { $0.distance <= maximumSnapMetres ? $0 : nil }
        }
        let allFacilities = try roads.access(lonLats: facilities.map(\.position), avoiding: closures)
        let (facilityEdges, offRoad) = try roads.access(resources: facilities, avoiding: closures, maximumMetres: maximumSnapMetres)
        var best = [Double?](repeating: nil, count: demand.count)
        var which = [Int?](repeating: nil, count: demand.count)
        let open = demand.indices.filter { edges[$0] != nil }
        let targets = open.map { edges[$0]! }
        for (f, origin) in facilityEdges.enumerated() {
            guard let origin, !targets.isEmpty else { continue }
            let times = roads.graph.travelTimes(from: origin, to: targets, avoiding: closures)
            for (k, i) in open.enumerated() {
                if let t = times[k], best[i].map({ t < $0 }) ?? true { best[i] = t; which[i] = f }
            }
        }
        self.standard = standard
        self.facilities = facilities
        self.demand = demand
        self.maximumSnapMetres = maximumSnapMetres
        facilitySnapMetres = allFacilities.map { $0?.distance }
        offRoadFacilities = offRoad
        offRoadDemand = demand.indices.filter { edges[$0] == nil }
        bestSeconds = best
        bestFacility = which
        demandEdges = edges
    }

    /// Whether demand point `i` is reached within the standard.
    public func isCovered(_ i: Int) -> Bool { (bestSeconds[i] ?? .infinity) <= standard.limitSeconds }

    /// Indices of the covered points.
    public var covered: [Int] { demand.indices.filter(isCovered) }
    /// Indices of the points no facility reaches within the standard.
    public var uncovered: [Int] { demand.indices.filter { !isCovered($0) } }
    /// Residents of the covered points.
    public var coveredPopulation: Double { covered.reduce(0) { $0 + demand[$1].population } }
    /// Residents of all points.
    public var totalPopulation: Double { demand.reduce(0) { $0 + $1.population } }

    /// Points each facility covers as the fastest one.
    public var coveredByFacility: [Int] {
        var n = [Int](repeating: 0, count: facilities.count)
        for i in demand.indices where isCovered(i) { if let f = bestFacility[i] { n[f] += 1 } }
        return n
    }
}

/// Where one more facility helps most.
public struct SiteSuggestion: Sendable, Hashable {
    /// The site: an intersection (graph node), lon/lat (EPSG:4490).
    public var position: Position
    /// Previously uncovered demand points it reaches within the standard, by id.
    public var addedIDs: [String]
    /// Their residents.
    public var addedPopulation: Double
}

extension FacilityCoverage {
    /// Greedy maximum coverage: `count` sites chosen one at a time among the road network's
    /// intersections, each the one reaching the most still-uncovered residents (then points)
    /// within the standard, starting from this coverage. The greedy choice is within 1 − 1/e of
    /// the best set of `count` sites.
    /// - Parameter maximumCandidates: intersections tried (evenly sampled when there are more).
    public func suggestSites(count: Int, roads: StoreRoadGraph, maximumCandidates: Int = 5000,
                             avoiding closures: RoadClosures = .none) throws -> [SiteSuggestion] {
        let open = uncovered.filter { demandEdges[$0] != nil }
        guard count > 0, !open.isEmpty else { return [] }
        let nodes = roads.graph.network.nodes
        let stride = max(1, (nodes.count + maximumCandidates - 1) / maximumCandidates)
        let candidates = Swift.stride(from: 0, to: nodes.count, by: stride).map { nodes[$0] }
        let targets = open.map { demandEdges[$0]! }
        var reach: [[Int]] = []   // per candidate: positions in `open` it covers
        for c in candidates {
            guard let origin = roads.graph.access(to: c, avoiding: closures) else { reach.append([]); continue }
            let times = roads.graph.travelTimes(from: origin, to: targets, avoiding: closures)
            reach.append(times.indices.filter { (times[$0] ?? .infinity) <= standard.limitSeconds })
        }
        var taken = [Bool](repeating: false, count: open.count)
        var out: [SiteSuggestion] = []
        for _ in 0..<count {
            var best: (pop: Double, n: Int, c: Int)?
            for (c, list) in reach.enumerated() {
                var pop = 0.0, n = 0
                for k in list where !taken[k] { pop += demand[open[k]].population; n += 1 }
                guard n > 0 else { continue }
                if best.map({ (pop, n) > ($0.pop, $0.n) }) ?? true { best = (pop, n, c) }
            }
            guard let b = best else { break }
            let added = reach[b.c].filter { !taken[$0] }
            for k in added { taken[k] = true }
            let site = try roads.storage([candidates[b.c]])[0]
            out.append(SiteSuggestion(position: site, addedIDs: added.map { demand[open[$0]].id }, addedPopulation: b.pop))
        }
        return out
    }

    /// Previously uncovered points of this coverage that one more facility at `site` (lon/lat) reaches.
    public func addedBy(site: Position, roads: StoreRoadGraph, avoiding closures: RoadClosures = .none) throws -> [Int] {
        let open = uncovered.filter { demandEdges[$0] != nil }
        guard !open.isEmpty, let origin = roads.graph.access(to: try roads.metric(site), avoiding: closures) else { return [] }
        let times = roads.graph.travelTimes(from: origin, to: open.map { demandEdges[$0]! }, avoiding: closures)
        return open.indices.filter { (times[$0] ?? .infinity) <= standard.limitSeconds }.map { open[$0] }
    }
}
