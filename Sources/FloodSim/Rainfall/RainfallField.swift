import Foundation
import GeoCore

/// Spatially varying rain: which gauge each subcatchment takes. A subcatchment that names a gauge
/// (SWMM `[RAINGAGES]`) takes it; one that does not, or names an unknown gauge, takes the nearest
/// gauge to its centroid (Thiessen polygons), in the coordinates' own units.
public struct RainfallField: Sendable {
    public struct Gauge: Sendable {
        public var name: String
        public var position: Position?
        public var hyetograph: Hyetograph
        public init(name: String, position: Position?, hyetograph: Hyetograph) {
            self.name = name; self.position = position; self.hyetograph = hyetograph
        }
    }
    public var gauges: [Gauge]

    public init(gauges: [Gauge]) { self.gauges = gauges }

    /// The gauge index for a subcatchment, or nil when there is no gauge to take.
    public func gaugeIndex(named name: String?, centroid: Position?) -> Int? {
        if let name, let k = gauges.firstIndex(where: { $0.name == name }) { return k }
        guard let c = centroid else { return gauges.isEmpty ? nil : 0 }
        var best: Int?
        var bestD = Double.infinity
        for (k, g) in gauges.enumerated() {
            guard let p = g.position else { continue }
            let d = (p.x - c.x) * (p.x - c.x) + (p.y - c.y) * (p.y - c.y)
            if d < bestD { bestD = d; best = k }
        }
        return best
    }
}
