import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import Sensing
import TwinStore

/// Hydrant coverage by GB 50974-2014 (消防给水及消火栓系统技术规范) §7.2.5: every stretch of street
/// within 150 m of a working municipal hydrant **along the streets** (hoses are laid along them,
/// not as the crow flies), hydrants at most 120 m apart along a street — every point of a street
/// within 60 m of one — and, §7.2.4, roads wider than 60 m served from both sides. Only working
/// hydrants count: status 完好 (a hydrant 待维修, or one whose live pressure is below the
/// standard's 0.10 MPa, does not: its pressure meter's newest reading through SensorThings, joined
/// as the features API joins it).
public struct HydrantCoverage: Sendable {
    /// GB 50974-2014 §7.2.5: protection radius of a municipal hydrant (m).
    public static let protectionRadius = 150.0
    /// §7.2.5: the largest spacing between hydrants along a street (m); half of it is the spacing check's radius.
    public static let maximumSpacing = 120.0
    /// §7.2.8: the least pressure at a municipal hydrant's outlet (MPa); a fresh reading below it
    /// takes the hydrant out of the coverage.
    public static let minimumPressure = 0.10
    /// §7.2.4: roads wider than this need hydrants on both sides (m).
    public static let bothSidesWidth = 60.0
    /// A hydrant farther than this from every street cannot be reached by an engine on it (m).
    public static let maximumHydrantOffset = 50.0
    /// A building farther than this from every street is off the street network (m): the limit
    /// `fire-pre-plan` refuses such a building by, and the routing processes' default snap limit.
    public static let maximumBuildingOffset = StoreRoadGraph.defaultMaximumSnapMetres

    /// A hydrant as the analysis sees it.
    public struct Hydrant: Sendable {
        public var id: String
        public var position: Position       // metric
        public var working: Bool
        public var reason: String?          // why it does not count
    }

    public let protection: StreetCoverage
    public let spacing: StreetCoverage
    public let hydrants: [Hydrant]
    /// Working hydrants farther than `maximumHydrantOffset` from every street (not counted).
    public let offStreet: [String]
    /// Buildings whose street position lies beyond the protection radius: id and street metres.
    public let uncoveredBuildings: [(id: String, metres: Double)]
    /// Buildings farther than `maximumBuildingOffset` from every street: off the street network,
    /// counted neither covered nor uncovered (a distant snap point says nothing of their hoses),
    /// with the straight metres to the nearest street.
    public let offNetworkBuildings: [(id: String, offset: Double)]
    /// Buildings checked (covered, uncovered and off the network together).
    public let buildingsChecked: Int
    /// Roads wider than 60 m with working hydrants on at most one side: road id and the side found.
    public let oneSidedWideRoads: [(road: String, side: String)]

    /// The analysis on `network` (metric) for `hydrants` and the buildings' positions (metric).
    public static func compute(network: RoadNetwork, hydrants: [Hydrant], buildings: [(id: String, position: Position)],
                               roadWidths: [String: Double]) -> HydrantCoverage {
        var sources: [EdgePosition] = [], offStreet: [String] = []
        var sides: [Int32: Set<String>] = [:]
        for h in hydrants where h.working {
            guard let at = network.snap(h.position) else { continue }
            guard at.distance <= maximumHydrantOffset else { offStreet.append(h.id); continue }
            sources.append(at)
            let c = network.pieces[at.piece].coordinates
            let a = c.first!, b = c.last!
            let cross = (b.x - a.x) * (h.position.y - at.point.y) - (b.y - a.y) * (h.position.x - at.point.x)
            sides[network.pieces[at.piece].line, default: []].insert(cross >= 0 ? "left" : "right")
        }
        let protection = network.streetCoverage(from: sources, radius: protectionRadius)
        let spacing = network.streetCoverage(from: sources, radius: maximumSpacing / 2)
        var uncovered: [(String, Double)] = [], offNetwork: [(String, Double)] = []
        for b in buildings {
            guard let at = network.snap(b.position) else { continue }
            guard at.distance <= maximumBuildingOffset else { offNetwork.append((b.id, at.distance)); continue }
            let metres = network.streetDistance(to: at, nodeDistances: protection.nodeDistances, sources: sources)
            // Compared to the millimetre: the stored degrees (1e-9°) carry about 0.1 mm of noise in metres.
            if metres > protectionRadius + 0.001 { uncovered.append((b.id, metres)) }
        }
        var oneSided: [(String, String)] = []
        for (i, line) in network.lines.enumerated() {
            guard let id = line.id, let width = roadWidths[id], width > bothSidesWidth else { continue }
            let found = sides[Int32(i)] ?? []
            if found.count < 2 { oneSided.append((id, found.first ?? "none")) }
        }
        return HydrantCoverage(protection: protection, spacing: spacing, hydrants: hydrants, offStreet: offStreet,
                               uncoveredBuildings: uncovered, offNetworkBuildings: offNetwork, buildingsChecked: buildings.count, oneSidedWideRoads: oneSided)
    }
}

