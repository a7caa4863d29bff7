import Foundation
import GeoCore
import NetworkAnalysis
import TwinStore

/// A `RoadGraph` built from a store's roads layer, with the transformers between the store's
/// CGCS2000 lon/lat (EPSG:4490) and the metric Gauss-Krüger CRS the graph works in.
public struct StoreRoadGraph: Sendable {
    /// The graph (coordinates in `metricCRS` metres).
    public let graph: RoadGraph
    /// The city's metric CRS (`CityRecord`; EPSG:4547, CGCS2000 3° Gauss-Krüger CM 114°E, for the sample district).
    public let metricCRS: CoordinateReferenceSystem
    /// EPSG:4490 → `metricCRS`.
    public let toMetric: CoordinateTransformer
    /// `metricCRS` → EPSG:4490.
    public let toStorage: CoordinateTransformer
    /// The last change-feed sequence the graph reflects.
    public let sequence: Int64
    /// The change-feed sequence its roads and restrictions were last read at: equal for two
    /// values of one graph, different once it was rebuilt (what road snaps cached with it check).
    public var builtAt: Int64 = 0
    /// Turn-restriction features that could not be read (bad kind, unknown intersection), with
    /// the reason; restrictions that could not be matched to the roads are in
    /// `graph.unresolvedRestrictions`. `unresolvedRestrictions` lists both.
    public var skippedRestrictions: [UnresolvedTurnRestriction] = []

    /// Every turn restriction of the store that is not in force in the graph and why: for the
    /// traffic police to correct.
    public var unresolvedRestrictions: [UnresolvedTurnRestriction] {
        skippedRestrictions + graph.unresolvedRestrictions
    }

    /// Reads every road of `layer` (streamed in pages), reprojects all vertices in one batch to
    /// `metricCRS` (by default the city's, `CityRecord.metricCRS`: the recorded one, else the metric
    /// zone of the layer's extent) and
    /// builds the graph. Roads without `speed_kmh` get a speed by class (快速路 60, 主干路 50,
    /// 次干路 40, 支路 30 km/h; otherwise 30). The turn restrictions in force today are read from
    /// `restrictionsLayer` when the store has it (a missing or empty layer means none; walkers
    /// ignore them); see `turnRestrictions(from:layer:intersections:toMetric:on:by:)`.
    /// - Throws: `StoreError` from the store, `GeometryError` naming the feature for bad geometry
    ///   or attributes.
    public static func load(from store: any FeatureStore, profile: TravelProfile, layer: String = "roads",
                            restrictionsLayer: String = "turn_restrictions", intersectionsLayer: String = "intersections",
                            metricCRS given: CoordinateReferenceSystem? = nil,
                            by caller: Caller = .admin) async throws -> StoreRoadGraph {
        // The feed's end before the roads are read (a change during the read is seen next time): one
        // statement, not a walk of the feed from its start (60 s of `serve`'s start-up at 100×).
        let sequence = try await store.latestChange()
        // The city's own metric CRS (the sample district's is EPSG:4547): a city at 25°E is not
        // measured in a projection centred at 114°E.
        var chosen = given
        if chosen == nil {
            let extent = try await store.layers(for: caller).first { $0.definition.id == layer }?.extent
            chosen = try await CityRecord.metricCRS(of: store, orZoneOf: extent.map { [$0] } ?? [])
        }
        let metricCRS = chosen ?? .districtMetric
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
        let lines = try await roadLines(from: store, layer: layer, toMetric: toMetric, by: caller)
        let (restrictions, skipped) = try await turnRestrictions(from: store, layer: restrictionsLayer,
                                                                 intersections: intersectionsLayer, toMetric: toMetric, by: caller)
        // The contraction hierarchy: seconds at a city's size, off the cooperative threads.
        let graph = try await BlockingWork.run { try RoadGraph(lines: lines, profile: profile, restrictions: restrictions) }
        return StoreRoadGraph(graph: graph,
                              metricCRS: metricCRS, toMetric: toMetric, toStorage: toMetric.inverse, sequence: sequence,
                              builtAt: sequence, skippedRestrictions: skipped)
    }

