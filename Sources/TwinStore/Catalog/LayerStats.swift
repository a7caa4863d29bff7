import Foundation
import GeoCore

/// The number and extent of a layer's current features as the catalogue keeps them (table
/// `layer_stats`, one row per layer), so the layer list (`/collections`, a collection, the tile
/// sets) reads one row per layer instead of scanning every layer on every request (issue 57 §3).
///
/// Every write keeps the row in its own transaction (`LayerStatsChange`): the count exactly, the
/// extent grown by what was written. A removed version that reached the extent's edge may have
/// shrunk it: the extent is computed again from the layer in the same transaction when the layer
/// holds at most `exactLimit` features (a bounded cost, whatever the city's size), and otherwise
/// kept as it is, flagged `loose` (too large, never too small) and tightened when the store is
/// next opened. A store written before the table existed gets its rows at open.
struct LayerStats: Sendable, Hashable {
    var count: Int
    var extent: Envelope?
    /// The extent may be larger than the current features' (a removal at its edge on a large layer).
    var loose = false

    /// The largest layer whose extent a write tightens at once when a removal may have shrunk it.
    static let exactLimit = 50_000
}

/// What one write does to a layer's `LayerStats`.
struct LayerStatsChange: Sendable {
    /// Current features added minus current features ended.
    var added = 0
    /// The envelope of every version written current (nil: none with geometry).
    var grown: Envelope?
    /// Envelopes of the versions that stopped being current.
    var removed: [Envelope] = []

    init(added: Int, grown: Envelope?) {
        self.added = added
        self.grown = grown
    }

    /// The change of a planned batch: an insert adds a feature, a delete ends one; every written
    /// version's envelope grows the extent and every replaced or ended one may shrink it.
    init(_ plan: WritePlan) {
        for c in plan.changes {
            switch c.kind {
            case .insert: added += 1
            case .delete: added -= 1
            default: break
            }
            if let env = c.before?.envelope { removed.append(env) }
            if let env = c.after?.envelope { grow(env) }
        }
    }

    private mutating func grow(_ env: Envelope) {
        if grown == nil { grown = env } else { grown?.expand(toInclude: env) }
    }

    var isEmpty: Bool { added == 0 && grown == nil && removed.isEmpty }

    /// `stats` after the change, and whether its extent must be computed again from the layer
    /// (a removed envelope reached the old extent's edge, and features remain).
    func applied(to stats: LayerStats) -> (stats: LayerStats, mayShrink: Bool) {
        var s = stats
        s.count = max(0, stats.count + added)
        let old = stats.extent
        if let g = grown {
            if s.extent == nil { s.extent = g } else { s.extent?.expand(toInclude: g) }
        }
        guard s.count > 0 else { return (LayerStats(count: 0, extent: nil), false) }
        let edge = old.map { e in
            removed.contains { $0.minX <= e.minX || $0.minY <= e.minY || $0.maxX >= e.maxX || $0.maxY >= e.maxY }
        } ?? false
        return (s, edge)
    }
}

/// The SQL of `layer_stats`, the same text on SQLite and PostgreSQL but for placeholders and the
/// envelope functions (`envelope`: SpatiaLite `MbrMinX(geom), …`, PostGIS `ST_XMin(geom), …`).
enum LayerStatsSQL {
    static func createTable(prefix p: String = "", real: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(p)layer_stats (
            layer TEXT PRIMARY KEY, features BIGINT NOT NULL, min_x \(real), min_y \(real), max_x \(real), max_y \(real),
            loose INTEGER NOT NULL DEFAULT 0)
        """
    }

    /// Columns: features, min_x, min_y, max_x, max_y, loose; one parameter, the layer id.
    static func select(prefix p: String = "", _ d: any SQLDialect) -> String {
        "SELECT features, min_x, min_y, max_x, max_y, loose FROM \(p)layer_stats WHERE layer = \(d.placeholder(1))"
    }

    /// Parameters: layer, features, min_x, min_y, max_x, max_y, loose (0/1).
    static func upsert(prefix p: String = "", _ d: any SQLDialect) -> String {
        let ps = (1...7).map { d.placeholder($0) }.joined(separator: ", ")
        return """
            INSERT INTO \(p)layer_stats (layer, features, min_x, min_y, max_x, max_y, loose) VALUES (\(ps))
            ON CONFLICT (layer) DO UPDATE SET features = excluded.features, min_x = excluded.min_x, min_y = excluded.min_y,
                max_x = excluded.max_x, max_y = excluded.max_y, loose = excluded.loose
            """
    }

    /// The parameters of `upsert`.
    static func upsertValues(_ layer: String, _ s: LayerStats) -> [SQLValue] {
        let e = s.extent
        return [.text(layer), .integer(Int64(s.count)), e.map { .double($0.minX) } ?? .null, e.map { .double($0.minY) } ?? .null,
                e.map { .double($0.maxX) } ?? .null, e.map { .double($0.maxY) } ?? .null, .integer(s.loose ? 1 : 0)]
    }

    static func delete(prefix p: String = "", _ d: any SQLDialect) -> String {
        "DELETE FROM \(p)layer_stats WHERE layer = \(d.placeholder(1))"
    }

    /// The exact count and extent of the current features of `table` (a whole-layer read: at open,
    /// and when a write may have shrunk a small layer's extent). Columns: count, min x, min y, max x, max y.
    /// With `after`, only the versions whose `vid` is above the first parameter (what a bulk insert added).
    /// `noReal`: a NULL of the extent's type (for a layer without geometry).
    static func exact(_ table: FeatureTable, envelope: [String], noReal: String = "NULL", _ d: any SQLDialect, after: Bool = false) -> String {
        let columns = table.layer.hasGeometry
            ? "min(\(envelope[0])), min(\(envelope[1])), max(\(envelope[2])), max(\(envelope[3]))"
            : Array(repeating: noReal, count: 4).joined(separator: ", ")
        return "SELECT count(*), \(columns) FROM \(table.name) WHERE valid_to IS NULL" + (after ? " AND vid > \(d.placeholder(1))" : "")
    }

    /// Stats from the columns of `select` or `exact`.
    static func stats(count: Int64, _ a: Double?, _ b: Double?, _ c: Double?, _ e: Double?, loose: Int64 = 0) -> LayerStats {
        var extent: Envelope?
        if let a, let b, let c, let e { extent = Envelope(minX: a, minY: b, maxX: c, maxY: e) }
        return LayerStats(count: Int(count), extent: extent, loose: loose != 0)
    }

    /// What to store after `change`, given the stored row (nil: none yet): the new numbers, or
    /// `nil` when the layer's exact numbers must be computed (`exact`) instead: the row is missing, or
    /// the extent may have shrunk on a layer of at most `LayerStats.exactLimit` features.
    static func next(stored: LayerStats?, change: LayerStatsChange) -> LayerStats? {
        guard let stored else { return nil }
        let (s, mayShrink) = change.applied(to: stored)
        guard mayShrink else { return s }
        if s.count <= LayerStats.exactLimit { return nil }
        var loose = s
        loose.loose = true
        return loose
    }
}
