import QueryLanguage

extension Queryables {
    /// The queryables of a layer: every property of its schema, plus `geometryName` (the name
    /// the queryables document gives the feature geometry) when the layer has geometry.
    public init(layer: LayerDefinition, geometryName: String = "geometry") {
        var out = [String: ValueType]()
        for (name, rule) in layer.schema.properties {
            switch rule.scalarType {
            case .string: out[name] = .string
            case .number: out[name] = .number
            case .integer: out[name] = .integer
            case .boolean: out[name] = .boolean
            case .date: out[name] = .date
            case .dateTime: out[name] = .dateTime
            case .json: out[name] = .any
            }
        }
        if layer.hasGeometry { out[geometryName] = .geometry }
        self.init(properties: out)
    }
}