    /// This graph if the change feed shows no change to `layer`, `restrictionsLayer` or
    /// `intersectionsLayer` since it was built, otherwise a rebuilt one (the rebuild entry point
    /// for road and restriction edits).
    public func refreshed(from store: any FeatureStore, layer: String = "roads",
                          restrictionsLayer: String = "turn_restrictions", intersectionsLayer: String = "intersections",
                          by caller: Caller = .admin) async throws -> StoreRoadGraph {
        let (changed, since) = try await store.changes(to: [layer, restrictionsLayer, intersectionsLayer], since: sequence, by: caller)
        guard changed else {
            return since == sequence ? self : StoreRoadGraph(graph: graph, metricCRS: metricCRS, toMetric: toMetric,
                                                              toStorage: toStorage, sequence: since, builtAt: builtAt,
                                                              skippedRestrictions: skippedRestrictions)
        }
        let lines = try await Self.roadLines(from: store, layer: layer, toMetric: toMetric, by: caller)
        let (restrictions, skipped) = try await Self.turnRestrictions(from: store, layer: restrictionsLayer,
                                                                      intersections: intersectionsLayer, toMetric: toMetric, by: caller)
        let graph = self.graph
        let rebuilt = try await BlockingWork.run { try graph.rebuilt(lines: lines, restrictions: restrictions) }
        return StoreRoadGraph(graph: rebuilt, metricCRS: metricCRS,
                              toMetric: toMetric, toStorage: toStorage, sequence: since, builtAt: since, skippedRestrictions: skipped)
    }

    /// The turn restrictions of `layer` in force on `date` (`valid_from` not after its day in the
    /// city's time zone, `CityTime`), with their
    /// junctions in metres: the feature's `via_intersection` (an id in `intersections`) when set,
    /// otherwise its point geometry, otherwise none (the two roads must then meet once).
    /// A missing layer (or one `caller` may not read) gives no restrictions. Features with an
    /// unknown kind, a missing road id or an unknown intersection are returned as skipped, naming
    /// the feature and the field.
    /// - Throws: `StoreError` from the store, `GeometryError` from the reprojection or for a
    ///   `CITYTWIN_TIME_ZONE` that names no time zone.
    public static func turnRestrictions(from store: any FeatureStore, layer: String = "turn_restrictions",
                                        intersections: String = "intersections", toMetric: CoordinateTransformer,
                                        on date: Date = TwinClock.current.now, by caller: Caller = .admin) async throws
        -> (restrictions: [TurnRestriction], skipped: [UnresolvedTurnRestriction]) {
        guard try await store.layerDefinition(layer, for: caller) != nil else { return ([], []) }
        let today = RFC3339.fullDate(of: date, in: try CityTime.zone())
        var restrictions: [TurnRestriction] = []
        var skipped: [UnresolvedTurnRestriction] = []
        var junctions: [String: Position?] = [:]
        var read = -1
        for try await feature in store.stream(layer: layer, FeatureQuery(limit: 2000), by: caller) {
            read += 1
            let id = feature.id.map { "\($0)" }
            let name = "\(layer)/\(id ?? "?")"
            func text(_ key: String) -> String? {
                if case .string(let s)? = feature.properties[key], !s.isEmpty { return s }
                return nil
            }
            if let from = text("valid_from"), String(from.prefix(10)) > today { continue }   // not yet in force
            let fromRoad = text("from_road") ?? "", toRoad = text("to_road") ?? ""
            let kind = text("kind").flatMap(TurnRestriction.Kind.init(rawValue:))
            var restriction = TurnRestriction(id: id, fromRoad: fromRoad, toRoad: toRoad, kind: kind ?? .noUTurn)
            func skip(_ why: String) {
                skipped.append(UnresolvedTurnRestriction(index: read, restriction: restriction,
                                                         reason: "\(name): \(why)"))
            }
            guard !fromRoad.isEmpty else { skip("from_road is missing"); continue }
            guard !toRoad.isEmpty else { skip("to_road is missing"); continue }
            guard kind != nil else { skip("kind must be one of \(TurnRestriction.Kind.allCases.map(\.rawValue)), got \(text("kind") ?? "nothing")"); continue }
            if let junction = text("via_intersection") {
                if junctions[junction] == nil {
                    let point = try await store.feature(layer: intersections, id: junction, by: caller)
                    if case .point(let p)? = point?.geometry { junctions[junction] = .some(p.position) } else { junctions[junction] = .some(nil) }
                }
                guard let lonLat = junctions[junction] ?? nil else {
                    skip("via_intersection \(junction) is not a point in \(intersections)"); continue
                }
                restriction.via = try toMetric.transform(lonLat)
            } else if case .point(let p)? = feature.geometry, let lonLat = p.position {
                restriction.via = try toMetric.transform(lonLat)
            }
            restrictions.append(restriction)
        }
        return (restrictions, skipped)
    }

    /// A storage (lon/lat) position in metres.
    public func metric(_ lonLat: Position) throws -> Position { try toMetric.transform(lonLat) }

    /// Metric positions back in lon/lat (one batch).
    public func storage(_ positions: [Position]) throws -> [Position] {
        var p = positions
        try toStorage.transform(&p)
        return p
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
                throw RoadNetworkError("speed_kmh must be > 0, got \(speed)", field: "\(layer)/\(id ?? "?").speed_kmh")
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
