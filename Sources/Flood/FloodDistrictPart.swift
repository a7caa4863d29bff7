import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// One district of a city for a flood run of that district alone (issue 57 §4: the child jobs of
/// a city's flood run). A city built with `citytwin district build --scale N` gives each district's
/// features ids of its own: tile k > 0 prefixes them `D%03d-` (`D007-MH-0012`), the first tile
/// (the sample district) has none. A district is named by that key (`D000` for the first).
///
/// What a district's run reads: its drainage network and subcatchments (by id), and of the other
/// layers what lies in the extent of that network and those subcatchments: buildings and roads
/// whose first vertex lies in it (so a road joining two districts belongs to one of them), land
/// use and water that touch it. The surface is the DEM cut to that extent: each district floods
/// on its own grid, whose edge is the engine's closed domain edge, so no water crosses from one
/// district to the next on the surface (the districts meet on their street grids only; each
/// network drains to its own river).
package enum FloodDistrictPart {
    /// The drainage layers and subcatchments, which belong to a district by their ids.
    static let networkLayers = ["drainage_manholes", "drainage_outfalls", "drainage_pipes", "drainage_storage", "drainage_pumps", "subcatchments"]
    /// Layers taken when they touch the district's extent (the surface's land use and water).
    static let touchingLayers = ["land_use", "rivers", "lakes", "reservoirs"]

    /// The district key of a feature id: `D007` for `D007-MH-0012`, `D000` for an id without a tile prefix.
    package static func key(ofID id: String) -> String {
        let chars = Array(id.utf8.prefix(5))
        guard chars.count == 5, chars[0] == UInt8(ascii: "D"), chars[4] == UInt8(ascii: "-"),
              chars[1...3].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return "D000" }
        return String(decoding: chars[0..<4], as: UTF8.self)
    }

    /// Whether `key` can name a district (`D` and three digits).
    package static func isValidKey(_ key: String) -> Bool {
        key.range(of: "^D[0-9]{3}$", options: .regularExpression) != nil
    }

    /// The districts whose drainage networks the store holds: the keys of its outfalls, sorted.
    /// One key (or none) for a single district.
    package static func keys(in store: any FeatureStore, by caller: Caller) async throws -> [String] {
        guard try await store.layerDefinition("drainage_outfalls", for: caller) != nil else { return [] }
        var keys = Set<String>()
        for try await f in store.stream(layer: "drainage_outfalls", FeatureQuery(limit: 2000), by: caller) {
            keys.insert(key(ofID: f.idText))
        }
        return keys.sorted()
    }

    /// The part of `layers` (geometries metric) that is district `key`'s, and its extent.
    /// - Throws: `ScenarioError` naming `district` when the store holds no drainage network of that district.
    static func restrict(_ layers: FloodDistrictLayers, to key: String) throws -> (FloodDistrictLayers, Envelope) {
        var part = layers
        var extent: Envelope?
        for id in networkLayers {
            let mine = layers[id].filter { Self.key(ofID: $0.idText) == key }
            part.features[id] = layers.features[id] == nil ? nil : mine
            for f in mine { if let e = f.geometry?.envelope { extent.expand(e) } }
        }
        guard let extent, !part["drainage_outfalls"].isEmpty else {
            let known = Set(layers["drainage_outfalls"].map { Self.key(ofID: $0.idText) }).sorted()
            throw ScenarioError(.invalidScenario, "the city has no drainage network of district '\(key)' (its districts: \(known.joined(separator: ", ")))",
                                field: "district")
        }
        for id in ["buildings", "roads"] where layers.features[id] != nil {
            part.features[id] = layers[id].filter { f in f.geometry?.firstPosition.map(extent.contains) ?? false }
        }
        for id in touchingLayers where layers.features[id] != nil {
            part.features[id] = layers[id].filter { f in f.geometry?.envelope.map(extent.intersects) ?? false }
        }
        return (part, extent)
    }

    /// The cells of `dem` that cover `extent` (whole cells, snapped outward to the grid; at least one).
    /// - Throws: `ScenarioError` naming `dem` when the DEM does not reach the extent or is not north-up.
    static func crop(_ dem: Grid, to extent: Envelope) throws -> Grid {
        let t = dem.geoTransform
        guard t.isNorthUp, let low = t.cellCoordinates(of: Position(x: extent.minX, y: extent.maxY)),
              let high = t.cellCoordinates(of: Position(x: extent.maxX, y: extent.minY)) else {
            throw ScenarioError(.invalidDistrict, "the DEM is not a north-up grid, so it cannot be cut to one district", field: "dem")
        }
        let c0 = max(0, Int(low.column.rounded(.down))), r0 = max(0, Int(low.row.rounded(.down)))
        let c1 = min(dem.width, Int(high.column.rounded(.up))), r1 = min(dem.height, Int(high.row.rounded(.up)))
        guard c1 > c0, r1 > r0 else {
            throw ScenarioError(.invalidDistrict, "the DEM does not cover the district's drainage network", field: "dem")
        }
        let origin = t.position(column: Double(c0), row: Double(r0))
        var transform = t
        transform.originX = origin.x
        transform.originY = origin.y
        let values = dem.values, width = dem.width
        return try Grid(width: c1 - c0, height: r1 - r0, geoTransform: transform, noData: dem.noData) { column, row in
            values[(r0 + row) * width + c0 + column]
        }
    }
}

extension Optional where Wrapped == Envelope {
    /// Grows the envelope to include `other` (the envelope itself when there was none).
    fileprivate mutating func expand(_ other: Envelope) {
        if var e = self { e.expand(toInclude: other); self = e } else { self = other }
    }
}

extension Geometry {
    /// The first vertex, if the geometry has one.
    fileprivate var firstPosition: Position? {
        var first: Position?
        forEachPosition { if first == nil { first = $0 } }
        return first
    }
}
