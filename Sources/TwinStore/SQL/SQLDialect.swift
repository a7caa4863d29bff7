import GeoCore

/// A value bound to a statement parameter. Values are always bound, never spliced into SQL text.
public enum SQLValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
    /// A geometry in EPSG:4490; the backend binds its WKB.
    case geometry(Geometry)

    /// The SQL value of a JSON scalar; arrays and objects bind as their canonical JSON text.
    init(json v: JSONValue) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .integer(i)
        case .number(let d): self = .double(d)
        case .string(let s): self = .text(s)
        case .array, .object: self = .text(CanonicalJSON.text(v))
        }
    }
}

/// SQL text under construction with its bound parameters, numbered the way the dialect wants
/// (`?` for SQLite, `$1…` for PostgreSQL).
public struct SQLBuilder: Sendable {
    public let dialect: any SQLDialect
    public private(set) var bindings: [SQLValue] = []

    public init(dialect: any SQLDialect) { self.dialect = dialect }

    /// Adds a parameter and returns its placeholder.
    public mutating func bind(_ value: SQLValue) -> String {
        bindings.append(value)
        return dialect.placeholder(bindings.count)
    }
}

/// Where the compiled SQL finds a feature's parts: the per-layer table aliased `f` with columns
/// `fid`, `props` (JSON), `geom`, `valid_from`, `valid_to` (microseconds since 1970, UTC).
public struct FeatureTable: Sendable {
    /// The table name, `f_<layer id>` (safe: the id is `[a-z][a-z0-9_]*`).
    public var name: String
    public var layer: LayerDefinition
    public init(layer: LayerDefinition) {
        self.layer = layer
        self.name = "f_" + layer.id
    }
}

/// What differs between SQL backends. The filter compiler and the query builder speak only
/// through this, so SpatiaLite and PostGIS share them.
public protocol SQLDialect: Sendable {
    /// The placeholder of the `index`-th (1-based) parameter.
    func placeholder(_ index: Int) -> String
    /// A property of `f.props`, read as `type`, its name bound as a parameter.
    func property(_ name: String, type: PropertyType, into b: inout SQLBuilder) -> String
    /// A property of the properties column `column`, read as `type`, with its name written into
    /// the SQL: the expression an attribute index is built on, and the same text in a query so
    /// the planner can match the index. Only for a layer definition's own `indexes` (checked
    /// names without quotes or backslashes), never for a name a request sent.
    func indexedProperty(_ name: String, type: PropertyType, column: String) -> String
    /// A literal; `type` is the type of the property it is compared with, when known.
    func literal(_ value: JSONValue, type: PropertyType?, into b: inout SQLBuilder) -> String
    /// `lhs op rhs` for arithmetic (`/` is real division, as CQL2 says).
    func arithmetic(_ op: ArithmeticOperator, _ lhs: String, _ rhs: String) -> String
    /// A boolean SQL expression for `predicate(f.geom, geometry)`, using the spatial index
    /// where the predicate allows it.
    func spatial(_ predicate: SpatialPredicate, _ geometry: Geometry, table: FeatureTable, into b: inout SQLBuilder) -> String
    /// An expression turning a bound WKB parameter into a geometry in EPSG:4490.
    func geometry(fromWKB placeholder: String) -> String
    /// The geometry column as WKB (SpatiaLite) or EWKB (PostGIS) bytes for reading.
    func wkb(_ column: String) -> String
    /// The properties column as canonical JSON text for reading.
    func propertiesText(_ column: String) -> String
    /// A boolean expression: `text` matches the CQL2 LIKE `pattern` placeholder.
    func like(_ text: String, pattern: String, caseInsensitive: Bool) -> String
    /// The pattern to bind for a CQL2 LIKE pattern (`%`, `_`, `\` escapes).
    func likePattern(_ cql: String, caseInsensitive: Bool) -> String
    /// An instant from an RFC 3339 text expression, comparable with `<`, `=`.
    func instant(_ text: String) -> String
    /// `TRUE` / `FALSE`.
    func boolean(_ value: Bool) -> String
    /// The features of `table` whose geometry intersects `envelope` (EPSG:4490 degrees), using
    /// the spatial index (R*Tree or GiST).
    func intersectsEnvelope(_ envelope: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String
    /// A condition every feature meeting a `geometry` with `envelope` satisfies, that the planner
    /// can look up in the spatial index when the statement's WHERE has it as a term of its own
    /// (SpatiaLite: the R*Tree's row ids); `nil` where `spatial` already lets the planner use the
    /// index wherever it stands (PostGIS: `ST_Intersects` brings its own `&&`).
    func spatialCandidates(_ envelope: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String?
}

extension SQLDialect {
    /// A property of `f.props` in `layer`: the attribute index's own expression when the layer
    /// declares an index on it, a bound name otherwise.
    public func property(_ name: String, type: PropertyType, of layer: LayerDefinition, into b: inout SQLBuilder) -> String {
        if layer.indexes.contains(name), type == layer.schema.scalarType(of: name) {
            return indexedProperty(name, type: type, column: "f.props")
        }
        return property(name, type: type, into: &b)
    }

    public func spatialCandidates(_ envelope: Envelope, table: FeatureTable, into b: inout SQLBuilder) -> String? { nil }

    /// `expr ASC NULLS FIRST` / `expr DESC NULLS LAST`: NULL is the smallest value in both
    /// backends, which keyset paging relies on.
    public func order(_ expr: String, ascending: Bool) -> String {
        ascending ? "\(expr) ASC NULLS FIRST" : "\(expr) DESC NULLS LAST"
    }
}

extension SpatialPredicate {
    /// The SQL/MM function of the predicate: the same name in SpatiaLite and PostGIS.
    var sqlFunction: String {
        switch self {
        case .intersects: "ST_Intersects"
        case .contains: "ST_Contains"
        case .within: "ST_Within"
        case .disjoint: "ST_Disjoint"
        case .equals: "ST_Equals"
        case .touches: "ST_Touches"
        case .overlaps: "ST_Overlaps"
        case .crosses: "ST_Crosses"
        }
    }
}
