import GeoCore

/// A deterministic synthetic district modelled on 邾城 (Xinzhou district, Wuhan), around
/// 114.80°E 30.84°N: 5 km × 5 km of terrain with the 举水 valley, the Yangtze bank, 涨渡湖 and an
/// upland reservoir; a street grid with ~2,000 buildings and ~20,000 standard addresses; rainwater
/// drainage sized by the rational method; a looped water-supply network; emergency resources,
/// parking, signals, gauges, sensors and land use.
///
/// Every feature is in EPSG:4490 (lon/lat degrees); metric work happens in EPSG:4547 metres. The
/// layers are keyed by the ids of the definitions in `Layers/*.json`, and every feature's properties
/// follow that layer's schema. All names of people and all 一标三实 records are synthetic.
public struct SampleDistrict: Sendable {
    /// The seed the district was generated from.
    public let seed: UInt64
    /// The size factor: 1.0 is the full district; smaller values shrink the street grid (and so every
    /// count) by the square root of the factor in each direction.
    public let scale: Double
    /// Features per layer id.
    public let layers: [String: [Feature]]
    /// Where the district lies in the sample city (`DistrictTile.single` for the sample district).
    public let tile: DistrictTile
    /// Ground elevation in metres (1985 国家高程基准): 10 m cells, 500 × 500, north-up, in EPSG:4547.
    public let elevation: Grid

    /// The features of one layer (empty when the district has none).
    public subscript(layer id: String) -> [Feature] { layers[id] ?? [] }

    /// Generates the district. Same seed and scale give identical output on every run.
    /// - Parameters:
    ///   - seed: PRNG seed (SplitMix64).
    ///   - scale: size factor in (0, 1]; values outside are clamped to [0.05, 1].
    ///   - tile: the district of an N × N sample city to generate (its own seed, position, ids,
    ///     codes and names, and the roads joining it to its west and south neighbours).
    /// - Throws: `GeometryError` `.crs` when PROJ cannot transform EPSG:4547 to EPSG:4490 (e.g. its
    ///   database is missing).
    public static func generate(seed: UInt64 = 2026, scale: Double = 1.0, tile: DistrictTile = .single) throws -> SampleDistrict {
        let draft = DistrictDraft(seed: tile.seed(city: seed), scale: scale, tile: tile)
        draft.buildStreetGrid()
        draft.buildHydrology()
        draft.buildBuildingsAndAddresses()
        draft.buildDrainage()
        draft.buildWaterSupply()
        draft.buildEmergencyResources()
        try draft.buildTraffic()
        draft.buildSensors()
        draft.buildParkingGuidance()
        draft.buildLandUse()
        draft.buildGasSupply()
        draft.buildFireRescue()
        draft.placeOnTile(tile)
        try draft.reproject()
        return SampleDistrict(seed: seed, scale: draft.scale, layers: draft.layers, tile: tile, elevation: try draft.elevationGrid())
    }
}
