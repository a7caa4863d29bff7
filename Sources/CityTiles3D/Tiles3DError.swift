import Foundation

/// Why a 3D tileset could not be made: a struct with a code (cases can be added without
/// breaking callers), the message names the offending layer, field, feature or tile.
public struct Tiles3DError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The layer has no 3D representation (`SolidRule.for(layer:)` knows none).
        case unsupportedLayer
        /// No such tile in the tileset.
        case unknownTile
        /// No such managed raster to mesh as terrain.
        case unknownRaster
        /// The store has no DEM to stand the solids on, or its DEM is unusable.
        case noTerrain
        /// A feature lacks what its solid needs (a height, an invert elevation).
        case invalidFeature
        /// A bad argument (an output directory that exists, a malformed tile name).
        case invalidArgument
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
