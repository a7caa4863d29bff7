import GeoCore

/// Puts a page of stored features (EPSG:4490, lon/lat) into the response CRS: one batch
/// transform for the whole page through GeoCore's cached transformer, then, for CRSs whose
/// authority order is lat/lon or northing/easting, rings oriented by the right-hand rule in
/// the internal order and the axes swapped (the writer must then keep the orientation).
struct FeatureProjection: Sendable {
    let target: CoordinateReferenceSystem
    let transformer: CoordinateTransformer
    let swapsAxes: Bool
    /// Decimals written: 7 for degrees (~1 cm), 3 for metres (1 mm).
    let precision: Int

    init(target: CoordinateReferenceSystem) throws {
        self.target = target
        self.transformer = try CoordinateTransformer.shared(from: CRSParameter.storage, to: target)
        let metadata = try target.metadata
        self.swapsAxes = metadata.axisOrder.isSwapped
        self.precision = metadata.isGeographic ? 7 : 3
    }

    /// GeoJSON writer options matching this projection.
    var writeOptions: GeoJSONWriteOptions {
        GeoJSONWriteOptions(precision: precision, rightHandRule: !swapsAxes)
    }

    /// The features with geometries in `target`, in the CRS's authority axis order.
    func project(_ features: [Feature]) throws -> [Feature] {
        if transformer.isIdentity && !swapsAxes { return features }
        var out = features
        if !transformer.isIdentity {
            var flat: [Position] = []
            flat.reserveCapacity(features.reduce(0) { $0 + ($1.geometry?.positionCount ?? 0) })
            for f in features { f.geometry?.forEachPosition { flat.append($0) } }
            try transformer.transform(&flat)
            var next = 0
            for i in out.indices {
                guard let g = out[i].geometry else { continue }
                out[i].geometry = g.mapPositions { _ in
                    defer { next += 1 }
                    return flat[next]
                }
            }
        }
        if swapsAxes {
            for i in out.indices {
                guard let g = out[i].geometry else { continue }
                out[i].geometry = g.rightHandOriented.mapPositions { Position(x: $0.y, y: $0.x, z: $0.z) }
            }
        }
        return out
    }
}
