import Foundation
import GeoCore

/// A layer as the catalogue describes it, decoded from `Layers/<id>.json`.
///
/// The eight catalogue fields (分类 category, 责任方 owner, 格式 format, 属性 schema,
/// 更新时限 updateFrequency, 共享类型 sharing.type, 共享方式 sharing.method, 使用要求
/// sharing.requirements) are mandatory: a definition lacking any is rejected with a
/// `StoreError(.invalidLayerDefinition)` whose `field` names it.
public struct LayerDefinition: Sendable, Hashable {
    /// Safe identifier `[a-z][a-z0-9_]{0,47}`: it becomes part of table and index names, and
    /// PostgreSQL truncates identifiers at 63 bytes (`f_<id>_geom_gist` must fit).
    public var id: String
    public var title: LayerTitle
    public var category: CIMCategory
    /// The owner department (责任方, 谁主管谁提供谁负责); also the department allowed to write.
    public var owner: String
    /// 格式: "vector", "table", "raster", …
    public var format: String
    /// 更新时限: "monthly", "daily", "real-time", …
    public var updateFrequency: String
    public var sharing: SharingPolicy
    /// On the 负面清单: never visible through sharing or open APIs.
    public var negativeList: Bool
    /// The geometry type of every feature; `nil` for tables without geometry (sensor readings).
    /// When the file says `"Geometry"`, any type is accepted and `geometryType` is `nil` with
    /// `acceptsAnyGeometry` set.
    public var geometryType: GeometryType?
    public var acceptsAnyGeometry: Bool
    /// Whether geometries carry heights (optional `"hasZ": true`; default 2D).
    public var hasZ: Bool
    /// Always `"EPSG:4490"` (CGCS2000 geographic, lon/lat degrees).
    public var storageCRS: String
    public var schema: PropertySchema
    public var sensitive: [SensitiveAttribute]
    public var temporal: TemporalProperties?
    /// Display style, opaque to the store.
    public var style: JSONValue?
    /// The layer's data-quality rules (optional `"quality"` object: a unique key property, the
    /// network it forms), read by the `Governance` module's quality checks; opaque to the store.
    public var quality: JSONValue?
    /// Whether several departments build the layer, each writing its own features (`CoBuilding`).
    public var coBuilt: CoBuilding?
    /// The CIM level the layer's data reaches (optional `"cim_level"`: `"CIM1"` … `"CIM7"`).
    public var cimLevel: CIMLevel?
    /// The properties the store keeps an attribute index on (optional `"indexes"`, 属性索引): CQL2
    /// comparisons and `sortby` on them read the index instead of walking the layer. Each names a
    /// schema property of a scalar type (string, number, integer, boolean, date, date-time).
    public var indexes: [String] = []
    /// The Web Mercator zooms whose whole-map tiles carry the layer (optional `"tiles"`:
    /// `{"minzoom": 14}`, `{"minzoom": 10, "maxzoom": 16}`), as tippecanoe's and TileJSON's
    /// `vector_layers` ranges and GeoServer's scale rules: a city's two million door plates are
    /// not cut into a tile of the whole city. `nil`: every zoom. A collection's own tiles are cut
    /// at every zoom; other tile matrix sets map a level to its zoom (`TileMatrixSet.zoom(of:)`).
    public var tileZooms: ClosedRange<Int>?
    /// What the features describe when not the city as it stands (optional `"conditions"`): the
    /// results of what-if scenarios, marked as such wherever the layer is shown (`LayerConditions`).
    public var conditions: LayerConditions?

    /// Whether the layer holds what-if results (`conditions`), never the city as it stands.
    public var isWhatIf: Bool { conditions?.isWhatIf ?? false }

    /// The zooms a `"tiles"` range may name (OGC WebMercatorQuad's levels).
    public static let tileZoomLimits = 0...24

    /// Whether whole-map tiles at Web Mercator zoom `zoom` carry the layer.
    public func isTiled(atZoom zoom: Int) -> Bool { tileZooms?.contains(zoom) ?? true }

    /// Whether features have a geometry column.
    public var hasGeometry: Bool { geometryType != nil || acceptsAnyGeometry }

    /// The only storage CRS the store accepts.
    public static let storageCRS = "EPSG:4490"
    /// The SRID of `storageCRS`.
    public static let storageSRID: Int32 = 4490

