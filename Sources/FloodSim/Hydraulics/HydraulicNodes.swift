// MARK: - Nodes

/// A node of the drainage network (SWMM `[JUNCTIONS]`, `[OUTFALLS]`, `[STORAGE]`, `[DIVIDERS]`).
public struct HydraulicNode: Sendable, Hashable {
    /// The user's identifier (SWMM node name).
    public var id: String
    /// Invert (bottom) elevation, metres above datum.
    public var invertElevation: Double
    /// Depth from invert to the rim (ground), metres. 0 means "the crown of the highest
    /// connected conduit" (SWMM's rule).
    public var maxDepth: Double
    /// Water depth at the start, metres.
    public var initialDepth: Double
    /// Extra depth above `maxDepth` the node may be pressurised before it floods, metres.
    public var surchargeDepth: Double
    /// Area of surface ponding above the rim when ponding is allowed, m² (0 = water is lost).
    public var pondedArea: Double
    /// What kind of node this is, with its kind-specific data.
    public var kind: Kind

    /// The kind of a node.
    public enum Kind: Sendable, Hashable {
        /// A manhole or pipe junction.
        case junction
        /// A terminal node with a downstream boundary condition.
        case outfall(OutfallBoundary)
        /// A storage unit (pond, tank) with a depth–area relation.
        case storage(StorageUnit)
        /// A flow divider (acts as a junction under dynamic wave).
        case divider(FlowDivider)
    }

    public init(id: String, invertElevation: Double, maxDepth: Double = 0, initialDepth: Double = 0,
                surchargeDepth: Double = 0, pondedArea: Double = 0, kind: Kind = .junction) {
        self.id = id
        self.invertElevation = invertElevation
        self.maxDepth = maxDepth
        self.initialDepth = initialDepth
        self.surchargeDepth = surchargeDepth
        self.pondedArea = pondedArea
        self.kind = kind
    }
}

/// The downstream boundary of an outfall (SWMM `[OUTFALLS]`). Stages are elevations in metres.
public struct OutfallBoundary: Sendable, Hashable {
    /// How the water surface at the outfall is set.
    public enum Stage: Sendable, Hashable {
        /// Free outfall: the smaller of critical and normal depth of the connecting conduit.
        case free
        /// Normal depth of the connecting conduit.
        case normal
        /// A fixed water-surface elevation, metres.
        case fixed(Double)
        /// A tidal curve: hour of day (0–24) → water-surface elevation in metres.
        case tidal(Curve)
        /// A time series of water-surface elevation (metres) over simulation seconds.
        case timeSeries(TimeSeries)
    }

    public var stage: Stage
    /// A flap gate prevents backflow into the outfall.
    public var flapGate: Bool

    public init(stage: Stage = .free, flapGate: Bool = false) {
        self.stage = stage
        self.flapGate = flapGate
    }
}

/// A storage unit's geometry and losses (SWMM `[STORAGE]`).
public struct StorageUnit: Sendable, Hashable {
    /// Surface area as a function of depth.
    public enum Shape: Sendable, Hashable {
        /// area (m²) = coefficient·depth^exponent + constant, depth in metres.
        case functional(coefficient: Double, exponent: Double, constant: Double)
        /// A depth (m) → surface area (m²) table.
        case tabular(Curve)
        /// area (m²) = constant + linear·depth + quadratic·depth², depth in metres: SWMM 5.2's
        /// analytical shapes (CYLINDRICAL, CONICAL, PARABOLIC, PYRAMIDAL), whose volume is the
        /// exact integral constant·d + linear·d²/2 + quadratic·d³/3.
        case polynomial(constant: Double, linear: Double, quadratic: Double)
    }

    public var shape: Shape
    /// Fraction of the potential evaporation rate (`RoutingOptions.evaporationRate`) lost from the
    /// unit's water surface (SWMM's Fevap).
    public var evaporationFactor: Double
    /// Seepage into the soil through the unit's bottom and banks (SWMM's exfiltration), or nil.
    public var seepage: StorageSeepage?

    public init(shape: Shape, evaporationFactor: Double = 0, seepage: StorageSeepage? = nil) {
        self.shape = shape
        self.evaporationFactor = evaporationFactor
        self.seepage = seepage
    }
}

/// The soil under a storage unit (SWMM 5.2's exfiltration, `exfil.c`): water seeps through the
/// bottom and the banks by the modified Green–Ampt method, or at the constant rate `conductivity`
/// when `initialDeficit` is 0.
public struct StorageSeepage: Sendable, Hashable {
    /// Capillary suction head, metres.
    public var suction: Double
    /// Saturated hydraulic conductivity, m/s (> 0).
    public var conductivity: Double
    /// Initial (and largest) soil moisture deficit, a fraction 0–1 (0 = constant seepage rate).
    public var initialDeficit: Double
    /// Factor on a functional or analytical unit's bottom area (1 = as its shape gives it).
    /// SWMM 5.2.4's exfil_initState takes that area in the model's own units as if they were
    /// square feet, so a model in metres seeps through a bottom 0.0929 times its area (and banks
    /// correspondingly larger); the SWMM reader sets that factor to match SWMM's results.
    public var bottomAreaFactor: Double

    public init(suction: Double, conductivity: Double, initialDeficit: Double, bottomAreaFactor: Double = 1) {
        self.suction = suction
        self.conductivity = conductivity
        self.initialDeficit = initialDeficit
        self.bottomAreaFactor = bottomAreaFactor
    }
}

/// A flow divider (SWMM `[DIVIDERS]`): under kinematic wave it splits inflow between its
/// diverted link and its other outflow link; under dynamic wave it behaves as a junction.
public struct FlowDivider: Sendable, Hashable {
    public enum Rule: Sendable, Hashable {
        /// Diverts inflow above the cutoff flow, m³/s.
        case cutoff(Double)
        /// Diverts whatever exceeds the capacity of the non-diverted conduit.
        case overflow
        /// Diverted flow (m³/s) as a function of total inflow (m³/s).
        case tabular(Curve)
        /// Weir: minimum flow (m³/s), maximum depth (m) and weir coefficient (SI).
        case weir(minFlow: Double, maxDepth: Double, coefficient: Double)
    }

    /// Index of the link that receives diverted flow.
    public var divertedLink: Int
    public var rule: Rule

    public init(divertedLink: Int, rule: Rule) {
        self.divertedLink = divertedLink
        self.rule = rule
    }
}
