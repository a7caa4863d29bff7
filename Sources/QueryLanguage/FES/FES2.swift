import Foundation
import GeoCore

/// OGC Filter Encoding 2.0 (09-026r2) filters, as WFS 2.0 clients send them in `FILTER`,
/// translated into CQL2's parse tree and compiled by the one CQL2 compiler, so a FES filter
/// means what the same CQL2 filter means (queryables, types, masking, SQL).
///
/// Supported (the `fes:Filter_Capabilities` of `/wfs` list exactly these): the comparison
/// operators (`PropertyIsEqualTo`, `…NotEqualTo`, `…LessThan`, `…GreaterThan`,
/// `…LessThanOrEqualTo`, `…GreaterThanOrEqualTo`, with `matchCase="false"` for = and <>),
/// `PropertyIsLike` (any `wildCard`, `singleChar`, `escapeChar`), `PropertyIsNull`,
/// `PropertyIsBetween`; the spatial operators `BBOX`, `Intersects`, `Within`, `Contains`,
/// `Disjoint`, `Equals`, `Touches`, `Overlaps`, `Crosses` against GML 3.2 geometries; `And`,
/// `Or`, `Not`; `ResourceId`. Anything else (`DWithin`, `Beyond`, temporal operators,
/// `Function`, `PropertyIsNil`) is a `FESError.unsupported` naming it.
public enum FES2 {
    /// What a filter selects: a predicate, or features by id (`fes:ResourceId`), never both.
    public struct Selection: Sendable, Hashable {
        public var expression: FilterExpression?
        /// The `rid`s of `fes:ResourceId` elements, in order (`nil`: none).
        public var resourceIds: [String]?
    }

    public static let comparisonOperators: [String: String] = [
        "PropertyIsEqualTo": "=", "PropertyIsNotEqualTo": "<>", "PropertyIsLessThan": "<", "PropertyIsGreaterThan": ">",
        "PropertyIsLessThanOrEqualTo": "<=", "PropertyIsGreaterThanOrEqualTo": ">=",
    ]
    public static let otherComparisonOperators = ["PropertyIsLike", "PropertyIsNull", "PropertyIsBetween"]
    public static let spatialOperators: [String: String] = [
        "BBOX": "s_intersects", "Intersects": "s_intersects", "Within": "s_within", "Contains": "s_contains",
        "Disjoint": "s_disjoint", "Equals": "s_equals", "Touches": "s_touches", "Overlaps": "s_overlaps", "Crosses": "s_crosses",
    ]
    public static let logicalOperators = ["And", "Or", "Not"]

    /// The name queryables and GML give the feature geometry.
    public static let geometryName = "geometry"

    /// Parses a `fes:Filter` document.
    /// - Parameters:
    ///   - queryables: the layer's queryables (unknown properties and mistyped literals are
    ///     refused); `nil` accepts any name.
    ///   - defaultCRS: the CRS of a geometry without `srsName` (the request's `SRSNAME`, else
    ///     the service's default).
    /// - Throws: `FESError` for malformed XML or unsupported operators, `CQLError` for a
    ///   filter the CQL2 compiler refuses (unknown property, type mismatch).
    public static func parse(_ text: String, queryables: Queryables?, defaultCRS: GMLCRS = .storage) throws -> Selection {
        let root = try XMLTree.parse(Data(text.utf8))
        guard root.name == "Filter" else { throw FESError(.malformed, "the filter's root element is \(root.qualifiedName), not fes:Filter") }
        let translator = Translator(queryables: queryables, geometries: GMLGeometryReader(defaultCRS: defaultCRS))
        let ids = root.children(named: "ResourceId")
        if !ids.isEmpty {
            guard ids.count == root.children.count else {
                throw FESError(.malformed, "fes:ResourceId cannot be combined with other operators in one filter")
            }
            return Selection(expression: nil, resourceIds: try ids.map {
                guard let rid = $0.attributes["rid"], !rid.isEmpty else { throw FESError(.malformed, "fes:ResourceId needs a rid attribute") }
                return rid
            })
        }
        guard root.children.count == 1 else {
            throw FESError(.malformed, "fes:Filter holds \(root.children.count) operators: combine them with fes:And or fes:Or")
        }
        let node = try translator.predicate(root.children[0], path: "fes:Filter")
        return Selection(expression: try CQL2Compiler(queryables: queryables, filterCRS: .crs84).filter(node), resourceIds: nil)
    }

