import Foundation
import GeoCore
import TwinStore

/// The validated parameters of `/collections/{collectionId}/items`: the store query plus
/// the response CRS. Every malformed value is a 400 naming its parameter; a parameter the
/// operation does not declare must be one of the caller's simple queryables (Part 3).
struct ItemsRequest {
    var query: FeatureQuery
    var projection: FeatureProjection
    /// The page size after clamping.
    var limit: Int

    static let defaultLimit = 100

    /// - Parameter declared: the parameters the operation declares (the rest must be queryables).
    init(_ p: QueryParameters, layer: LayerDefinition, caller: Caller, declared: Set<String>) throws {
        var q = FeatureQuery()
        limit = try Self.limit(p["limit"])
        q.limit = limit
        let bboxCRS = try p["bbox-crs"].map { try CRSParameter.parse($0, parameter: "bbox-crs") } ?? .crs84
        if let text = p["bbox"] {
            let box = try BBoxParameter.parse(text, crs: bboxCRS)
            // Features without a geometry match any bbox, which OGC API Features 1 requires
            // (/req/core/fc-bbox-response C, "SHALL match all features … not associated with a
            // spatial geometry, too"): a table layer answers every row; it is still checked above.
            if layer.hasGeometry { q.bbox = box }
        }
        if let text = p["datetime"] {
            let value = try DateTimeParameter.parse(text)
            // Features without a temporal property match any datetime.
            if layer.temporal != nil { q.datetime = value }
        }
        if let text = p["properties"] {
            let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            try names.forEach { try Self.requireKnown($0, in: layer, parameter: "properties") }
            q.properties = names
        }
        if let text = p["sortby"] {
            q.sortBy = try Self.sortKeys(text, layer: layer)
        }
        q.filter = try FilterParameter.selection(p, declared: declared,
                                                 queryables: FilterParameter.queryables(layer, for: caller))
        if let token = p["cursor"] {
            q.after = try PageCursor(token: token)
        }
        query = q
        let crs = try p["crs"].map { try CRSParameter.parse($0, parameter: "crs") } ?? .crs84
        projection = try FeatureProjection(target: crs)
    }

    /// `limit`: an integer ≥ 1; values above 10,000 are clamped (OGC API Features 1 /rec/core/limit).
    static func limit(_ text: String?) throws -> Int {
        guard let text else { return defaultLimit }
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)) else {
            // A huge integer is still an integer: clamp rather than reject.
            if !text.isEmpty, text.allSatisfy(\.isNumber), text.allSatisfy(\.isASCII) { return FeatureQuery.maximumLimit }
            throw Problem.invalid("limit", "'\(text)' is not an integer")
        }
        guard n >= 1 else { throw Problem.invalid("limit", "must be at least 1, got \(n)") }
        return min(n, FeatureQuery.maximumLimit)
    }

    /// `sortby=+name,-height`: `+` (or a space, `+` decoded from a query string) ascending, `-` descending.
    static func sortKeys(_ text: String, layer: LayerDefinition) throws -> [SortKey] {
        var keys = [SortKey]()
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            var item = raw.trimmingCharacters(in: .whitespaces)
            var ascending = true
            if item.hasPrefix("-") {
                ascending = false
                item.removeFirst()
            } else if item.hasPrefix("+") {
                item.removeFirst()
            }
            guard !item.isEmpty else { throw Problem.invalid("sortby", "an empty sort key in '\(text)'") }
            try requireKnown(item, in: layer, parameter: "sortby")
            guard !keys.contains(where: { $0.property == item }) else {
                throw Problem.invalid("sortby", "'\(item)' is listed twice")
            }
            keys.append(SortKey(item, ascending: ascending))
        }
        return keys
    }

    /// A property must be in the layer schema when the schema lists properties.
    static func requireKnown(_ name: String, in layer: LayerDefinition, parameter: String) throws {
        let declared = layer.schema.properties
        guard declared.isEmpty || declared[name] != nil else {
            throw Problem.invalid(parameter, "'\(name)' is not a property of collection '\(layer.id)'; known: \(declared.keys.sorted().joined(separator: ", "))")
        }
    }
}
