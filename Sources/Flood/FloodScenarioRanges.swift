import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The ranges a flood scenario's numbers must lie in, and where each comes from (issue 58 §5: a
/// return period of 100,000 a or an outfall stage of 500 m ran, and answered with confidence).
extension FloodScenario {
    public enum Ranges {
        /// Return period P in years. The storm-intensity formula q = 167·A₁(1 + C lg P)/(t + b)ⁿ is fitted
        /// to annual maxima (flood.md §2.1), so P < 1 a lies outside what it describes; the largest design
        /// value the standards ask for is 100 a (内涝防治 of a 超大 city, flood.md §1.3), and beyond ten
        /// times that the lg P extrapolation of a fit to a few decades of records means nothing.
        public static let returnPeriod: ClosedRange<Double> = 1...1000
        /// Storm duration in minutes: up to 24 h for 防涝 (flood.md §2.3).
        public static let durationMaximum = 1440.0
        /// Ground-floor sill above the footprint's ground, m: at most a storey (3 m); a higher "sill" is a
        /// floor, not a threshold.
        public static let groundFloorSill: ClosedRange<Double> = 0...3
        /// A storage tank's usable depth, m: the deepest storage shafts and tunnels are tens of metres.
        public static let storageDepth: ClosedRange<Double> = 0.1...60
        /// Inside diameter of an upgraded pipe, mm (the smallest sewer to a large culvert).
        public static let pipeDiameter: ClosedRange<Double> = 100...6000
    }

    /// The elevations (m, 1985 datum) an outfall stage of the district may take: from the lowest invert of
    /// its drainage (outfalls and manholes; a river below it cannot touch the network, which drains freely:
    /// leave `outfall_stage_m` out for that) to the highest manhole rim (a river above it stands over every
    /// street: a levee failure, not the urban drainage scenario this model is). Nil when the district's
    /// drainage layers give no elevation.
    public static func stageRange(outfalls: [Feature], manholes: [Feature]) -> ClosedRange<Double>? {
        let inverts = (outfalls + manholes).compactMap { $0.properties["invert_elevation_m"]?.doubleValue }.filter(\.isFinite)
        let rims = manholes.compactMap { $0.properties["rim_elevation_m"]?.doubleValue }.filter(\.isFinite)
        guard let low = inverts.min(), let high = rims.max(), low <= high else { return nil }
        return low...high
    }

    /// ``stageRange(outfalls:manholes:)`` of the district in `store`, read as `caller` (nil when the caller
    /// cannot read the drainage layers or they give no elevation: the run then fails on the layers itself).
    public static func stageRange(in store: any FeatureStore, by caller: Caller) async throws -> ClosedRange<Double>? {
        var read: [String: [Feature]] = [:]
        for id in ["drainage_outfalls", "drainage_manholes"] {
            guard try await store.layerDefinition(id, for: caller) != nil else { return nil }
            var list: [Feature] = []
            for try await f in store.stream(layer: id, FeatureQuery(properties: ["invert_elevation_m", "rim_elevation_m"], limit: 2000), by: caller) {
                list.append(f)
            }
            read[id] = list
        }
        return stageRange(outfalls: read["drainage_outfalls"] ?? [], manholes: read["drainage_manholes"] ?? [])
    }

    /// Checks the outfall stage (every value of a series) against the district's elevations `range`.
    /// - Throws: `ScenarioError` `.invalidScenario` naming `outfall_stage_m` and the allowed range.
    public func checkStage(within range: ClosedRange<Double>?) throws {
        guard let range, let stage = outfallStage else { return }
        let values: [Double]
        switch stage {
        case .fixed(let z): values = [z]
        case .series(_, let s): values = s
        }
        let text = { (v: Double) in String(format: "%.2f", v) }
        for (i, z) in values.enumerated() where !range.contains(z) {
            let which = values.count == 1 ? "outfall_stage_m" : "outfall_stage_m.stage_m[\(i)]"
            throw ScenarioError(.invalidScenario,
                                "\(which) must be within the district's elevations \(text(range.lowerBound))–\(text(range.upperBound)) m (1985 datum: the lowest drainage invert to the highest manhole rim), got \(text(z)) m"
                                + (z < range.lowerBound ? "; a river below every invert leaves the outfalls free: leave outfall_stage_m out" : "; a river above every street is a levee failure, not this drainage model"),
                                field: "outfall_stage_m")
        }
    }
}