    /// Builds and validates a definition from its JSON object.
    public init(json: JSONValue) throws {
        guard let o = json.objectValue else {
            throw StoreError(.invalidLayerDefinition, "a layer definition must be a JSON object")
        }
        let layerID = o["id"]?.stringValue
        func fail(_ field: String, _ why: String) -> StoreError {
            StoreError(.invalidLayerDefinition, why, layer: layerID, field: field)
        }
        func text(_ v: JSONValue?, _ field: String) throws -> String {
            guard let v else { throw fail(field, "the catalogue field \"\(field)\" is missing") }
            guard let s = v.stringValue else { throw fail(field, "\"\(field)\" must be a string") }
            guard !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw fail(field, "\"\(field)\" must not be empty")
            }
            return s
        }
        let id = try text(o["id"], "id")
        guard Self.isSafeIdentifier(id) else {
            throw fail("id", "layer id \"\(id)\" must match [a-z][a-z0-9_]{0,47}")
        }
        self.id = id
        guard let t = o["title"]?.objectValue else { throw fail("title", "\"title\" must be an object with zh and en") }
        self.title = LayerTitle(zh: try text(t["zh"], "title.zh"), en: try text(t["en"], "title.en"))
        let cat = try text(o["category"], "category")
        guard let category = CIMCategory(rawValue: cat) else {
            throw fail("category", "category \"\(cat)\" is not one of \(CIMCategory.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.category = category
        self.owner = try text(o["owner"], "owner")
        self.format = try text(o["format"], "format")
        guard let schemaJSON = o["schema"] else { throw fail("schema", "the catalogue field \"schema\" (attributes) is missing") }
        self.schema = try PropertySchema(json: schemaJSON, layer: id)
        self.updateFrequency = try text(o["updateFrequency"], "updateFrequency")
        guard let s = o["sharing"] else { throw fail("sharing", "the catalogue field \"sharing\" is missing") }
        guard let so = s.objectValue else { throw fail("sharing", "\"sharing\" must be an object") }
        let typeText = try text(so["type"], "sharing.type")
        guard let sharingType = SharingType(rawValue: typeText) else {
            throw fail("sharing.type", "sharing type \"\(typeText)\" is not one of open, shared, conditional, not-shared")
        }
        var grants: [AggregateGrant] = []
        switch so["aggregates"] {
        case nil, .null?: break
        case .array(let list)?:
            for (i, item) in list.enumerated() {
                let at = "sharing.aggregates[\(i)]"
                guard let g = item.objectValue else { throw fail(at, "must be an object with process, departments and purpose") }
                guard let names = g["departments"]?.arrayValue?.compactMap(\.stringValue), !names.isEmpty,
                      names.count == g["departments"]?.arrayValue?.count else {
                    throw fail(at + ".departments", "must list the departments (at least one name) the owner grants the aggregates to")
                }
                grants.append(AggregateGrant(process: try text(g["process"], at + ".process"), departments: names,
                                             purpose: try text(g["purpose"], at + ".purpose")))
            }
        default: throw fail("sharing.aggregates", "must be an array of {process, departments, purpose}")
        }
        var k: Int?
        if let kValue = so["k"], kValue != .null {
            guard let n = kValue.doubleValue, n == n.rounded(), SharingPolicy.kRange.contains(Int(exactly: n) ?? 0) else {
                throw fail("sharing.k", "must be a whole number of records, \(SharingPolicy.kRange.lowerBound)…\(SharingPolicy.kRange.upperBound)")
            }
            k = Int(n)
        }
        self.sharing = SharingPolicy(type: sharingType, method: try text(so["method"], "sharing.method"),
                                     requirements: try text(so["requirements"], "sharing.requirements"), aggregateGrants: grants, k: k)
        switch o["negativeList"] {
        case nil, .null?: self.negativeList = false
        case .bool(let b)?: self.negativeList = b
        default: throw fail("negativeList", "\"negativeList\" must be true or false")
        }
        switch o["geometryType"] {
        case nil, .null?:
            self.geometryType = nil
            self.acceptsAnyGeometry = false
        case .string("Geometry")?:
            self.geometryType = nil
            self.acceptsAnyGeometry = true
        case .string(let g)?:
            guard let gt = GeometryType(rawValue: g) else { throw fail("geometryType", "unknown geometry type \"\(g)\"") }
            self.geometryType = gt
            self.acceptsAnyGeometry = false
        default: throw fail("geometryType", "\"geometryType\" must be a geometry type name or null")
        }
        switch o["hasZ"] {
        case nil, .null?: self.hasZ = false
        case .bool(let b)?: self.hasZ = b
        default: throw fail("hasZ", "\"hasZ\" must be true or false")
        }
        let crs = o["storageCRS"]?.stringValue ?? Self.storageCRS
        guard crs == Self.storageCRS else { throw fail("storageCRS", "the storage CRS must be EPSG:4490, not \(crs)") }
        self.storageCRS = crs
        var sensitive = [SensitiveAttribute]()
        if let sv = o["sensitive"], !sv.isNull {
            guard let a = sv.arrayValue else { throw fail("sensitive", "\"sensitive\" must be an array") }
            for (i, item) in a.enumerated() {
                let f = "sensitive[\(i)]"
                guard let io = item.objectValue else { throw fail(f, "a sensitive entry must be an object") }
                let attr = try text(io["attribute"], f + ".attribute")
                let maskText = try text(io["mask"], f + ".mask")
                guard let mask = MaskRule(rawValue: maskText) else {
                    throw fail(f + ".mask", "mask \"\(maskText)\" is not one of \(MaskRule.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                var visible = [String]()
                if let v = io["visibleTo"] {
                    guard let va = v.arrayValue, va.allSatisfy({ $0.stringValue != nil }) else {
                        throw fail(f + ".visibleTo", "visibleTo must be an array of department names")
                    }
                    visible = va.compactMap(\.stringValue)
                }
                sensitive.append(SensitiveAttribute(attribute: attr, mask: mask, visibleTo: visible))
            }
        }
        self.sensitive = sensitive
        if let tv = o["temporal"], !tv.isNull {
            guard let to = tv.objectValue else { throw fail("temporal", "\"temporal\" must be an object") }
            let start = try text(to["start"], "temporal.start")
            let end = try to["end"].map { try text($0, "temporal.end") }
            self.temporal = TemporalProperties(start: start, end: end)
        } else {
            self.temporal = nil
        }
        self.style = o["style"]
        self.coBuilt = try CoBuilding.parse(o["coBuilt"]) { fail("coBuilt", $0) }
        switch o["cim_level"] {
        case nil, .null?: self.cimLevel = nil
        case .string(let text)?:
            guard let level = CIMLevel(rawValue: text) else {
                throw fail("cim_level", "cim_level \"\(text)\" is not one of \(CIMLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.cimLevel = level
        default: throw fail("cim_level", "\"cim_level\" must be a string (CIM1 … CIM7)")
        }
        switch o["quality"] {
        case nil, .null?: self.quality = nil
        case .object(let q)?: self.quality = .object(q)
        default: throw fail("quality", "\"quality\" must be an object")
        }
        self.indexes = try Self.parseIndexes(o["indexes"], schema: schema, fail: fail)
        self.tileZooms = try Self.parseTileZooms(o["tiles"], fail: fail)
        if tileZooms != nil, !hasGeometry { throw fail("tiles", "the layer has no geometry, so it has no tiles and no zoom range") }
        self.conditions = try LayerConditions.parse(o["conditions"], fail: fail)
    }

    private static func parseTileZooms(_ value: JSONValue?, fail: (String, String) -> StoreError) throws -> ClosedRange<Int>? {
        guard let value, !value.isNull else { return nil }
        guard let o = value.objectValue else { throw fail("tiles", "\"tiles\" must be an object with minzoom and/or maxzoom") }
        if let other = o.keys.sorted().first(where: { $0 != "minzoom" && $0 != "maxzoom" }) {
            throw fail("tiles.\(other)", "\"tiles\" takes minzoom and maxzoom only, not \"\(other)\"")
        }
        func zoom(_ key: String, _ otherwise: Int) throws -> Int {
            guard let v = o[key], !v.isNull else { return otherwise }
            guard let d = v.doubleValue, d == d.rounded(), tileZoomLimits.contains(Int(exactly: d) ?? -1) else {
                throw fail("tiles.\(key)", "\"\(key)\" must be an integer zoom from \(tileZoomLimits.lowerBound) to \(tileZoomLimits.upperBound)")
            }
            return Int(d)
        }
        let low = try zoom("minzoom", tileZoomLimits.lowerBound), high = try zoom("maxzoom", tileZoomLimits.upperBound)
        guard low <= high else { throw fail("tiles.maxzoom", "maxzoom \(high) is below minzoom \(low)") }
        return low...high
    }

    /// The most attribute indexes a layer may declare (each costs every write of the layer).
    public static let maximumIndexes = 16

    private static func parseIndexes(_ value: JSONValue?, schema: PropertySchema,
                                     fail: (String, String) -> StoreError) throws -> [String] {
        guard let value, !value.isNull else { return [] }
        guard let items = value.arrayValue else { throw fail("indexes", "\"indexes\" must be an array of property names") }
        guard items.count <= maximumIndexes else {
            throw fail("indexes", "\"indexes\" names \(items.count) properties; at most \(maximumIndexes) are allowed")
        }
        var names = [String]()
        for (i, item) in items.enumerated() {
            let field = "indexes[\(i)]"
            guard let name = item.stringValue else { throw fail(field, "an index entry must be a property name (a string)") }
            guard let rule = schema.properties[name] else {
                throw fail(field, "\"\(name)\" is not a property of the layer's schema")
            }
            guard rule.scalarType != .json else {
                throw fail(field, "\"\(name)\" is not of one scalar type (string, number, integer, boolean, date, date-time): it cannot be indexed")
            }
            // The name is written into the index's expression: quotes and backslashes are refused.
            guard !name.isEmpty, !name.contains(where: { $0 == "\"" || $0 == "'" || $0 == "\\" }) else {
                throw fail(field, "property \"\(name)\" holds a quote or backslash and cannot be indexed")
            }
            guard !names.contains(name) else { throw fail(field, "\"\(name)\" is named twice") }
            names.append(name)
        }
        return names
    }

    /// The definition's JSON object, in the file format.
    public var json: JSONValue {
        var sharingJSON: [String: JSONValue] = ["type": .string(sharing.type.rawValue), "method": .string(sharing.method),
                                                "requirements": .string(sharing.requirements)]
        if let k = sharing.k { sharingJSON["k"] = .integer(Int64(k)) }
        if !sharing.aggregateGrants.isEmpty {
            sharingJSON["aggregates"] = .array(sharing.aggregateGrants.map {
                ["process": .string($0.process), "departments": .array($0.departments.map(JSONValue.string)), "purpose": .string($0.purpose)]
            })
        }
        var o: [String: JSONValue] = [
            "id": .string(id),
            "title": ["zh": .string(title.zh), "en": .string(title.en)],
            "category": .string(category.rawValue),
            "owner": .string(owner),
            "format": .string(format),
            "updateFrequency": .string(updateFrequency),
            "sharing": .object(sharingJSON),
            "negativeList": .bool(negativeList),
            "geometryType": acceptsAnyGeometry ? "Geometry" : geometryType.map { .string($0.rawValue) } ?? .null,
            "storageCRS": .string(storageCRS),
            "schema": schema.json,
            "sensitive": .array(sensitive.map {
                ["attribute": .string($0.attribute), "mask": .string($0.mask.rawValue),
                 "visibleTo": .array($0.visibleTo.map { .string($0) })]
            }),
        ]
        if hasZ { o["hasZ"] = true }
        if let temporal {
            var t: [String: JSONValue] = ["start": .string(temporal.start)]
            if let e = temporal.end { t["end"] = .string(e) }
            o["temporal"] = .object(t)
        }
        if let style { o["style"] = style }
        if let quality { o["quality"] = quality }
        if let coBuilt { o["coBuilt"] = coBuilt.json }
        if let cimLevel { o["cim_level"] = .string(cimLevel.rawValue) }
        if !indexes.isEmpty { o["indexes"] = .array(indexes.map { .string($0) }) }
        if let tileZooms {
            var t: [String: JSONValue] = ["minzoom": .integer(Int64(tileZooms.lowerBound))]
            if tileZooms.upperBound != Self.tileZoomLimits.upperBound { t["maxzoom"] = .integer(Int64(tileZooms.upperBound)) }
            o["tiles"] = .object(t)
        }
        if let conditions { o["conditions"] = conditions.json }
        return .object(o)
    }

    /// Whether `s` is a safe layer id: `[a-z][a-z0-9_]{0,47}`.
    public static func isSafeIdentifier(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard let first = u.first, (97...122).contains(first), u.count <= 48 else { return false }
        return u.dropFirst().allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    /// The sensitive rule for `attribute`, if any.
    public func sensitivity(of attribute: String) -> SensitiveAttribute? {
        sensitive.first { $0.attribute == attribute }
    }
}

extension LayerDefinition: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(json: try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
