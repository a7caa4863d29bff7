import Foundation
import GeoCore
import Testing
@testable import Tiles

/// The reference tile made by mapbox-vector-tile (Scripts/reference/make_mvt_fixtures.py),
/// read relative to this file (TilesTests declares no resources yet).
enum MVTFixture {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static var bytes: [UInt8] {
        get throws { [UInt8](try Data(contentsOf: directory.appendingPathComponent("mvt_reference.mvt"))) }
    }

    static var document: JSONValue {
        get throws { try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: directory.appendingPathComponent("mvt_reference.json"))) }
    }

    /// A GeoJSON geometry object (as JSON) as a GeoCore geometry.
    static func geometry(_ json: JSONValue) throws -> Geometry {
        let text = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        guard case .geometry(let g) = try GeoJSON.decode(text) else { throw TileError(.invalidArgument, "not a geometry: \(text)") }
        return g
    }

    /// The input features (lon/lat) of the fixture.
    static func inputs() throws -> [Feature] {
        try (document["inputs"]?.arrayValue ?? []).map { f in
            Feature(id: f["id"]?.integerValue.map(FeatureID.integer), geometry: try geometry(f["geometry"] ?? .null),
                    properties: f["properties"]?.objectValue ?? [:])
        }
    }

    static let tile = TileID(matrix: 10, row: 284, col: 1686)
}

/// Every polygon of a tile-space geometry.
func tilePolygons(_ g: Geometry) -> [Polygon] {
    switch g {
    case .polygon(let p): [p]
    case .multiPolygon(let m): m.polygons
    default: []
    }
}

/// Checks the MVT ring rules on a decoded or encoded geometry: exteriors of positive, holes
/// of negative area (y down), and GEOS validity in tile space.
func expectMVTPolygon(_ g: Geometry, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(try g.isValid, "\(g) is not valid in tile space", sourceLocation: sourceLocation)
    for p in tilePolygons(g) {
        #expect(Polygon.doubledSignedArea(ofRing: p.exterior) > 0, "exterior must have positive area", sourceLocation: sourceLocation)
        for hole in p.interiors {
            #expect(Polygon.doubledSignedArea(ofRing: hole) < 0, "hole must have negative area", sourceLocation: sourceLocation)
        }
    }
}
