import Foundation
import GeoCore

/// A bounding box with the CRS its numbers are in.
public struct BoundingBox: Hashable, Sendable {
    /// `minX/maxX` are longitudes (or eastings), `minY/maxY` latitudes (or northings), in
    /// CityTwin's internal lon/lat axis order whatever the CRS's authority order.
    public var envelope: Envelope
    /// The CRS of `envelope` as `CoordinateReferenceSystem(parsing:)` reads it: `"EPSG:4490"`
    /// (default), `"OGC:CRS84"`, `"EPSG:4326"` are used as they are; any other CRS PROJ knows
    /// (e.g. `"EPSG:4547"`, metres) is transformed to EPSG:4490 with densified edges.
    public var crs: String

    public init(_ envelope: Envelope, crs: String = LayerDefinition.storageCRS) {
        self.envelope = envelope
        self.crs = crs
    }
}

/// One sort key: a property and a direction. Ties are broken by feature id, so paging is stable.
public struct SortKey: Hashable, Sendable, Codable {
    public var property: String
    public var ascending: Bool
    public init(_ property: String, ascending: Bool = true) {
        self.property = property
        self.ascending = ascending
    }
}

/// What to read from a layer. Every field narrows or orders the result; the defaults read the
/// current version of every feature in id order.
public struct FeatureQuery: Hashable, Sendable {
    public var bbox: BoundingBox?
    public var filter: FilterExpression?
    /// Read the versions valid at this instant; `nil` reads the latest versions.
    public var asOf: Date?
    /// Features whose temporal property (the layer's `temporal.start`…`end`) meets this
    /// instant or interval (OGC API `datetime`).
    public var datetime: TemporalValue?
    /// Properties to return; `nil` returns all (masking still applies).
    public var properties: [String]?
    public var sortBy: [SortKey]
    /// Page size: 1…10,000 (default 100).
    public var limit: Int
    /// Continue after this cursor (from a previous page of the same query).
    public var after: PageCursor?

    /// Largest page the store hands out in one call; `stream` for more.
    public static let maximumLimit = 10_000

    public init(bbox: BoundingBox? = nil, filter: FilterExpression? = nil, asOf: Date? = nil,
                datetime: TemporalValue? = nil, properties: [String]? = nil, sortBy: [SortKey] = [],
                limit: Int = 100, after: PageCursor? = nil) {
        self.bbox = bbox
        self.filter = filter
        self.asOf = asOf
        self.datetime = datetime
        self.properties = properties
        self.sortBy = sortBy
        self.limit = limit
        self.after = after
    }
}

/// One page of a query.
public struct FeaturePage: Sendable {
    public var features: [Feature]
    /// Where the next page starts; `nil` on the last page.
    public var next: PageCursor?

    public init(features: [Feature], next: PageCursor?) {
        self.features = features
        self.next = next
    }
}
