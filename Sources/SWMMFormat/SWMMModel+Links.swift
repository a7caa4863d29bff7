import Foundation

/// A conduit (`[CONDUITS]`): a pipe or channel. Lengths in ft or m, flows in the model's flow units.
public struct SWMMConduit: Sendable, Equatable {
    public var name: String
    public var fromNode: String
    public var toNode: String
    /// Length (> 0).
    public var length: Double
    /// Manning's n.
    public var roughness: Double
    /// Offset of the inlet above the upstream invert (depth or elevation per `LINK_OFFSETS`).
    public var inletOffset: Double
    public var outletOffset: Double
    public var initialFlow: Double
    /// Flow limit (0 = none).
    public var maxFlow: Double

    public init(name: String, fromNode: String, toNode: String, length: Double, roughness: Double,
                inletOffset: Double = 0, outletOffset: Double = 0, initialFlow: Double = 0, maxFlow: Double = 0) {
        self.name = name; self.fromNode = fromNode; self.toNode = toNode; self.length = length; self.roughness = roughness
        self.inletOffset = inletOffset; self.outletOffset = outletOffset; self.initialFlow = initialFlow; self.maxFlow = maxFlow
    }
}

/// A pump (`[PUMPS]`).
public struct SWMMPump: Sendable, Equatable {
    public var name: String
    public var fromNode: String
    public var toNode: String
    /// A pump curve, or `*` for an ideal pump.
    public var curve: String
    public var initiallyOn: Bool
    public var startupDepth: Double
    public var shutoffDepth: Double

    public init(name: String, fromNode: String, toNode: String, curve: String, initiallyOn: Bool = true,
                startupDepth: Double = 0, shutoffDepth: Double = 0) {
        self.name = name; self.fromNode = fromNode; self.toNode = toNode; self.curve = curve
        self.initiallyOn = initiallyOn; self.startupDepth = startupDepth; self.shutoffDepth = shutoffDepth
    }
}

/// An orifice (`[ORIFICES]`).
public struct SWMMOrifice: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case side = "SIDE", bottom = "BOTTOM" }
    public var name: String
    public var fromNode: String
    public var toNode: String
    public var kind: Kind
    public var offset: Double
    public var dischargeCoefficient: Double
    public var gated: Bool
    /// Hours to open or close.
    public var closeTime: Double

    public init(name: String, fromNode: String, toNode: String, kind: Kind, offset: Double, dischargeCoefficient: Double,
                gated: Bool = false, closeTime: Double = 0) {
        self.name = name; self.fromNode = fromNode; self.toNode = toNode; self.kind = kind; self.offset = offset
        self.dischargeCoefficient = dischargeCoefficient; self.gated = gated; self.closeTime = closeTime
    }
}

/// A weir (`[WEIRS]`).
public struct SWMMWeir: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case transverse = "TRANSVERSE", sideflow = "SIDEFLOW", vNotch = "V-NOTCH", trapezoidal = "TRAPEZOIDAL", roadway = "ROADWAY"
    }
    public var name: String
    public var fromNode: String
    public var toNode: String
    public var kind: Kind
    public var crestHeight: Double
    public var dischargeCoefficient: Double
    /// Fields after the coefficient as written: Gated, EndCon, EndCoeff, Surcharge, RoadWidth, RoadSurf, CoeffCurve.
    public var options: [String]

    public init(name: String, fromNode: String, toNode: String, kind: Kind, crestHeight: Double, dischargeCoefficient: Double, options: [String] = []) {
        self.name = name; self.fromNode = fromNode; self.toNode = toNode; self.kind = kind; self.crestHeight = crestHeight
        self.dischargeCoefficient = dischargeCoefficient; self.options = options
    }

    /// A flap gate stops back flow.
    public var gated: Bool { options.first?.uppercased() == "YES" }
    /// Number of end contractions.
    public var endContractions: Double { options.count > 1 ? Double(options[1]) ?? 0 : 0 }
}

/// An outlet (`[OUTLETS]`): flow as a function of depth or head.
public struct SWMMOutlet: Sendable, Equatable {
    public enum Rating: Sendable, Equatable {
        /// Q = c·yᵉ, with y the depth (`head == false`) or head difference.
        case functional(coefficient: Double, exponent: Double, head: Bool)
        case tabular(curve: String, head: Bool)
    }
    public var name: String
    public var fromNode: String
    public var toNode: String
    public var offset: Double
    public var rating: Rating
    public var gated: Bool

    public init(name: String, fromNode: String, toNode: String, offset: Double, rating: Rating, gated: Bool = false) {
        self.name = name; self.fromNode = fromNode; self.toNode = toNode; self.offset = offset; self.rating = rating; self.gated = gated
    }
}

/// A link's cross section (`[XSECTIONS]`).
public struct SWMMCrossSection: Sendable, Equatable {
    public var link: String
    /// SWMM shape keyword (`CIRCULAR`, `RECT_CLOSED`, `TRAPEZOIDAL`, `IRREGULAR`, `CUSTOM`, `STREET`, …).
    public var shape: String
    /// Geom1…Geom4 in ft or m (Geom1 is the full depth or diameter).
    public var geometry: [Double]
    /// The transect (IRREGULAR), shape curve (CUSTOM) or street (STREET) name.
    public var curve: String?
    public var barrels: Int
    public var culvertCode: String?

    public init(link: String, shape: String, geometry: [Double], curve: String? = nil, barrels: Int = 1, culvertCode: String? = nil) {
        self.link = link; self.shape = shape; self.geometry = geometry; self.curve = curve; self.barrels = barrels; self.culvertCode = culvertCode
    }

    /// Full depth (Geom1), 0 for an IRREGULAR shape whose depth lives in its transect.
    public var depth: Double { geometry.first ?? 0 }
}

/// Minor losses of a conduit (`[LOSSES]`).
public struct SWMMLoss: Sendable, Equatable {
    public var link: String
    public var inlet: Double
    public var outlet: Double
    public var average: Double
    public var flapGate: Bool
    public var seepage: Double?

    public init(link: String, inlet: Double, outlet: Double, average: Double, flapGate: Bool = false, seepage: Double? = nil) {
        self.link = link; self.inlet = inlet; self.outlet = outlet; self.average = average; self.flapGate = flapGate; self.seepage = seepage
    }
}
