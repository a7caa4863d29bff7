import Foundation

/// A junction (`[JUNCTIONS]`): a manhole. Lengths in ft (US) or m (SI), ponded area in ft² or m².
public struct SWMMJunction: Sendable, Equatable {
    public var name: String
    /// Invert elevation.
    public var elevation: Double
    /// Invert to rim (0 lets SWMM use the highest connected crown).
    public var maxDepth: Double
    public var initialDepth: Double
    /// Extra depth allowed under pressure before flooding.
    public var surchargeDepth: Double
    /// Area over which flood water ponds when `ALLOW_PONDING` is YES.
    public var pondedArea: Double

    public init(name: String, elevation: Double, maxDepth: Double, initialDepth: Double = 0, surchargeDepth: Double = 0, pondedArea: Double = 0) {
        self.name = name; self.elevation = elevation; self.maxDepth = maxDepth; self.initialDepth = initialDepth
        self.surchargeDepth = surchargeDepth; self.pondedArea = pondedArea
    }
}

/// An outfall (`[OUTFALLS]`): a terminal node with a boundary stage.
public struct SWMMOutfall: Sendable, Equatable {
    public enum Boundary: Sendable, Equatable {
        /// Critical or normal depth, whichever is smaller.
        case free
        /// Normal depth in the connecting conduit.
        case normal
        /// A fixed stage (elevation).
        case fixed(Double)
        /// A tidal curve by name.
        case tidal(String)
        /// A stage time series by name.
        case timeseries(String)

        /// The `[OUTFALLS]` Type keyword: FREE, NORMAL, FIXED, TIDAL or TIMESERIES.
        public var keyword: String {
            switch self {
            case .free: "FREE"
            case .normal: "NORMAL"
            case .fixed: "FIXED"
            case .tidal: "TIDAL"
            case .timeseries: "TIMESERIES"
            }
        }
    }

    public var name: String
    public var elevation: Double
    public var boundary: Boundary
    /// A flap gate stops back flow.
    public var gated: Bool
    /// A subcatchment that receives the outfall's discharge.
    public var routeTo: String?

    public init(name: String, elevation: Double, boundary: Boundary = .free, gated: Bool = false, routeTo: String? = nil) {
        self.name = name; self.elevation = elevation; self.boundary = boundary; self.gated = gated; self.routeTo = routeTo
    }
}

/// A storage unit (`[STORAGE]`).
public struct SWMMStorage: Sendable, Equatable {
    public enum Shape: Sendable, Equatable {
        /// Surface area = a·depth^b + c (ft² or m²).
        case functional(a: Double, b: Double, c: Double)
        /// Surface area from a STORAGE curve of depth.
        case tabular(curve: String)
        /// SWMM 5.2 shapes (CYLINDRICAL, CONICAL, PARABOLIC, PYRAMIDAL) with their three parameters.
        case shaped(String, Double, Double, Double)
    }
    public var name: String
    public var elevation: Double
    public var maxDepth: Double
    public var initialDepth: Double
    public var shape: Shape
    /// Ponded area (5.1) or surcharge depth (5.2); kept as written.
    public var surchargeDepth: Double?
    public var evaporationFactor: Double?
    /// Seepage: Green-Ampt suction, conductivity, initial deficit, or a single seepage rate.
    public var seepage: [Double]

    public init(name: String, elevation: Double, maxDepth: Double, initialDepth: Double, shape: Shape,
                surchargeDepth: Double? = nil, evaporationFactor: Double? = nil, seepage: [Double] = []) {
        self.name = name; self.elevation = elevation; self.maxDepth = maxDepth; self.initialDepth = initialDepth
        self.shape = shape; self.surchargeDepth = surchargeDepth; self.evaporationFactor = evaporationFactor; self.seepage = seepage
    }

    /// Surface area at `depth` (file units) for a functional shape; nil for curve-based shapes.
    public func functionalArea(depth: Double) -> Double? {
        if case .functional(let a, let b, let c) = shape { return a * pow(max(depth, 0), b) + c }
        return nil
    }
}

/// A flow divider (`[DIVIDERS]`).
public struct SWMMDivider: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case cutoff(Double)
        case overflow
        case tabular(curve: String)
        case weir(minFlow: Double, maxDepth: Double, coefficient: Double)
    }
    public var name: String
    public var elevation: Double
    public var divertedLink: String
    public var kind: Kind
    public var maxDepth: Double
    public var initialDepth: Double
    public var surchargeDepth: Double
    public var pondedArea: Double

    public init(name: String, elevation: Double, divertedLink: String, kind: Kind, maxDepth: Double = 0,
                initialDepth: Double = 0, surchargeDepth: Double = 0, pondedArea: Double = 0) {
        self.name = name; self.elevation = elevation; self.divertedLink = divertedLink; self.kind = kind
        self.maxDepth = maxDepth; self.initialDepth = initialDepth; self.surchargeDepth = surchargeDepth; self.pondedArea = pondedArea
    }
}
