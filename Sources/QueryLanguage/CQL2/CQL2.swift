import Foundation
import GeoCore

/// OGC Common Query Language (CQL2, OGC 21-065 v1.0.0) for OGC API Features Part 3 `filter`:
/// cql2-text and cql2-json compiled into the store's `FilterExpression`.
///
/// Supported conformance classes: basic-cql2, advanced-comparison-operators (LIKE, BETWEEN, IN),
/// case-insensitive-comparison (CASEI in `=`, `<>` and LIKE), basic-spatial-functions(-plus) and
/// spatial-functions (all eight S_ predicates against a WKT, GeoJSON or BBOX literal),
/// temporal-functions (all fifteen T_ functions with one instant property and a literal),
/// arithmetic (`+ - * /`) and property-property comparisons. Not supported (a `CQLError` says
/// so): ACCENTI, array functions, custom functions, `DIV`, `%`, `^`, intervals of properties,
/// spatial or temporal functions between two properties.
///
/// ```swift
/// let f = try CQL2.parseText("floors >= 3 AND S_INTERSECTS(geometry, BBOX(114.2, 30.5, 114.4, 30.7))",
///                            queryables: Queryables(layer: buildings))
/// ```
public enum CQL2 {
    /// Parses a cql2-text filter.
    /// - Parameters:
    ///   - queryables: the layer's queryables; unknown properties and mistyped literals are
    ///     rejected. `nil` accepts any property name.
    ///   - filterCRS: the CRS of geometry literals (`filter-crs`), coordinates in its axis
    ///     order; `nil` means OGC:CRS84 (lon/lat degrees). Literals are transformed to EPSG:4490.
    /// - Throws: `CQLError` with `position` `"offset N"` (Unicode scalars from 0).
    public static func parseText(_ text: String, queryables: Queryables?,
                                 filterCRS: CoordinateReferenceSystem? = nil) throws -> FilterExpression {
        var parser = CQL2TextParser(text)
        let node = try parser.parse()
        return try CQL2Compiler(queryables: queryables, filterCRS: filterCRS ?? .crs84).filter(node)
    }

    /// Parses a cql2-json filter (UTF-8 JSON).
    /// - Parameters: as `parseText`.
    /// - Throws: `CQLError` with `position` a JSON path (`$.args[1]`), or `"byte N"` for
    ///   malformed JSON.
    public static func parseJSON(_ data: Data, queryables: Queryables?,
                                 filterCRS: CoordinateReferenceSystem? = nil) throws -> FilterExpression {
        let node = try CQL2JSONParser.parse(data)
        return try CQL2Compiler(queryables: queryables, filterCRS: filterCRS ?? .crs84).filter(node)
    }
}
