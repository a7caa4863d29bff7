import Foundation
import GeoCore

/// Builds the SELECT statements of a `FeatureQuery` (page, count) for any dialect: version
/// validity, bbox, filter, datetime, keyset continuation and a total order (sort keys, then
/// feature id).
struct FeatureSelect {
    let table: FeatureTable
    let query: FeatureQuery
    let mask: AttributeMask
    /// Restricts the statement to one feature id (the single-feature read).
    var featureID: String?
    /// SQLite only: the attribute index the page statement reads (`INDEXED BY`), chosen by
    /// `SpatiaLiteStore.attributeIndexChoice`; `nil` leaves the choice to the planner.
    var indexedBy: String?

    private var layer: LayerDefinition { table.layer }

    init(table: FeatureTable, query: FeatureQuery, mask: AttributeMask) throws {
        self.table = table
        self.query = query
        self.mask = mask
        var named = query.filter?.propertyNames ?? []
        for k in query.sortBy {
            try FilterCompiler.requireSafeName(k.property, layer: table.layer.id)
            named.insert(k.property)
        }
        try mask.requireVisible(named.sorted(), layer: table.layer.id)
        if let after = query.after, after.sortBy != query.sortBy {
            throw StoreError(.invalidCursor, "the cursor belongs to another sort order", layer: table.layer.id)
        }
    }

    /// The WHERE clause shared by page and count statements (without the keyset part).
    func conditions(into b: inout SQLBuilder) throws -> [String] {
        var parts = [String]()
        if let asOf = query.asOf {
            let t = RFC3339.microseconds(asOf)
            parts.append("f.valid_from <= \(b.bind(.integer(t)))")
            parts.append("(f.valid_to IS NULL OR f.valid_to > \(b.bind(.integer(t))))")
        } else {
            parts.append("f.valid_to IS NULL")
        }
        if let featureID { parts.append("f.fid = \(b.bind(.text(featureID)))") }
        if let bbox = query.bbox {
            guard layer.hasGeometry else {
                throw StoreError(.invalidQuery, "layer \"\(layer.id)\" has no geometry for a bbox", layer: layer.id)
            }
            var e = try Self.storageEnvelope(bbox)
            // Both backends need a non-degenerate rectangle; a point or line bbox grows by ~0.1 mm.
            if e.width == 0 { e.minX -= 1e-9; e.maxX += 1e-9 }
            if e.height == 0 { e.minY -= 1e-9; e.maxY += 1e-9 }
            parts.append(b.dialect.intersectsEnvelope(e, table: table, into: &b))
        }
        let compiler = FilterCompiler(table: table)
        if let filter = query.filter {
            parts.append(try compiler.compile(filter, into: &b))
            // The filter's spatial terms that every match must meet (its top-level AND), once more
            // as terms of the WHERE the planner can look up in the spatial index: implied by the
            // filter, so they change no answer.
            for (predicate, geometry) in Self.requiredSpatialTerms(filter) where predicate != .disjoint && layer.hasGeometry {
                if let e = geometry.envelope, let term = b.dialect.spatialCandidates(e, table: table, into: &b) { parts.append(term) }
            }
        }
        if let dt = query.datetime { parts.append(try compiler.datetime(dt, into: &b)) }
        return parts
    }

    /// The spatial predicates `filter` requires of every match: itself, or the terms of its AND
    /// (nested ANDs too); none under OR or NOT.
    static func requiredSpatialTerms(_ filter: FilterExpression) -> [(SpatialPredicate, Geometry)] {
        switch filter {
        case .spatial(let predicate, let geometry): [(predicate, geometry)]
        case .and(let terms): terms.flatMap(requiredSpatialTerms)
        default: []
        }
    }

    /// `SELECT count(*)` of the matching features.
    func countStatement(dialect: any SQLDialect) throws -> (String, [SQLValue]) {
        var b = SQLBuilder(dialect: dialect)
        let w = try conditions(into: &b)
        return ("SELECT count(*) FROM \(table.name) AS f WHERE " + w.joined(separator: " AND "), b.bindings)
    }

    /// A page: columns `fid, props, wkb (when the layer has geometry), k0…kn` (sort values).
    func pageStatement(dialect: any SQLDialect, limit: Int, after cursor: PageCursor?) throws -> (String, [SQLValue]) {
        var b = SQLBuilder(dialect: dialect)
        var columns = ["f.fid", dialect.propertiesText("f.props")]
        if layer.hasGeometry { columns.append(dialect.wkb("f.geom")) }
        var keys = [String]()
        for k in query.sortBy {
            let expr = dialect.property(k.property, type: layer.schema.scalarType(of: k.property), of: layer, into: &b)
            keys.append(expr)
        }
        columns += keys
        var w = try conditions(into: &b)
        if let cursor {
            w.append(keyset(keys: keys, cursor: cursor, into: &b))
        }
        var order = zip(keys, query.sortBy).map { dialect.order($0.0, ascending: $0.1.ascending) }
        order.append("f.fid ASC")
        // One feature id matches at most one version: no order to keep (SQLite would sort the row
        // it found by the unique index in a temporary B-tree).
        let orderBy = featureID == nil ? " ORDER BY " + order.joined(separator: ", ") : ""
        let from = " FROM \(table.name) AS f" + (indexedBy.map { " INDEXED BY \($0)" } ?? "")
        let sql = "SELECT " + columns.joined(separator: ", ") + from + " WHERE "
            + w.joined(separator: " AND ") + orderBy + " LIMIT \(b.bind(.integer(Int64(limit))))"
        return (sql, b.bindings)
    }

