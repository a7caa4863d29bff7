import GeoCore

/// SQL for PostgreSQL 14+ with PostGIS 3: properties in a `jsonb` column read with `->>` and
/// cast to the schema's type, `$n` parameters, GiST-indexed `&&` for boxes. Text compares and
/// sorts by code point (`COLLATE "C"`), as SQLite's BINARY collation does.
public struct PostGISDialect: SQLDialect {
    public init() {}

    public func placeholder(_ index: Int) -> String { "$\(index)" }

    public func property(_ name: String, type: PropertyType, into b: inout SQLBuilder) -> String {
        Self.read(key: b.bind(.text(name)), type: type, column: "f.props")
    }

    public func indexedProperty(_ name: String, type: PropertyType, column: String) -> String {
        Self.read(key: "'\(name)'", type: type, column: column)
    }

    private static func read(key: String, type: PropertyType, column: String) -> String {
        switch type {
        case .string, .dateTime, .date: "((\(column)->>\(key)) COLLATE \"C\")"
        case .number, .integer: "((\(column)->>\(key))::double precision)"
        case .boolean: "((\(column)->>\(key))::boolean)"
        case .json: "(\(column)->\(key))"
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
        // Division by zero is NULL, as in SQLite (PostgreSQL would raise).
        op == .divide ? "((\(lhs))::double precision / NULLIF(\(rhs), 0))" : "(\(lhs) \(op.rawValue) \(rhs))"
    }

    public func spatial(_ predicate: SpatialPredicate, _ geometry: Geometry, table: FeatureTable, into b: inout SQLBuilder) -> String {
        let g = self.geometry(fromWKB: b.bind(.geometry(geometry)))
        let function = predicate.sqlFunction
        return "\(function)(f.geom, \(g))"
    }

    /// The bound value is EWKB with SRID 4490 (see `SQLValue.geometry`).
    public func geometry(fromWKB placeholder: String) -> String { "ST_GeomFromEWKB(\(placeholder))" }

    public func wkb(_ column: String) -> String { "ST_AsEWKB(\(column))" }

    /// jsonb printed as text; numbers keep their value, so decoding gives the same `JSONValue`.
    public func propertiesText(_ column: String) -> String { "(\(column))::text" }

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
