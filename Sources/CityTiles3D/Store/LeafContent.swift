import GeoCore
import TwinStore

/// One leaf tile's content made from its features: the `.glb` bytes, its box in the frame and
/// how many features it shows.
public struct LeafContent: Sendable {
    public var glb: [UInt8]
    public var box: (min: SIMD3<Double>, max: SIMD3<Double>)
    public var featureCount: Int
}

/// Builds a leaf's solids from a layer's features by its `SolidRule`, in a tileset's frame.
struct LeafBuilder: Sendable {
    let layer: LayerDefinition
    let rule: SolidRule
    let frame: LocalFrame
    let terrain: Terrain
    /// Invert elevations (metres) of the nodes pipes run between, by node id (`.pipes` only).
    var nodeInverts: [String: Double] = [:]

    /// The properties written to the tile: the feature id, then every text or number field of
    /// the layer's schema the caller may read (a masked field is absent from every feature, so
    /// its column is all `noData`/empty; a field the caller never sees is not listed).
    private func columns(_ features: [Feature], extra: [(String, [Double?])]) -> [(name: String, values: PropertyTable.Column)] {
        var columns: [(name: String, values: PropertyTable.Column)] = [("id", .strings(features.map { $0.id?.description ?? "" }))]
        for (name, rule) in layer.schema.properties.sorted(by: { $0.key < $1.key })
        where features.contains(where: { $0.properties[name] != nil }) {
            switch rule.scalarType {
            case .integer, .number: columns.append((name, .numbers(features.map { $0.properties[name]?.doubleValue })))
            case .string: columns.append((name, .strings(features.map { $0.properties[name]?.stringValue ?? "" })))
            default: continue
            }
        }
        for (name, values) in extra { columns.append((name, .numbers(values))) }
        return columns
    }

    /// The content of a leaf holding `features` (`nil` when none of them makes a solid).
    func build(_ features: [Feature]) throws -> LeafContent? {
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: terrain.crs)
        var mesh = TileMesh()
        var kept: [Feature] = []
        var bases: [Double?] = []
        for feature in features.sorted(by: { ($0.id?.description ?? "") < ($1.id?.description ?? "") }) {
            let id = UInt32(kept.count)
            let made: Double?
            switch rule {
            case .extrudedFootprints(let heightField): made = try addBuilding(feature, heightField: heightField, to: &mesh, id: id, toMetric: toMetric)
            case .pipes: made = try addPipe(feature, to: &mesh, id: id, toMetric: toMetric)
            case .manholes: made = try addManhole(feature, to: &mesh, id: id)
            }
            guard let base = made else { continue }
            kept.append(feature)
            bases.append(base)
        }
        guard !kept.isEmpty, let bounds = mesh.bounds else { return nil }
        let table = PropertyTable(className: layer.id, count: kept.count, columns: columns(kept, extra: [(rule.needsTerrain ? "base_elevation_m" : "bottom_elevation_m", bases)]))
        let glb = try GLBWriter.encode(mesh, table: table, color: rule.color)
        return LeafContent(glb: glb, box: (SIMD3<Double>(bounds.min), SIMD3<Double>(bounds.max)), featureCount: kept.count)
    }
}

extension LeafBuilder {
    /// A building's prism on the terrain (`Terrain.base`); its base elevation, `nil` when it has no
    /// positive height or no polygon.
    func addBuilding(_ feature: Feature, heightField: String, to mesh: inout TileMesh, id: UInt32,
                     toMetric: CoordinateTransformer) throws -> Double? {
        guard let height = feature.properties[heightField]?.doubleValue, height > 0 else { return nil }
        let polygons: [Polygon]
        switch feature.geometry {
        case .polygon(let p): polygons = [p]
        case .multiPolygon(let m): polygons = m.polygons
        default: return nil
        }
        var metric = polygons.flatMap(\.exterior).map(\.xy)
        try toMetric.transform(&metric)
        let ground = terrain.base(of: metric) ?? feature.properties["ground_elevation_m"]?.doubleValue ?? 0
        for p in polygons {
            try mesh.addExtrusion(p, base: ground, top: ground + height, frame: frame, feature: id)
        }
        return ground
    }
}
