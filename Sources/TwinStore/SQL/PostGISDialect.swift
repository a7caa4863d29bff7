import GeoCore

/// SQL for PostgreSQL 14+ with PostGIS 3: properties in a `jsonb` column read with `->>` and
/// cast to the schema's type, `$n` parameters, GiST-indexed `&&` for boxes.
public struct PostGISDialect: SQLDialect {
    public init() {}

    public func placeholder(_ index: Int) -> String { "$\(index)" }

    public func property(_ name: String, type: PropertyType, into b: inout SQLBuilder) -> String {
        let key = b.bind(.text(name))
        switch type {
        case .string, .dateTime, .date: return "(f.props->>\(key))"
        case .number, .integer: return "((f.props->>\(key))::double precision)"
        case .boolean: return "((f.props->>\(key))::boolean)"
        case .json: return "(f.props->\(key))"
        }
    }

    public func literal(_ value: JSONValue, type: PropertyType?, into b: inout SQLBuilder) -> String {
        switch type {
        case .json?, nil:
            if case .null = value { return "NULL" }
            return "(\(b.bind(.text(CanonicalJSON.text(value))))::jsonb)"
        case .number?, .integer?:
            if let d = value.doubleValue { return "(\(b.bind(.double(d)))::double precision)" }
            return b.bind(SQLValue(json: value))
        case .boolean?:
            return "(\(b.bind(SQLValue(json: value)))::boolean)"
        case .string?, .dateTime?, .date?:
            if case .string(let s) = value { return "(\(b.bind(.text(s)))::text)" }
            return b.bind(SQLValue(json: value))
        }
    }

    public func arithmetic(_ op: ArithmeticOperator, _ lhs: String, _ rhs: String) -> String {
        op == .divide ? "((\(lhs))::double precision / \(rhs))" : "(\(lhs) \(op.rawValue) \(rhs))"
    }

    public func spatial(_ predicate: SpatialPredicate, _ geometry: Geometry, table: FeatureTable, into b: inout SQLBuilder) -> String {
        let g = self.geometry(fromWKB: b.bind(.geometry(geometry)))
        let function: String
        switch predicate {
        case .intersects: function = "ST_Intersects"
        case .contains: function = "ST_Contains"
        case .within: function = "ST_Within"
        case .disjoint: function = "ST_Disjoint"
        case .equals: function = "ST_Equals"
        case .touches: function = "ST_Touches"
        case .overlaps: function = "ST_Overlaps"
        case .crosses: function = "ST_Crosses"
        }
        return "\(function)(f.geom, \(g))"
    }

    public func geometry(fromWKB placeholder: String) -> String { "ST_GeomFromWKB(\(placeholder), 4490)" }

    public func wkb(_ column: String) -> String { "ST_AsBinary(\(column))" }

    public func like(_ text: String, pattern: String, caseInsensitive: Bool) -> String {
        caseInsensitive ? "(\(text) ILIKE \(pattern))" : "(\(text) LIKE \(pattern))"
    }

    /// CQL2 and PostgreSQL share `%`, `_` and the `\` escape.
    public func likePattern(_ cql: String, caseInsensitive: Bool) -> String { cql }

    public func instant(_ text: String) -> String { "(\(text))::timestamptz" }


    public func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }

    public func intersectsEnvelope(_ envelope: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String {
        let box = "ST_MakeEnvelope(\(b.bind(.double(envelope.minX))), \(b.bind(.double(envelope.minY))), \(b.bind(.double(envelope.maxX))), \(b.bind(.double(envelope.maxY))), 4490)"
        return "(f.geom && \(box) AND ST_Intersects(f.geom, \(box)))"
    }
}
