import GeoCore
import TwinStore

/// How a layer's features become solids, by layer id: the one table of 3D representations.
/// A layer not in it has no 3D tileset.
public enum SolidRule: Sendable, Hashable {
    /// Footprints extruded to `heightField` metres above the terrain (CIM2 box models).
    case extrudedFootprints(heightField: String)
    /// Pipes as tubes whose axis runs from invert + half the section at the upstream node
    /// (`nodeLayers`' `invert_elevation_m` + `inlet_offset_m`) to the same at the downstream node.
    case pipes(nodeLayers: [String])
    /// Manholes as cylinders from `rim_elevation_m` down to `invert_elevation_m`.
    case manholes

    /// The rule for `layer`, if it has a 3D representation.
    public static func rule(for layer: String) -> SolidRule? {
        switch layer {
        case "buildings": .extrudedFootprints(heightField: "height_m")
        case "drainage_pipes": .pipes(nodeLayers: ["drainage_manholes", "drainage_outfalls"])
        case "drainage_manholes": .manholes
        default: nil
        }
    }

    /// The layers with a 3D representation.
    public static let layers = ["buildings", "drainage_pipes", "drainage_manholes"]

    /// Whether the solids stand on the DEM (buildings) rather than at surveyed elevations.
    var needsTerrain: Bool {
        if case .extrudedFootprints = self { return true }
        return false
    }

    /// The CIM level (住房和城乡建设部《城市信息模型（CIM）基础平台技术导则》) the tileset reaches.
    /// Buildings are boxes (CIM2: no layer records roof forms, so none reaches CIM3). Pipes and
    /// wells at their surveyed depths are the underground half of 地上地下一体化 at CIM2 too:
    /// simple volumes (a tube of the section along the axis between the inverts, a cylinder per
    /// well) without the fittings, joints, wall thickness or chambers a standard model (CIM3)
    /// or a component model (CIM6) would draw.
    public var cimLevel: CIMLevel {
        switch self {
        case .extrudedFootprints, .pipes, .manholes: .cim2
        }
    }

    /// The material's base colour, linear RGBA.
    var color: [Double] {
        switch self {
        case .extrudedFootprints: [0.82, 0.80, 0.76, 1]
        case .pipes: [0.10, 0.45, 0.85, 1]
        case .manholes: [0.35, 0.35, 0.40, 1]
        }
    }
}
