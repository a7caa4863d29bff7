import GeoCore
import ProcessRuntime
import TwinStore

/// One emergency resource (a shelter, hospital, fire station, warehouse or rescue team) as the
/// analyses use it: a point in CGCS2000 lon/lat (EPSG:4490) with its name, category and
/// capacity read from the layer's attributes (Layers/<layer>.json).
public struct EmergencyResource: Sendable, Hashable {
    /// The layer it comes from, e.g. `shelters`.
    public var layer: String
    /// Feature id.
    public var id: String
    public var name: String?
    /// The layer's class attribute: `category` (warehouses, rescue teams), `class` (shelters,
    /// fire stations) or `grade` (hospitals).
    public var category: String?
    /// `status` when the layer has one.
    public var status: String?
    /// Capacity in the layer's unit (shelter places, hospital beds, team members), when known.
    public var capacity: Double?
    /// Free capacity: `capacity` less the occupancy attribute when the layer has one.
    public var freeCapacity: Double?
    /// Position in lon/lat degrees (EPSG:4490).
    public var position: Position
    /// Every attribute as the caller may see it (masked attributes stay masked).
    public var properties: [String: JSONValue]

    public init(layer: String, id: String, name: String?, category: String?, status: String?, capacity: Double?,
                freeCapacity: Double?, position: Position, properties: [String: JSONValue]) {
        self.layer = layer
        self.id = id
        self.name = name
        self.category = category
        self.status = status
        self.capacity = capacity
        self.freeCapacity = freeCapacity
        self.position = position
        self.properties = properties
    }

    /// The resource layers of the sample district's emergency topic.
    public static let layers = ["shelters", "hospitals", "fire_stations", "warehouses", "rescue_teams"]
    /// Attributes read as the category, first present wins.
    public static let categoryProperties = ["category", "class", "grade"]
    /// Attributes read as the capacity, first present in the layer's schema wins.
    public static let capacityProperties = ["capacity", "beds", "members"]
    /// Attributes read as current occupancy (subtracted from capacity), first present wins.
    public static let occupancyProperties = ["occupancy", "occupied", "current_occupancy"]
}

/// Which resources a query wants: category, status and a minimum free capacity.
public struct ResourceFilter: Sendable, Hashable {
    /// Keep resources whose category is one of these (`nil`: any).
    public var categories: Set<String>?
    /// Keep resources with this status (`nil`: any).
    public var status: String?
    /// Keep resources with at least this much free capacity (`nil`: any), e.g. 800 shelter places.
    public var minimumFreeCapacity: Double?

    public init(categories: Set<String>? = nil, status: String? = nil, minimumFreeCapacity: Double? = nil) {
        self.categories = categories
        self.status = status
        self.minimumFreeCapacity = minimumFreeCapacity
    }

    /// No filtering.
    public static let any = ResourceFilter()

    /// Whether `resource` passes.
    public func admits(_ resource: EmergencyResource) -> Bool {
        if let c = categories, !(resource.category.map(c.contains) ?? false) { return false }
        if let s = status, resource.status != s { return false }
        if let m = minimumFreeCapacity, !((resource.freeCapacity ?? -.infinity) >= m) { return false }
        return true
    }
}

extension EmergencyResource {
    /// Reads the point resources of `layer` as `caller` may see them, keeping those `filter` admits.
    /// - Throws: `ScenarioError(.missingLayer)` naming `field` when the layer is missing or hidden,
    ///   has no point geometry, or the filter needs an attribute the layer lacks (status, capacity);
    ///   `StoreError` from the store.
    public static func load(layer: String, from store: any FeatureStore, filter: ResourceFilter = .any,
                            by caller: Caller, field: String = "layer") async throws -> [EmergencyResource] {
        try await loadChecked(layer: layer, from: store, filter: filter, by: caller, field: field).resources
    }

    /// A stored resource left out of every analysis because an attribute it is ranked or counted by is
    /// impossible (a negative capacity or occupancy, stored before the layer schemas said `minimum: 0`).
    public struct Invalid: Sendable, Hashable {
        public var layer: String
        public var id: String
        /// The attribute, e.g. `capacity`.
        public var field: String
        public var value: Double

        public var json: JSONValue {
            ["layer": .string(layer), "resource_id": .string(id), "field": .string(field), "value": .number(value),
             "reason": .string("\(field) \(value) is negative (allowed: ≥ 0): left out, never ranked; correct the feature")]
        }
    }