extension HydrantCoverage {
    /// Why a hydrant does not count, or nil when it does: its status is not 完好 (the pressure
    /// rule's reason when its meter set it: `HydrantStatus`), or its pressure meter's newest
    /// reading (not stale) is below 0.10 MPa.
    static func outOfService(_ p: [String: JSONValue]) -> String? {
        let status = p["status"]?.stringValue ?? ""
        if status != "完好", p["status_source"]?.stringValue == "pressure-rule", let reason = p["status_reason"]?.stringValue { return reason }
        guard status == "完好" else { return "status \(status.isEmpty ? "unknown" : status)" }
        if p["latest_unit"]?.stringValue == "MPa", let value = p["latest_value"]?.doubleValue, value < minimumPressure,
           p["latest_stale"]?.boolValue != true {
            let at = p["latest_phenomenonTime"]?.stringValue.map { " at \($0)" } ?? ""
            return "pressure \(value) MPa\(at), below GB 50974's 0.10 MPa"
        }
        return nil
    }

    /// The analysis on the store's roads, hydrants and buildings as `caller` may read them, with
    /// the road graph it ran on (for the gaps' coordinates).
    /// Under `conditions`, a hydrant whose street the flood run measured deeper than a fire
    /// engine's wading depth (0.50 m, `VehicleClass.fireEngine`) is under water: not counted, with why.
    public static func load(from store: any FeatureStore, by caller: Caller,
                            conditions: CityConditions = .none()) async throws -> (HydrantCoverage, StoreRoadGraph) {
        let roads = try await EmergencyRoadGraphs.shared.graph(for: store, profile: .walking, by: caller)
        var features: [Feature] = []
        for try await f in store.stream(layer: "hydrants", FeatureQuery(properties: ["status", "status_source", "status_reason"], limit: 5000), by: caller) { features.append(f) }
        // The pressure meters' newest readings, joined as the features API shows them (`latest_*`).
        if let sensing = store as? any SensingStore {
            try await SensorFeatureLinks(store: store, sensing: sensing).attachLatest(&features, layer: "hydrants", caller: caller)
        }
        var hydrants: [Hydrant] = []
        for f in features {
            guard case .point(let point)? = f.geometry, let p = point.position else { continue }
            let at = try roads.metric(p)
            var reason = outOfService(f.properties)
            if reason == nil, let flood = conditions.flood, let snapped = roads.graph.network.snap(at),
               snapped.distance <= maximumHydrantOffset, let road = roads.graph.network.lines[Int(roads.graph.network.pieces[snapped.piece].line)].id,
               let depth = flood.roadDepth[road], depth > VehicleClass.fireEngine.wadingDepthMetres {
                reason = "under water: \(flood.roadNames[road] ?? road) (\(road)) \(String(format: "%.2f", depth)) m deep in flood run \(flood.id), "
                    + "deeper than a fire engine's \(String(format: "%.2f", VehicleClass.fireEngine.wadingDepthMetres)) m"
            }
            hydrants.append(Hydrant(id: f.id?.description ?? "", position: at, working: reason == nil, reason: reason))
        }
        var buildings: [(String, Position)] = []
        if try await store.layerDefinition("buildings", for: caller) != nil {
            for try await f in store.stream(layer: "buildings", FeatureQuery(properties: [], limit: 5000), by: caller) {
                guard let c = f.geometry?.envelope?.center else { continue }
                buildings.append((f.id?.description ?? "", try roads.metric(c)))
            }
        }
        var widths: [String: Double] = [:]
        for try await f in store.stream(layer: "roads", FeatureQuery(properties: ["width_m", "lanes"], limit: 5000), by: caller) {
            guard let id = f.id?.description else { continue }
            if let w = f.properties["width_m"]?.doubleValue { widths[id] = w }
            else if let lanes = f.properties["lanes"]?.doubleValue { widths[id] = lanes * 3.5 }
        }
        return (compute(network: roads.graph.network, hydrants: hydrants, buildings: buildings, roadWidths: widths), roads)
    }
}
