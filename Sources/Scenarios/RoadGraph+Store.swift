import Foundation
import GeoCore
import NetworkAnalysis
import TwinStore

/// A `RoadGraph` built from a store's roads layer, with the transformers between the store's
/// CGCS2000 lon/lat (EPSG:4490) and the metric Gauss-Krüger CRS the graph works in.
public struct StoreRoadGraph: Sendable {
    /// The graph (coordinates in `metricCRS` metres).
    public let graph: RoadGraph
    /// The metric CRS (default EPSG:4547, CGCS2000 3° Gauss-Krüger CM 114°E).
    public let metricCRS: CoordinateReferenceSystem
    /// EPSG:4490 → `metricCRS`.
    public let toMetric: CoordinateTransformer
    /// `metricCRS` → EPSG:4490.
    public let toStorage: CoordinateTransformer
    /// The last change-feed sequence the graph reflects.
    public let sequence: Int64

    /// Reads every road of `layer` (streamed in pages), reprojects all vertices in one batch and
    /// builds the graph. Roads without `speed_kmh` get a speed by class (快速路 60, 主干路 50,
    /// 次干路 40, 支路 30 km/h; otherwise 30).
    /// - Throws: `StoreError` from the store, `GeometryError` naming the feature for bad geometry
    ///   or attributes.
    public static func load(from store: any FeatureStore, profile: TravelProfile, layer: String = "roads",
                            metricCRS: CoordinateReferenceSystem = CoordinateReferenceSystem(epsg: 4547),
                            by caller: Caller = .admin) async throws -> StoreRoadGraph {
        let sequence = try await latestSequence(of: store, after: 0, by: caller)
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
        let lines = try await roadLines(from: store, layer: layer, toMetric: toMetric, by: caller)
        return StoreRoadGraph(graph: try RoadGraph(lines: lines, profile: profile), metricCRS: metricCRS,
                              toMetric: toMetric, toStorage: toMetric.inverse, sequence: sequence)
    }

    /// This graph if the change feed shows no change to `layer` since it was built, otherwise a
    /// rebuilt one (the rebuild entry point for road edits).
    public func refreshed(from store: any FeatureStore, layer: String = "roads",
                          by caller: Caller = .admin) async throws -> StoreRoadGraph {
        var since = sequence, changed = false
        while true {
            let events = try await store.changes(since: since, limit: 1000, by: caller)
            guard let last = events.last else { break }
            if events.contains(where: { $0.layer == layer }) { changed = true }
            since = last.sequence
        }
        guard changed else {
            return since == sequence ? self : StoreRoadGraph(graph: graph, metricCRS: metricCRS, toMetric: toMetric,
                                                              toStorage: toStorage, sequence: since)
        }
        let lines = try await Self.roadLines(from: store, layer: layer, toMetric: toMetric, by: caller)
        return StoreRoadGraph(graph: try graph.rebuilt(lines: lines), metricCRS: metricCRS, toMetric: toMetric,
                              toStorage: toStorage, sequence: since)
    }

    /// A storage (lon/lat) position in metres.
    public func metric(_ lonLat: Position) throws -> Position { try toMetric.transform(lonLat) }

    /// Metric positions back in lon/lat (one batch).
    public func storage(_ positions: [Position]) throws -> [Position] {
        var p = positions
        try toStorage.transform(&p)
        return p
    }

    static func latestSequence(of store: any FeatureStore, after start: Int64, by caller: Caller) async throws -> Int64 {
        var since = start
        while let last = try await store.changes(since: since, limit: 10_000, by: caller).last { since = last.sequence }
        return since
    }

    /// The roads of `layer` as metric `RoadLine`s.
    public static func roadLines(from store: any FeatureStore, layer: String = "roads", toMetric: CoordinateTransformer,
                                 by caller: Caller = .admin) async throws -> [RoadLine] {
        var lines: [RoadLine] = []
        var xs: [Double] = [], ys: [Double] = []
        for try await feature in store.stream(layer: layer, FeatureQuery(limit: 2000), by: caller) {
            let id = feature.id.map { "\($0)" }
            let parts: [[Position]]
            switch feature.geometry {
            case .lineString(let l)?: parts = [l.positions]
            case .multiLineString(let m)?: parts = m.lineStrings.map(\.positions)
            default:
                throw GeometryError(.invalidGeometry, "a road must be a LineString", position: "\(layer)/\(id ?? "?")")
            }
            let speed: Double
            switch feature.properties["speed_kmh"] {
            case .integer(let v)?: speed = Double(v)
            case .number(let v)?: speed = v
            default: speed = Self.defaultSpeed(feature.properties["class"])
            }
            guard speed.isFinite, speed > 0 else {
                throw GeometryError(.invalidArgument, "speed_kmh must be > 0, got \(speed)", position: "\(layer)/\(id ?? "?").speed_kmh")
            }
            var oneway = false
            if case .bool(let b)? = feature.properties["oneway"] { oneway = b }
            var roadClass: String?
            if case .string(let s)? = feature.properties["class"] { roadClass = s }
            for part in parts {
                for p in part { xs.append(p.x); ys.append(p.y) }
                lines.append(RoadLine(id: id, coordinates: part, speedKmh: speed, oneway: oneway, roadClass: roadClass))
            }
        }
        try toMetric.transform(xs: &xs, ys: &ys)
        var k = 0
        for i in lines.indices {
            for j in lines[i].coordinates.indices {
                lines[i].coordinates[j] = Position(x: xs[k], y: ys[k])
                k += 1
            }
        }
        return lines
    }

    static func defaultSpeed(_ roadClass: JSONValue?) -> Double {
        guard case .string(let s)? = roadClass else { return 30 }
        switch s {
        case "快速路": return 60
        case "主干路": return 50
        case "次干路": return 40
        default: return 30
        }
    }
}