    /// The filter's top-level AND terms that compare a property the layer indexes
    /// (`LayerDefinition.indexes`) with a literal, each with its index: the candidates an
    /// index choice weighs for a page of current features in id order.
    func indexedComparisons(dialect: any SQLDialect) -> [(index: AttributeIndex, term: FilterExpression)] {
        guard query.asOf == nil, query.sortBy.isEmpty, query.bbox == nil, featureID == nil, let filter = query.filter,
              !layer.indexes.isEmpty else { return [] }
        let indexes = AttributeIndex.declared(by: layer, dialect: dialect, bare: "f_" + layer.id)
        let terms: [FilterExpression] = if case .and(let t) = filter { t } else { [filter] }
        return terms.compactMap { term in
            guard case .comparison(let op, let l, let r) = term, op != .notEqual else { return nil }
            let name: String
            switch (l, r) {
            case (.property(let p), .literal(let v)), (.literal(let v), .property(let p)):
                guard !v.isNull else { return nil }
                name = p
            default: return nil
            }
            return indexes.first { $0.property == name }.map { ($0, term) }
        }
    }

    /// `SELECT count(*)` of at most `bound` current features meeting `term`, read through `index`.
    func probeStatement(_ term: FilterExpression, index: AttributeIndex, bound: Int, dialect: any SQLDialect) throws -> (String, [SQLValue]) {
        var b = SQLBuilder(dialect: dialect)
        let t = try FilterCompiler(table: table).compile(term, into: &b)
        return ("SELECT count(*) FROM (SELECT 1 FROM \(table.name) AS f INDEXED BY \(index.name) WHERE f.valid_to IS NULL AND \(t) LIMIT \(bound))",
                b.bindings)
    }

    /// Rows strictly after the cursor in the order (NULL smallest): for keys k1…kn and id,
    /// `k1 > v1 OR (k1 = v1 AND (k2 > v2 OR (… AND fid > id)))`, null-aware.
    private func keyset(keys: [String], cursor: PageCursor, into b: inout SQLBuilder) -> String {
        let d = b.dialect
        var tail = "f.fid > \(b.bind(.text(cursor.featureID)))"
        for i in stride(from: keys.count - 1, through: 0, by: -1) {
            let k = keys[i]
            let v = cursor.values[i]
            let ascending = query.sortBy[i].ascending
            let type = layer.schema.scalarType(of: query.sortBy[i].property)
            let after: String
            let equal: String
            if v.isNull {
                after = ascending ? "\(k) IS NOT NULL" : d.boolean(false)
                equal = "\(k) IS NULL"
            } else {
                let p1 = d.literal(v, type: type, into: &b)
                after = ascending ? "\(k) > \(p1)" : "(\(k) < \(p1) OR \(k) IS NULL)"
                let p2 = d.literal(v, type: type, into: &b)
                equal = "\(k) = \(p2)"
            }
            tail = "((\(after)) OR ((\(equal)) AND \(tail)))"
        }
        return tail
    }

    /// CRSs whose lon/lat numbers are the store's own (EPSG:4326 and CGCS2000 differ by
    /// less than a metre, below the precision of any bbox request).
    static let geographicAliases: Set<String> = [
        "EPSG:4490", "EPSG:4326", "OGC:CRS84", "CRS84",
        "http://www.opengis.net/def/crs/OGC/1.3/CRS84",
        "http://www.opengis.net/def/crs/EPSG/0/4490",
        "http://www.opengis.net/def/crs/EPSG/0/4326",
    ]

    /// The bbox in EPSG:4490 lon/lat degrees.
    static func storageEnvelope(_ bbox: BoundingBox) throws -> Envelope {
        let e = bbox.envelope
        guard e.minX.isFinite, e.minY.isFinite, e.maxX.isFinite, e.maxY.isFinite, e.minX <= e.maxX, e.minY <= e.maxY else {
            throw StoreError(.invalidQuery, "bbox must have finite bounds with min ≤ max", field: "bbox")
        }
        if geographicAliases.contains(bbox.crs) { return e }
        do {
            let crs = try CoordinateReferenceSystem(parsing: bbox.crs)
            if crs == .cgcs2000 || crs == .crs84 || crs == .wgs84 { return e }
            // Densified edges: a projected box's edges are curves in lon/lat.
            return try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(e, densify: 21)
        } catch let error as GeometryError {
            throw StoreError(.invalidQuery, "bbox CRS \(bbox.crs): \(error.message)", field: "bbox-crs")
        }
    }
}
