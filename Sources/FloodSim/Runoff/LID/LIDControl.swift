import Foundation

/// One LID control of a SWMM 5.2 model (`[LID_CONTROLS]`): a design per unit of area made of
/// layers, in SI (m, m/s, fractions). SWMM's Reference Manual Vol. III describes the layers; the
/// values here are already converted and completed the way SWMM completes them before a run
/// (void ratios as void fractions, clogging factors on a void-volume basis, the overland-flow
/// coefficients, a missing storage layer as 100 % void), so the engine (`LIDUnitState`) reads them
/// as they are.
public struct LIDControl: Sendable, Hashable {
    /// SWMM 5.2's LID kinds, by their `[LID_CONTROLS]` code.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case bioRetention = "BC", rainGarden = "RG", greenRoof = "GR", infiltrationTrench = "IT"
        case permeablePavement = "PP", rainBarrel = "RB", rooftopDisconnection = "RD", vegetativeSwale = "VS"
    }

    public struct Surface: Sendable, Hashable {
        /// Berm height (depression storage), m.
        public var thickness = 0.0
        /// Share of the ponding volume not taken by vegetation (1 − vegetation volume fraction).
        public var voidFraction = 1.0
        public var roughness = 0.0
        /// Surface slope, m/m.
        public var slope = 0.0
        /// Swale side slope, run/rise.
        public var sideSlope = 0.0
    }
    public struct Pavement: Sendable, Hashable {
        public var thickness = 0.0, voidFraction = 0.0, imperviousFraction = 0.0
        /// Permeability, m/s.
        public var conductivity = 0.0
        /// Clogging: the treated depth (m) that clogs the pavement fully (0 = never).
        public var clogDepth = 0.0
        /// Days between regenerations and the share of clogging each one removes.
        public var regenerationDays = 0.0, regenerationDegree = 0.0
    }
    public struct Soil: Sendable, Hashable {
        public var thickness = 0.0, porosity = 0.0, fieldCapacity = 0.0, wiltingPoint = 0.0
        /// Saturated conductivity, m/s; suction head, m; slope of ln K against moisture.
        public var conductivity = 0.0, suction = 0.0, conductivitySlope = 0.0
    }
    public struct Storage: Sendable, Hashable {
        public var thickness = 0.0
        public var voidFraction = 1.0
        /// Seepage into the native soil, m/s.
        public var conductivity = 0.0
        /// Treated depth (m) that clogs the bottom fully (0 = never).
        public var clogDepth = 0.0
        /// A rain barrel with a cover takes no rain.
        public var covered = false
    }
    public struct Drain: Sendable, Hashable {
        /// q = C·hⁿ in the model's units (in/h and in, or mm/h and mm).
        public var coefficient = 0.0, exponent = 0.0
        /// m.
        public var offset = 0.0
        /// Rain barrel: dry time before it drains, s.
        public var delay = 0.0
        /// Heads at which the drain opens and closes, m (0 = always open).
        public var openHead = 0.0, closeHead = 0.0
        /// m per model depth unit (0.0254 or 0.001), m/s per model rate unit.
        public var depthUnit = 0.001, rateUnit = 0.001 / 3600
    }
    public struct DrainageMat: Sendable, Hashable {
        public var thickness = 0.0, voidFraction = 0.0, roughness = 0.0
    }

    public var name: String
    public var kind: Kind
    public var surface = Surface()
    public var pavement = Pavement()
    public var soil = Soil()
    public var storage = Storage()
    public var drain = Drain()
    public var drainageMat = DrainageMat()

    public init(name: String, kind: Kind) { self.name = name; self.kind = kind }

    /// SWMM's Manning constant 1.49 (US units) carried into SI: q = k/n·√S·d^{5/3} per unit width.
    static let manningSI = 1.49 * pow(0.3048, 1.0 / 3)

    /// Overland-flow coefficient of the surface, SI (0 without roughness).
    var surfaceAlpha: Double {
        guard surface.roughness > 0 else { return 0 }
        return Self.manningSI / surface.roughness * surface.slope.squareRoot()
    }
    /// The drainage mat's flow coefficient (green roofs), SI.
    var drainageMatAlpha: Double {
        guard drainageMat.roughness > 0 else { return 0 }
        return Self.manningSI / drainageMat.roughness * surface.slope.squareRoot()
    }
    /// Whether water above the berm leaves at once (no Manning outflow over the surface).
    var canOverflow: Bool {
        switch kind {
        case .rooftopDisconnection: return false
        case .infiltrationTrench, .permeablePavement, .bioRetention, .rainGarden, .greenRoof: return surfaceAlpha <= 0
        case .rainBarrel, .vegetativeSwale: return true
        }
    }
    /// SWMM's `isLidPervious`: a unit that lets water into the native soil.
    var isPervious: Bool { storage.thickness == 0 || storage.conductivity > 0 }

    /// The control as a run uses it, SWMM's `validateLidProc`: a missing storage layer is 100 %
    /// void without drain offset; clogging factors become depths of treated water; a rain barrel
    /// is all void with a tight bottom; a green roof's drainage mat is its storage layer.
    func completed() -> LIDControl {
        var c = self
        if c.storage.thickness <= 0 { c.storage.voidFraction = 1; c.drain.offset = 0 }
        if c.pavement.thickness > 0 {
            c.pavement.clogDepth *= c.pavement.thickness * c.pavement.voidFraction * (1 - c.pavement.imperviousFraction)
        }
        if c.storage.thickness > 0 { c.storage.clogDepth *= c.storage.thickness * c.storage.voidFraction } else { c.storage.clogDepth = 0 }
        if c.kind == .rainBarrel { c.storage.voidFraction = 1; c.storage.conductivity = 0 }
        if c.kind == .greenRoof {
            c.storage.thickness = c.drainageMat.thickness
            c.storage.voidFraction = c.drainageMat.voidFraction
            c.storage.clogDepth = 0
            c.storage.conductivity = 0
        }
        return c
    }
}

