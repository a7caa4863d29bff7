import GeoCore

/// One layer of a MapLibre style (v8) as the server draws it: what it draws (fill, line, circle,
/// symbol, background), from which collection (`source-layer`), which features (`filter`), at
/// which zooms, and its paint and layout properties, evaluated per feature.
public struct StyleLayer: Sendable {
    public enum Kind: String, Sendable { case background, fill, line, circle, symbol }

    public let id: String
    public let kind: Kind
    /// The collection the layer draws (`source-layer`); nil for the background.
    public let collection: String?
    public let filter: JSONValue?
    public let minZoom: Double?
    public let maxZoom: Double?
    public let paint: [String: JSONValue]
    public let layout: [String: JSONValue]
    public let metadata: [String: JSONValue]

    /// Reads one entry of a style's `layers`.
    /// - Throws: `MapRenderingError` `.style` for a layer without id or of a type the renderer does not draw.
    public init(_ json: JSONValue) throws {
        guard let id = json["id"]?.stringValue else { throw MapRenderingError(.style, "a style layer has no id") }
        guard let type = json["type"]?.stringValue, let kind = Kind(rawValue: type) else {
            throw MapRenderingError(.style, "style layer '\(id)' is of type '\(json["type"]?.stringValue ?? "none")'; the server draws background, fill, line, circle and symbol layers")
        }
        self.id = id
        self.kind = kind
        self.collection = json["source-layer"]?.stringValue
        self.filter = json["filter"]
        self.minZoom = json["minzoom"]?.doubleValue
        self.maxZoom = json["maxzoom"]?.doubleValue
        self.paint = json["paint"]?.objectValue ?? [:]
        self.layout = json["layout"]?.objectValue ?? [:]
        self.metadata = json["metadata"]?.objectValue ?? [:]
    }

    /// Whether the style shows the layer by default (`layout.visibility`).
    public var visibleByDefault: Bool { layout["visibility"]?.stringValue != "none" }

    /// Whether the layer is drawn at `zoom` (MapLibre: minzoom inclusive, maxzoom exclusive).
    public func drawn(atZoom zoom: Double) -> Bool {
        if let minZoom, zoom < minZoom { return false }
        if let maxZoom, zoom >= maxZoom { return false }
        return true
    }

    /// A paint or layout property's value for a feature, nil when the style leaves it out.
    public func value(_ name: String, _ context: ExpressionContext) throws -> JSONValue? {
        guard let raw = paint[name] ?? layout[name] else { return nil }
        let v = try StyleExpression.evaluate(raw, context)
        return v.isNull ? nil : v
    }

    /// A numeric property, `fallback` when absent or not a number.
    public func number(_ name: String, _ context: ExpressionContext, _ fallback: Double) throws -> Double {
        try value(name, context)?.doubleValue ?? fallback
    }

    /// A colour property, nil when absent.
    /// - Throws: `MapRenderingError` `.style` when the value is no colour.
    public func colour(_ name: String, _ context: ExpressionContext) throws -> MapColour? {
        guard let v = try value(name, context) else { return nil }
        guard let text = v.stringValue else { throw MapRenderingError(.style, "'\(name)' of style layer '\(id)' is not a colour: \(v)") }
        return try MapColour(parsing: text)
    }

    /// A string property (`line-cap`, `symbol-placement`), nil when absent.
    public func string(_ name: String, _ context: ExpressionContext) throws -> String? {
        try value(name, context)?.stringValue
    }

    /// An array of numbers (`line-dasharray`, `text-offset`), nil when absent.
    public func numbers(_ name: String, _ context: ExpressionContext) throws -> [Double]? {
        guard let v = try value(name, context)?.arrayValue else { return nil }
        return v.compactMap(\.doubleValue)
    }
}

/// A MapLibre style document read for drawing: its layers in drawing order (the style's own
/// order: first drawn first), grouped by the collection they draw.
public struct RenderStyle: Sendable {
    public let layers: [StyleLayer]

    /// Reads the `layers` of a style document (the JSON the web map loads).
    /// - Throws: `MapRenderingError` `.style` when the document has no layers or one is unreadable.
    public init(document: JSONValue) throws {
        guard let list = document["layers"]?.arrayValue else { throw MapRenderingError(.style, "the style document has no 'layers' array") }
        self.layers = try list.map(StyleLayer.init)
    }

    public init(layers: [StyleLayer]) {
        self.layers = layers
    }

    /// The style layers drawing `collection`, in drawing order.
    public func layers(for collection: String) -> [StyleLayer] {
        layers.filter { $0.collection == collection }
    }

    /// Whether any style layer draws `collection` at `zoom` (its features need reading).
    public func draws(_ collection: String, atZoom zoom: Double) -> Bool {
        layers.contains { $0.collection == collection && $0.drawn(atZoom: zoom) }
    }
}
