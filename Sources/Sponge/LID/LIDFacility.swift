/// A low-impact development facility (低影响开发设施) of a sponge-city plan: one of SWMM 5.2's LID
/// kinds, how many units of what size, the subcatchment it serves and its layers' parameters, in SI
/// (mm, mm/h, m, m²). `SWMMModel.withLIDFacilities(_:)` writes a plan into a model as SWMM's
/// `[LID_CONTROLS]` (one control per facility) and `[LID_USAGE]`, in the model's units.
public struct LIDFacility: Sendable, Hashable {
    /// SWMM 5.2's LID kinds, by their `[LID_CONTROLS]` code.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case bioRetention = "BC", rainGarden = "RG", greenRoof = "GR", infiltrationTrench = "IT"
        case permeablePavement = "PP", rainBarrel = "RB", rooftopDisconnection = "RD", vegetativeSwale = "VS"

        /// The layers SWMM requires of the kind, in the order they are written.
        public var layers: [Layer] {
            switch self {
            case .bioRetention: [.surface, .soil, .storage, .drain]
            case .rainGarden: [.surface, .soil]
            case .greenRoof: [.surface, .soil, .drainageMat]
            case .infiltrationTrench: [.surface, .storage, .drain]
            case .permeablePavement: [.surface, .pavement, .storage, .drain]
            case .rainBarrel: [.storage, .drain]
            case .rooftopDisconnection: [.surface, .drain]
            case .vegetativeSwale: [.surface]
            }
        }

        /// Typical parameters of each layer (SI), used where a facility gives none: the values of
        /// SWMM 5.2's user manual examples for the kind.
        public var defaults: [Layer: [Double]] {
            let soil: [Double] = [500, 0.5, 0.2, 0.1, 12.7, 10, 89]
            switch self {
            case .bioRetention: return [.surface: [150, 0, 0.1, 1, 5], .soil: soil, .storage: [300, 0.75, 12.7, 0], .drain: [0, 0.5, 150, 6]]
            case .rainGarden: return [.surface: [150, 0, 0.1, 1, 5], .soil: soil]
            case .greenRoof: return [.surface: [25, 0, 0.1, 1, 5], .soil: [150, 0.5, 0.2, 0.1, 12.7, 10, 89], .drainageMat: [25, 0.5, 0.1]]
            case .infiltrationTrench: return [.surface: [150, 0, 0.1, 1, 5], .storage: [900, 0.75, 12.7, 0], .drain: [0, 0.5, 0, 6]]
            case .permeablePavement:
                return [.surface: [5, 0, 0.1, 1, 5], .pavement: [150, 0.15, 0, 254, 0], .storage: [300, 0.75, 12.7, 0], .drain: [0, 0.5, 0, 6]]
            case .rainBarrel: return [.storage: [1200, 0.75, 0, 0], .drain: [1, 0.5, 0, 6]]
            case .rooftopDisconnection: return [.surface: [0, 0, 0.1, 1, 5], .drain: [25.4, 0, 0, 0]]
            case .vegetativeSwale: return [.surface: [150, 0, 0.24, 1, 5]]
            }
        }
    }

    /// A layer of an LID control, by its `[LID_CONTROLS]` keyword.
    public enum Layer: String, Sendable, Hashable, CaseIterable, Codable {
        case surface = "SURFACE", soil = "SOIL", pavement = "PAVEMENT", storage = "STORAGE", drain = "DRAIN", drainageMat = "DRAINMAT"

        /// The parameters SWMM reads, in order (units SI: mm, mm/h, %, fractions).
        public var parameters: [String] {
            switch self {
            case .surface: ["berm height mm", "vegetation volume fraction", "surface roughness n", "surface slope %", "swale side slope run/rise"]
            case .soil: ["thickness mm", "porosity", "field capacity", "wilting point", "conductivity mm/h", "conductivity slope", "suction head mm"]
            case .pavement: ["thickness mm", "void ratio", "impervious surface fraction", "permeability mm/h", "clogging factor"]
            case .storage: ["thickness mm", "void ratio", "seepage rate mm/h", "clogging factor"]
            case .drain: ["flow coefficient (mm/h per mmⁿ)", "flow exponent", "offset mm", "drain delay h"]
            case .drainageMat: ["thickness mm", "void fraction", "roughness n"]
            }
        }

        /// Which parameters are depths (mm) and which rates (mm/h), converted for a US model.
        var depthIndices: [Int] {
            switch self {
            case .surface: [0]
            case .soil: [0, 6]
            case .pavement: [0]
            case .storage: [0]
            case .drain: [2]
            case .drainageMat: [0]
            }
        }
        var rateIndices: [Int] {
            switch self {
            case .soil: [4]
            case .pavement: [3]
            case .storage: [2]
            default: []
            }
        }
    }

    /// The facility's id: its LID control's name in the model (SWMM names have no spaces).
    public var id: String
    public var kind: Kind
    /// The subcatchment it serves (its `[LID_USAGE]` line).
    public var subcatchment: String
    /// Number of identical units.
    public var units: Int
    /// Area of each unit, m².
    public var unitArea: Double
    /// Width of each unit's outflow face, m (swales, pavements, roofs; 0 otherwise).
    public var width: Double
    /// Percent of the subcatchment's impervious area whose runoff the facility treats.
    public var fromImperviousPercent: Double
    /// Percent of the subcatchment's pervious area whose runoff the facility treats.
    public var fromPerviousPercent: Double
    /// Whether its outflow returns to the pervious area (else to the subcatchment's outlet).
    public var toPervious: Bool
    /// Initial saturation of the soil and storage layers, percent.
    public var initialSaturationPercent: Double
    /// Parameters of its layers (SI, in `Layer.parameters` order); a layer not given takes `Kind.defaults`.
    public var layers: [Layer: [Double]]

    public init(id: String, kind: Kind, subcatchment: String, units: Int = 1, unitArea: Double, width: Double = 0,
                fromImperviousPercent: Double, fromPerviousPercent: Double = 0, toPervious: Bool = false,
                initialSaturationPercent: Double = 0, layers: [Layer: [Double]] = [:]) {
        self.id = id; self.kind = kind; self.subcatchment = subcatchment; self.units = units; self.unitArea = unitArea
        self.width = width; self.fromImperviousPercent = fromImperviousPercent; self.fromPerviousPercent = fromPerviousPercent
        self.toPervious = toPervious; self.initialSaturationPercent = initialSaturationPercent; self.layers = layers
    }

    /// Each of the kind's layers with its parameters: the facility's own, else the kind's defaults.
    public var resolvedLayers: [(Layer, [Double])] {
        kind.layers.map { ($0, layers[$0] ?? kind.defaults[$0] ?? []) }
    }
}