/// A LID control placed in a subcatchment (`[LID_USAGE]`), SI.
public struct LIDUsage: Sendable, Hashable {
    /// Where a unit's underdrain flow goes.
    public enum DrainTarget: Sendable, Hashable {
        case node(String)
        case subcatchment(Int)
    }
    public var control: LIDControl
    /// Replicate units and the area of each, m².
    public var number: Int
    public var unitArea: Double
    /// Top width of a unit's outflow face, m.
    public var width: Double
    /// Initial saturation of the soil and storage layers, 0…1.
    public var initialSaturation: Double
    /// Shares of the non-LID impervious and pervious runoff the units treat, 0…1.
    public var fromImpervious: Double
    public var fromPervious: Double
    /// Outflow returned onto the subcatchment's pervious area.
    public var toPervious: Bool
    /// Underdrain outlet; nil = the subcatchment's own outlet.
    public var drainTo: DrainTarget?

    public init(control: LIDControl, number: Int, unitArea: Double, width: Double, initialSaturation: Double,
                fromImpervious: Double, fromPervious: Double = 0, toPervious: Bool, drainTo: DrainTarget? = nil) {
        self.control = control; self.number = number; self.unitArea = unitArea; self.width = width
        self.initialSaturation = initialSaturation; self.fromImpervious = fromImpervious; self.fromPervious = fromPervious
        self.toPervious = toPervious; self.drainTo = drainTo
    }

    /// Area of all the units, m².
    public var area: Double { Double(number) * unitArea }
}

/// A LID unit's water balance over a run (SWMM's LID Performance Summary), depths in m over the
/// unit's area.
public struct LIDPerformance: Sendable, Hashable {
    public var subcatchment: String
    public var control: String
    public var inflow = 0.0, evaporation = 0.0, infiltration = 0.0, surfaceOutflow = 0.0, drainOutflow = 0.0
    public var initialStorage = 0.0, finalStorage = 0.0

    public init(subcatchment: String, control: String) { self.subcatchment = subcatchment; self.control = control }

    /// 100·(in − out)/in as SWMM reports it (100 % when nothing came in).
    public var continuityErrorPercent: Double {
        let input = initialStorage + inflow
        let output = finalStorage + evaporation + infiltration + surfaceOutflow + drainOutflow
        return input > 0 ? 100 * (input - output) / input : 100
    }
}
