import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// The district layers a flood scenario reads, with every geometry in the city's metric CRS
/// (`CityRecord`; EPSG:4547 for the sample district): all vertices of all layers are reprojected in ONE batch through one
/// cached `CoordinateTransformer`, never per feature.
package struct FloodDistrictLayers {
    /// The layers read: drainage, hydrology, land use, buildings, roads and the permanent water (the emergency
    /// resources are read by `FloodResultLayers.markCutOff`, as the hazard overlay reads them).
    package static let layerIDs = ["drainage_manholes", "drainage_outfalls", "drainage_pipes", "drainage_storage", "drainage_pumps",
                           "subcatchments", "buildings", "land_use", "roads", "rivers", "lakes", "reservoirs"]

    /// Features per layer id, geometries in `metricCRS`. Layers the store lacks are empty.
    var features: [String: [Feature]]
    let toMetric: CoordinateTransformer
    let toStorage: CoordinateTransformer

    /// The city's metric CRS, the one the geometries and the DEM are in.
    var metricCRS: CoordinateReferenceSystem { toMetric.target }

    subscript(layer: String) -> [Feature] { features[layer] ?? [] }

    /// Reads `layerIDs` from `store` as `caller`: the map as of `asOf` (nil: now) with a
    /// scenario's `changes` applied in memory only (the store's layers are never touched).
    /// - Parameter metricCRS: the CRS of the geometries; nil is the city's (`CityRecord.metricCRS`).
    /// - Throws: `StoreError` from the store; `GeometryError` `.crs` from PROJ; `ScenarioError`
    ///   for a store without any geometry (no city to flood).
    static func read(from store: any FeatureStore, by caller: Caller,
                     metricCRS given: CoordinateReferenceSystem? = nil, asOf: Date? = nil,
                     changes: [ScenarioChange] = []) async throws -> FloodDistrictLayers {
        var metricCRS = given
        if metricCRS == nil { metricCRS = try await CityRecord.metricCRS(of: store) }
        guard let metricCRS else {
            throw ScenarioError(.invalidDistrict, "the store holds no city yet: import or build its layers first")
        }
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
        var raw: [String: [Feature]] = [:]
        var positions: [Position] = []
        for id in layerIDs {
            guard try await store.layerDefinition(id, for: caller) != nil else { continue }
            var list: [Feature] = []
            for try await f in store.stream(layer: id, FeatureQuery(asOf: asOf, limit: 2000), by: caller) {
                list.append(f)
            }
            list = ScenarioChange.apply(changes.filter { $0.layer == id }, to: list)
            for f in list { f.geometry?.forEachPosition { positions.append($0) } }
            raw[id] = list
        }
        try toMetric.transform(&positions)
        var next = 0
        for id in layerIDs {
            guard var list = raw[id] else { continue }
            for k in list.indices {
                list[k].geometry = list[k].geometry?.mapPositions { _ in
                    defer { next += 1 }
                    return positions[next]
                }
            }
            raw[id] = list
        }
        return FloodDistrictLayers(features: raw, toMetric: toMetric, toStorage: toMetric.inverse)
    }
}

extension Feature {
    /// The feature id as text ("" when it has none).
    var idText: String { id.map { "\($0)" } ?? "" }

    /// A numeric property (integer or number), or nil.
    func number(_ key: String) -> Double? {
        switch properties[key] {
        case .number(let d)?: return d
        case .integer(let i)?: return Double(i)
        default: return nil
        }
    }

    /// A string property, or nil.
    func text(_ key: String) -> String? { properties[key]?.stringValue }

    /// The first position of a point geometry, or nil.
    var pointPosition: Position? {
        if case .point(let p)? = geometry { return p.position }
        return nil
    }
}