    /// ``load(layer:from:filter:by:field:)`` and the resources it left out as ``Invalid``.
    public static func loadChecked(layer: String, from store: any FeatureStore, filter: ResourceFilter = .any,
                                   by caller: Caller, field: String = "layer") async throws -> (resources: [EmergencyResource], invalid: [Invalid]) {
        let attributes = try await attributes(of: layer, in: store, filter: filter, by: caller, field: field)
        let (all, invalid) = try await readAll(layer: layer, from: store, attributes: attributes, by: caller)
        return (all.filter(filter.admits), invalid)
    }

    /// The attributes a layer's resources are read by: the first capacity and occupancy attributes of its schema.
    public struct Attributes: Sendable, Hashable {
        public var capacity: String?
        public var occupancy: String?
    }

    /// The capacity and occupancy attributes of `layer` as `caller` sees it.
    /// - Throws: `ScenarioError(.missingLayer)` naming `field` when the layer is missing or hidden,
    ///   has no geometry, or `filter` needs an attribute the layer lacks (status, capacity, category).
    public static func attributes(of layer: String, in store: any FeatureStore, filter: ResourceFilter = .any,
                                  by caller: Caller, field: String = "layer") async throws -> Attributes {
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            throw ScenarioError(.missingLayer, "no layer '\(layer)'", field: field)
        }
        guard definition.hasGeometry else {
            throw ScenarioError(.missingLayer, "layer '\(layer)' has no geometry", field: field)
        }
        let schema = definition.schema.properties
        if filter.status != nil, schema["status"] == nil {
            throw ScenarioError(.missingLayer, "layer '\(layer)' has no 'status' attribute to filter on", field: "status")
        }
        let capacityName = capacityProperties.first { schema[$0] != nil }
        if filter.minimumFreeCapacity != nil, capacityName == nil {
            throw ScenarioError(.missingLayer, "layer '\(layer)' has no capacity attribute (\(capacityProperties.joined(separator: ", ")))",
                                         field: "minimumCapacity")
        }
        if filter.categories != nil, !categoryProperties.contains(where: { schema[$0] != nil }) {
            throw ScenarioError(.missingLayer, "layer '\(layer)' has no category attribute (\(categoryProperties.joined(separator: ", ")))",
                                         field: "categories")
        }
        return Attributes(capacity: capacityName, occupancy: occupancyProperties.first { schema[$0] != nil })
    }

    /// Every resource of `layer` with a position, in the store's order, unfiltered, and those left out
    /// as ``Invalid`` (a negative capacity or occupancy).
    /// - Throws: `StoreError` from the store.
    public static func readAll(layer: String, from store: any FeatureStore, attributes: Attributes,
                               by caller: Caller) async throws -> (resources: [EmergencyResource], invalid: [Invalid]) {
        let capacityName = attributes.capacity, occupancyName = attributes.occupancy
        var out: [EmergencyResource] = []
        var invalid: [Invalid] = []
        for try await feature in store.stream(layer: layer, FeatureQuery(limit: 2000), by: caller) {
            guard let position = Self.point(of: feature.geometry) else { continue }
            let p = feature.properties
            let capacity = capacityName.flatMap { p[$0]?.doubleValue }
            let occupancy = occupancyName.flatMap { p[$0]?.doubleValue } ?? 0
            if let name = capacityName, let c = capacity, !(c >= 0) {
                invalid.append(Invalid(layer: layer, id: feature.id?.description ?? "", field: name, value: c))
                continue
            }
            if let name = occupancyName, !(occupancy >= 0) {
                invalid.append(Invalid(layer: layer, id: feature.id?.description ?? "", field: name, value: occupancy))
                continue
            }
            out.append(EmergencyResource(
                layer: layer, id: feature.id?.description ?? "", name: p["name"]?.stringValue,
                category: categoryProperties.lazy.compactMap { p[$0]?.stringValue }.first,
                status: p["status"]?.stringValue, capacity: capacity, freeCapacity: capacity.map { max(0, $0 - occupancy) },
                position: position, properties: p))
        }
        return (out, invalid)
    }

    /// The representative point of a resource: the point itself, else the envelope centre.
    package static func point(of geometry: Geometry?) -> Position? {
        switch geometry {
        case .point(let p)?: return p.position.map { Position(x: $0.x, y: $0.y) }
        case let g?: return g.envelope.map { Position(x: ($0.minX + $0.maxX) / 2, y: ($0.minY + $0.maxY) / 2) }
        case nil: return nil
        }
    }
}
