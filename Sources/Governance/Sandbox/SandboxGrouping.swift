import Foundation
import GeoCore
import TwinStore

/// Puts features into the groups of an aggregate request: one group, the administrative
/// divisions, or the cells of a grid in the city's metric CRS. A feature is placed by one point:
/// a point's own position, else its envelope's centre.
struct SandboxGrouping {
    /// A division: its key (code), name and outline.
    struct Division {
        var key: String
        var name: String?
        var outline: Geometry
        var prepared: PreparedGeometry
    }

    enum Kind {
        case all
        case divisions([Division])
        case grid(size: Double, toMetric: CoordinateTransformer)
    }

    let kind: Kind

    /// The key of the group outside every division.
    static let outside = "outside"

    /// The grouping of `request` over `store` (divisions and the city's CRS read as the administrator: both are open facts).
    static func make(_ grouping: AggregateRequest.Grouping, store: any FeatureStore, divisionsLayer: String) async throws -> SandboxGrouping {
        switch grouping {
        case .none:
            return SandboxGrouping(kind: .all)
        case .grid(let size):
            guard let crs = try await CityRecord.metricCRS(of: store) else {
                throw StoreError(.invalidQuery, "the city has no metric CRS yet (no data), so no grid", field: "$.groupBy")
            }
            return SandboxGrouping(kind: .grid(size: size, toMetric: try CoordinateTransformer.shared(from: .cgcs2000, to: crs)))
        case .adminDivision(let level):
            var all: [(Feature, String?)] = []
            for try await f in store.stream(layer: divisionsLayer, FeatureQuery(limit: 1000), by: .admin) {
                all.append((f, f.properties["level"]?.stringValue))
            }
            let levels = Dictionary(grouping: all, by: { $0.1 ?? "" })
            let chosen: String
            if let level {
                guard levels[level] != nil else {
                    throw StoreError(.invalidQuery, "no divisions at level '\(level)'; the levels are \(levels.keys.sorted().joined(separator: ", "))", field: "$.level")
                }
                chosen = level
            } else {
                guard let finest = levels.max(by: { $0.value.count < $1.value.count || ($0.value.count == $1.value.count && $0.key > $1.key) })?.key else {
                    throw StoreError(.invalidQuery, "the store holds no administrative divisions (\(divisionsLayer))", field: "$.groupBy")
                }
                chosen = finest
            }
            let divisions = try (levels[chosen] ?? []).compactMap { f, _ -> Division? in
                guard let g = f.geometry else { return nil }
                let key = f.properties["code"]?.stringValue ?? f.id.map { "\($0)" } ?? "?"
                return Division(key: key, name: f.properties["name"]?.stringValue, outline: g, prepared: try PreparedGeometry(g))
            }
            return SandboxGrouping(kind: .divisions(divisions))
        }
    }

    /// The group key of a feature.
    func key(of feature: Feature) throws -> String {
        switch kind {
        case .all:
            return "all"
        case .divisions(let divisions):
            guard let p = Self.point(of: feature.geometry) else { return Self.outside }
            for d in divisions where try d.prepared.covers(.point(Point(p))) { return d.key }
            return Self.outside
        case .grid(let size, let toMetric):
            guard let p = Self.point(of: feature.geometry) else { return Self.outside }
            let m = try toMetric.transform(p)
            return "\(Int((m.x / size).rounded(.down)))_\(Int((m.y / size).rounded(.down)))"
        }
    }

    /// The name and outline (EPSG:4490) of a group.
    func describe(_ key: String) throws -> (name: String?, outline: Geometry?) {
        switch kind {
        case .all:
            return (nil, nil)
        case .divisions(let divisions):
            guard let d = divisions.first(where: { $0.key == key }) else { return ("outside every division", nil) }
            return (d.name, d.outline)
        case .grid(let size, let toMetric):
            let parts = key.split(separator: "_").compactMap { Double($0) }
            guard parts.count == 2 else { return (nil, nil) }
            let x0 = parts[0] * size, y0 = parts[1] * size
            let back = toMetric.inverse
            let ring = try [(x0, y0), (x0 + size, y0), (x0 + size, y0 + size), (x0, y0 + size), (x0, y0)]
                .map { try back.transform(Position(x: $0.0, y: $0.1)) }
            return (nil, .polygon(Polygon(exterior: ring)))
        }
    }

    static func point(of geometry: Geometry?) -> Position? {
        if case .point(let p)? = geometry { return p.position }
        return geometry?.envelope?.center
    }
}