    /// FES elements into CQL2 nodes (positions are element paths, for messages).
    struct Translator {
        let queryables: Queryables?
        let geometries: GMLGeometryReader

        func predicate(_ e: XMLTree, path parent: String) throws -> CQL2Node {
            let path = parent + "/" + e.qualifiedName
            func node(_ kind: CQL2Node.Kind) -> CQL2Node { CQL2Node(kind, at: path, token: e.qualifiedName) }
            switch e.name {
            case "And", "Or":
                guard e.children.count >= 2 else { throw FESError(.malformed, "\(e.qualifiedName) needs at least 2 operands at \(path)") }
                return node(.op(e.name.lowercased(), try e.children.map { try predicate($0, path: path) }))
            case "Not":
                guard e.children.count == 1 else { throw FESError(.malformed, "fes:Not needs 1 operand at \(path)") }
                return node(.op("not", [try predicate(e.children[0], path: path)]))
            case _ where comparisonOperators[e.name] != nil:
                let op = comparisonOperators[e.name] ?? "="
                guard e.children.count == 2 else { throw FESError(.malformed, "\(e.qualifiedName) needs 2 operands at \(path)") }
                var (a, b) = try typedPair(e.children[0], e.children[1], path: path)
                if e.attributes["matchCase"]?.lowercased() == "false", op == "=" || op == "<>" {
                    (a, b) = (CQL2Node(.op("casei", [a]), at: a.position, token: a.token), CQL2Node(.op("casei", [b]), at: b.position, token: b.token))
                }
                return node(.op(op, [a, b]))
            case "PropertyIsLike":
                guard e.children.count == 2, e.children[1].name == "Literal" else {
                    throw FESError(.malformed, "fes:PropertyIsLike needs a fes:ValueReference and a fes:Literal at \(path)")
                }
                var value = try expression(e.children[0], path: path, type: .string)
                var pattern = CQL2Node(.string(try likePattern(e)), at: path + "/fes:Literal", token: e.children[1].text)
                if e.attributes["matchCase"]?.lowercased() == "false" {
                    value = CQL2Node(.op("casei", [value]), at: value.position, token: value.token)
                    pattern = CQL2Node(.op("casei", [pattern]), at: pattern.position, token: pattern.token)
                }
                return node(.op("like", [value, pattern]))
            case "PropertyIsNull":
                guard e.children.count == 1 else { throw FESError(.malformed, "fes:PropertyIsNull needs 1 operand at \(path)") }
                return node(.op("isnull", [try expression(e.children[0], path: path, type: nil)]))
            case "PropertyIsBetween":
                guard e.children.count == 3, let lower = e.child(named: "LowerBoundary")?.children.first,
                      let upper = e.child(named: "UpperBoundary")?.children.first else {
                    throw FESError(.malformed, "fes:PropertyIsBetween needs an expression, fes:LowerBoundary and fes:UpperBoundary at \(path)")
                }
                let value = try expression(e.children[0], path: path, type: nil)
                let type = propertyType(value)
                return node(.op("between", [value, try expression(lower, path: path, type: type), try expression(upper, path: path, type: type)]))
            case _ where spatialOperators[e.name] != nil:
                let references = e.children(named: "ValueReference")
                let shapes = e.children.filter { GMLGeometryReader.geometryNames.contains($0.name) }
                guard references.count <= 1, shapes.count == 1, references.count + shapes.count == e.children.count,
                      e.name == "BBOX" || references.count == 1 else {
                    throw FESError(.malformed, "\(e.qualifiedName) needs \(e.name == "BBOX" ? "an optional" : "a") fes:ValueReference and one GML geometry at \(path)")
                }
                let property = try references.first.map { try expression($0, path: path, type: nil) }
                    ?? CQL2Node(.property(FES2.geometryName), at: path, token: FES2.geometryName)
                let geometry = CQL2Node(.geometry(try geometries.geometry(shapes[0])), at: path + "/" + shapes[0].qualifiedName, token: shapes[0].qualifiedName)
                return node(.op(spatialOperators[e.name] ?? "s_intersects", [property, geometry]))
            case "ResourceId":
                throw FESError(.malformed, "fes:ResourceId can only stand directly in fes:Filter (at \(path))")
            default:
                throw FESError(.unsupported, "the filter operator \(e.qualifiedName) is not supported (at \(path)); supported: "
                               + (comparisonOperators.keys.sorted() + otherComparisonOperators + spatialOperators.keys.sorted() + logicalOperators + ["ResourceId"])
                               .joined(separator: ", "))
            }
        }

