import GeoCore

/// SQL for SQLite 3.40+ with SpatiaLite 5: properties through `json_extract`, numbered `?NNN`
/// parameters (so one value can be used twice), bbox and spatial filters through the layer's
/// R*Tree `idx_f_<id>_geom`.
public struct SpatiaLiteDialect: SQLDialect {
    public init() {}

    public func placeholder(_ index: Int) -> String { "?\(index)" }

    public func property(_ name: String, type: PropertyType, into b: inout SQLBuilder) -> String {
        "json_extract(f.props, \(b.bind(.text("$.\"" + name + "\""))))"
    }

    public func indexedProperty(_ name: String, type: PropertyType, column: String) -> String {
        "json_extract(\(column), '$.\"\(name)\"')"
    }

    public func literal(_ value: JSONValue, type: PropertyType?, into b: inout SQLBuilder) -> String {
        b.bind(SQLValue(json: value))
    }

    public func arithmetic(_ op: ArithmeticOperator, _ lhs: String, _ rhs: String) -> String {
        op == .divide ? "(CAST(\(lhs) AS REAL) / \(rhs))" : "(\(lhs) \(op.rawValue) \(rhs))"
    }

    public func spatial(_ predicate: SpatialPredicate, _ geometry: Geometry, table: FeatureTable, into b: inout SQLBuilder) -> String {
        let g = self.geometry(fromWKB: b.bind(.geometry(geometry)))
        let function = predicate.sqlFunction
        let exact = "\(function)(f.geom, \(g)) = 1"
        // Every predicate but disjoint implies the boxes meet: let the R*Tree narrow first.
        guard predicate != .disjoint, let env = geometry.envelope else { return "(\(exact))" }
        // A feature without geometry is unknown (NULL) under every predicate, so NOT keeps it out,
        // as in PostGIS; the R*Tree test alone would make it plainly false.
        return "(CASE WHEN f.geom IS NULL THEN NULL ELSE (\(rtreeCandidates(env, table: table, into: &b)) AND \(exact)) END)"
    }

    public func geometry(fromWKB placeholder: String) -> String { "ST_GeomFromWKB(\(placeholder), 4490)" }

    public func wkb(_ column: String) -> String { "ST_AsBinary(\(column))" }

    /// The column holds the canonical text as written.
    public func propertiesText(_ column: String) -> String { column }

    public func like(_ text: String, pattern: String, caseInsensitive: Bool) -> String {
        // SQLite's LIKE ignores ASCII case; GLOB is the case-sensitive matcher.
        caseInsensitive ? "(\(text) LIKE \(pattern) ESCAPE '\\')" : "(\(text) GLOB \(pattern))"
    }

    public func likePattern(_ cql: String, caseInsensitive: Bool) -> String {
        if caseInsensitive { return cql }
        var out = ""
        var escaped = false
        for c in cql {
            if escaped {
                out += globLiteral(c)
                escaped = false
                continue
            }
            switch c {
            case "\\": escaped = true
            case "%": out += "*"
            case "_": out += "?"
            default: out += globLiteral(c)
            }
        }
        if escaped { out += "\\" }
        return out
    }

    private func globLiteral(_ c: Character) -> String {
        switch c {
        case "*": "[*]"
        case "?": "[?]"
        case "[": "[[]"
        default: String(c)
        }
    }

    public func instant(_ text: String) -> String { "julianday(\(text))" }


    public func boolean(_ value: Bool) -> String { value ? "1" : "0" }

    public func intersectsEnvelope(_ envelope: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String {
        let e = envelope
        let candidates = rtreeCandidates(e, table: table, into: &b)
        let box = "BuildMbr(\(b.bind(.double(e.minX))), \(b.bind(.double(e.minY))), \(b.bind(.double(e.maxX))), \(b.bind(.double(e.maxY))), 4490)"
        return "(\(candidates) AND ST_Intersects(f.geom, \(box)) = 1)"
    }

    /// The R*Tree candidates as a WHERE term of their own: a spatial filter's `CASE` (NULL for a
    /// feature without geometry) hides them from SQLite's planner, which then walks every current row.
    public func spatialCandidates(_ envelope: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String? {
        rtreeCandidates(envelope, table: table, into: &b)
    }

    /// Versions whose R*Tree box meets `e` (the R*Tree holds every version; validity is
    /// filtered by the caller's other conditions).
    private func rtreeCandidates(_ e: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String {
        "f.vid IN (SELECT pkid FROM \"idx_\(table.name)_geom\" WHERE xmin <= \(b.bind(.double(e.maxX))) AND xmax >= \(b.bind(.double(e.minX))) AND ymin <= \(b.bind(.double(e.maxY))) AND ymax >= \(b.bind(.double(e.minY))))"
    }
}