        /// The two operands of a comparison, a literal typed by the property on the other side.
        func typedPair(_ a: XMLTree, _ b: XMLTree, path: String) throws -> (CQL2Node, CQL2Node) {
            let left = try expression(a, path: path, type: nil)
            let right = try expression(b, path: path, type: propertyType(left))
            if a.name == "Literal", case .property = right.kind {
                return (try expression(a, path: path, type: propertyType(right)), right)
            }
            return (left, right)
        }

        func propertyType(_ n: CQL2Node) -> Queryables.ValueType? {
            if case .property(let p) = n.kind { return queryables?.properties[p] }
            return nil
        }

        /// A `fes:ValueReference` (its last step, prefix dropped) or a `fes:Literal` of the type
        /// the other operand needs (its text otherwise).
        func expression(_ e: XMLTree, path parent: String, type: Queryables.ValueType?) throws -> CQL2Node {
            let path = parent + "/" + e.qualifiedName
            switch e.name {
            case "ValueReference", "PropertyName":
                let step = e.text.split(separator: "/").last.map(String.init) ?? ""
                let name = XMLTree.localName(step)
                guard !name.isEmpty, !name.hasPrefix("@") else { throw FESError(.malformed, "fes:ValueReference '\(e.text)' names no property at \(path)") }
                return CQL2Node(.property(name), at: path, token: e.text)
            case "Literal":
                return CQL2Node(try literal(e.text, type: type, path: path), at: path, token: "'\(e.text)'")
            case "Function":
                throw FESError(.unsupported, "fes:Function '\(e.attributes["name"] ?? "")' is not supported (at \(path))")
            default:
                throw FESError(.malformed, "expected fes:ValueReference or fes:Literal at \(path), found \(e.qualifiedName)")
            }
        }

        func literal(_ text: String, type: Queryables.ValueType?, path: String) throws -> CQL2Node.Kind {
            func bad(_ what: String) -> FESError { FESError(.malformed, "fes:Literal '\(text)' is not \(what) at \(path)") }
            switch type {
            case .integer?, .number?:
                if let i = Int64(text) { return .number(.integer(i)) }
                guard let d = Double(text), d.isFinite else { throw bad("a number") }
                return .number(CQL2Syntax.number(d))
            case .boolean?:
                switch text.lowercased() {
                case "true", "1": return .boolean(true)
                case "false", "0": return .boolean(false)
                default: throw bad("true or false")
                }
            case .dateTime?: return .timestamp(text)
            case .date?: return .date(text)
            default: return .string(text)
            }
        }

        /// A `PropertyIsLike` pattern in CQL2's form (`%`, `_`, `\`).
        func likePattern(_ e: XMLTree) throws -> String {
            let wild = e.attributes["wildCard"] ?? "*", single = e.attributes["singleChar"] ?? "?"
            let escape = e.attributes["escapeChar"] ?? e.attributes["escape"] ?? "\\"
            guard wild.count == 1, single.count == 1, escape.count == 1 else {
                throw FESError(.malformed, "fes:PropertyIsLike: wildCard, singleChar and escapeChar must be one character each")
            }
            var out = "", escaped = false
            for c in e.children[1].text {
                if escaped {
                    if c == "%" || c == "_" || c == "\\" { out.append("\\") }
                    out.append(c)
                    escaped = false
                } else if String(c) == escape { escaped = true
                } else if String(c) == wild { out.append("%")
                } else if String(c) == single { out.append("_")
                } else {
                    if c == "%" || c == "_" || c == "\\" { out.append("\\") }
                    out.append(c)
                }
            }
            return out
        }
    }
}
