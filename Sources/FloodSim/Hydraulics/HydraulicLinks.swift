// MARK: - Links

/// A link of the drainage network (SWMM `[CONDUITS]`, `[PUMPS]`, `[ORIFICES]`, `[WEIRS]`,
/// `[OUTLETS]`).
public struct HydraulicLink: Sendable, Hashable {
    /// The user's identifier (SWMM link name).
    public var id: String
    /// Index of the upstream node in `HydraulicNetwork.nodes`.
    public var fromNode: Int
    /// Index of the downstream node in `HydraulicNetwork.nodes`.
    public var toNode: Int
    /// Height of the link's invert above the upstream node's invert, metres (SWMM's DEPTH offsets).
    public var inletOffset: Double
    /// Height of the link's invert above the downstream node's invert, metres.
    public var outletOffset: Double
    /// Flow at the start, m³/s.
    public var initialFlow: Double
    /// Upper limit on flow, m³/s (0 = no limit).
    public var maxFlow: Double
    /// A flap gate stops reverse flow (to → from).
    public var flapGate: Bool
    /// What kind of link this is, with its kind-specific data.
    public var kind: Kind

    /// The kind of a link.
    public enum Kind: Sendable, Hashable {
        case conduit(Conduit)
        case pump(Pump)
        case orifice(Orifice)
        case weir(Weir)
        case outlet(Outlet)
    }

    public init(id: String, fromNode: Int, toNode: Int, inletOffset: Double = 0, outletOffset: Double = 0,
                initialFlow: Double = 0, maxFlow: Double = 0, flapGate: Bool = false, kind: Kind) {
        self.id = id
        self.fromNode = fromNode
        self.toNode = toNode
        self.inletOffset = inletOffset
        self.outletOffset = outletOffset
        self.initialFlow = initialFlow
        self.maxFlow = maxFlow
        self.flapGate = flapGate
        self.kind = kind
    }
}

/// A pipe or channel (SWMM `[CONDUITS]` + `[XSECTIONS]` + `[LOSSES]`).
public struct Conduit: Sendable, Hashable {
    /// Length along the conduit, metres.
    public var length: Double
    /// Manning's n (s/m^(1/3)); for force mains under Hazen–Williams the C factor, under
    /// Darcy–Weisbach the roughness height in metres (see `crossSection`).
    public var roughness: Double
    public var crossSection: CrossSection
    /// Number of identical parallel barrels (≥ 1).
    public var barrels: Int
    /// Entrance minor-loss coefficient (applied to the upstream velocity head).
    public var entryLoss: Double
    /// Exit minor-loss coefficient (applied to the downstream velocity head).
    public var exitLoss: Double
    /// Average minor-loss coefficient along the conduit.
    public var averageLoss: Double
    /// Seepage loss through the conduit walls, m/s per unit wetted width (0 = none).
    public var seepageRate: Double
    /// SWMM's culvert code (1–57: the FHWA HDS-5 inlet whose control is checked; 0 = none).
    public var culvertCode: Int
    /// A natural channel's meander modifier (main channel over flood-plain length, 1 for other
    /// conduits): `length` is the main channel's, which the momentum equation uses; the water and
    /// the slope lie along the flood plain, `length / meander` (SWMM's conduit_getLength).
    public var meander: Double = 1

    public init(length: Double, roughness: Double, crossSection: CrossSection, barrels: Int = 1,
                entryLoss: Double = 0, exitLoss: Double = 0, averageLoss: Double = 0, seepageRate: Double = 0,
                culvertCode: Int = 0) {
        self.culvertCode = culvertCode
        self.length = length
        self.roughness = roughness
        self.crossSection = crossSection
        self.barrels = barrels
        self.entryLoss = entryLoss
        self.exitLoss = exitLoss
        self.averageLoss = averageLoss
        self.seepageRate = seepageRate
    }
}

/// A conduit or orifice cross-section (SWMM `[XSECTIONS]`), dimensions in metres.
///
/// `geometry1` is the full height (or diameter) for every shape; the others follow SWMM's
/// column meanings for the shape: bottom/top width, side slopes (run/rise), etc.
public struct CrossSection: Sendable, Hashable {
    /// SWMM's shape names. The engine supports the shapes marked in `isSupported`.
    public enum Shape: String, Sendable, Hashable, CaseIterable {
        case dummy = "DUMMY"
        case circular = "CIRCULAR"
        case filledCircular = "FILLED_CIRCULAR"
        case rectangularClosed = "RECT_CLOSED"
        case rectangularOpen = "RECT_OPEN"
        case trapezoidal = "TRAPEZOIDAL"
        case triangular = "TRIANGULAR"
        case parabolic = "PARABOLIC"
        case powerFunction = "POWER"
        case forceMain = "FORCE_MAIN"
        case horizontalEllipse = "HORIZ_ELLIPSE"
        case verticalEllipse = "VERT_ELLIPSE"
        case arch = "ARCH"
        case eggShaped = "EGG"
        case horseshoe = "HORSESHOE"
        case gothic = "GOTHIC"
        case catenary = "CATENARY"
        case semiElliptical = "SEMIELLIPTICAL"
        case baskethandle = "BASKETHANDLE"
        case semiCircular = "SEMICIRCULAR"
        case modifiedBaskethandle = "MODBASKETHANDLE"
        case rectangularTriangular = "RECT_TRIANGULAR"
        case rectangularRound = "RECT_ROUND"
        case irregular = "IRREGULAR"
        case custom = "CUSTOM"
        case street = "STREET"
    }

    public var shape: Shape
    /// Full height or diameter, metres.
    public var geometry1: Double
    /// Second dimension (e.g. width, bottom width, filled depth, C factor for force mains), metres.
    public var geometry2: Double
    /// Third dimension (e.g. left side slope), per shape.
    public var geometry3: Double
    /// Fourth dimension (e.g. right side slope), per shape.
    public var geometry4: Double
    /// The geometry tables of an IRREGULAR (transect) or CUSTOM (shape curve) section, whose
    /// `geometry1` is then the profile's full depth.
    public var profile: SectionProfile?

    public init(shape: Shape, geometry1: Double, geometry2: Double = 0, geometry3: Double = 0, geometry4: Double = 0,
                profile: SectionProfile? = nil) {
        self.shape = shape
        self.geometry1 = geometry1
        self.geometry2 = geometry2
        self.geometry3 = geometry3
        self.geometry4 = geometry4
        self.profile = profile
    }

    /// A circular pipe of `diameter` metres.
    public static func circular(diameter: Double) -> CrossSection { .init(shape: .circular, geometry1: diameter) }
    /// A closed rectangular box `height` × `width` metres.
    public static func rectangularClosed(height: Double, width: Double) -> CrossSection {
        .init(shape: .rectangularClosed, geometry1: height, geometry2: width)
    }
    /// An open rectangular channel `height` × `width` metres.
    public static func rectangularOpen(height: Double, width: Double) -> CrossSection {
        .init(shape: .rectangularOpen, geometry1: height, geometry2: width)
    }
    /// A trapezoidal channel: `height` and `bottomWidth` in metres, side slopes as run/rise.
    public static func trapezoidal(height: Double, bottomWidth: Double, leftSlope: Double, rightSlope: Double) -> CrossSection {
        .init(shape: .trapezoidal, geometry1: height, geometry2: bottomWidth, geometry3: leftSlope, geometry4: rightSlope)
    }
    /// A triangular channel `height` metres deep with `topWidth` metres at full height.
    public static func triangular(height: Double, topWidth: Double) -> CrossSection {
        .init(shape: .triangular, geometry1: height, geometry2: topWidth)
    }

    /// Whether the engine routes this shape.
    public var isSupported: Bool {
        switch shape {
        case .dummy, .circular, .filledCircular, .rectangularClosed, .rectangularOpen, .trapezoidal,
             .triangular, .parabolic, .powerFunction, .forceMain:
            return true
        case .irregular, .custom:
            return profile != nil
        default:
            return false
        }
    }
}

/// A pump (SWMM `[PUMPS]` + its `[CURVES]` pump curve).
public struct Pump: Sendable, Hashable {
    /// SWMM's pump curve types.
    public enum CurveKind: Sendable, Hashable {
        /// Ideal: outflow equals inflow (no curve).
        case ideal
        /// Type 1: wet-well volume (m³) → flow (m³/s), stepwise.
        case type1
        /// Type 2: inlet depth (m) → flow (m³/s), stepwise.
        case type2
        /// Type 3: head difference (m) → flow (m³/s), continuous.
        case type3
        /// Type 4: inlet depth (m) → flow (m³/s), continuous.
        case type4
        /// Type 5: variable-speed head (m) → flow (m³/s), continuous (treated as type 3).
        case type5
    }

    public var curveKind: CurveKind
    /// The pump curve (empty for an ideal pump).
    public var curve: Curve
    /// Whether the pump is on at the start.
    public var initiallyOn: Bool
    /// Inlet-node depth (m) at which the pump turns on (0 = not used).
    public var startupDepth: Double
    /// Inlet-node depth (m) at which the pump turns off (0 = not used).
    public var shutoffDepth: Double

    public init(curveKind: CurveKind, curve: Curve = Curve(x: [], y: []), initiallyOn: Bool = true,
                startupDepth: Double = 0, shutoffDepth: Double = 0) {
        self.curveKind = curveKind
        self.curve = curve
        self.initiallyOn = initiallyOn
        self.startupDepth = startupDepth
        self.shutoffDepth = shutoffDepth
    }
}

/// An orifice (SWMM `[ORIFICES]`): its opening is a circular or closed-rectangular section.
/// `HydraulicLink.inletOffset` is the height of the orifice bottom above the inlet node invert.
public struct Orifice: Sendable, Hashable {
    public enum Orientation: Sendable, Hashable {
        /// In the side wall of the upstream node.
        case side
        /// In the bottom of the upstream node.
        case bottom
    }

    public var orientation: Orientation
    /// Opening shape: `.circular` (geometry1 = diameter) or `.rectangularClosed` (height, width), metres.
    public var opening: CrossSection
    /// Discharge coefficient (dimensionless).
    public var dischargeCoefficient: Double
    /// Time to open or close fully, seconds (0 = instant).
    public var openCloseTime: Double

    public init(orientation: Orientation, opening: CrossSection, dischargeCoefficient: Double, openCloseTime: Double = 0) {
        self.orientation = orientation
        self.opening = opening
        self.dischargeCoefficient = dischargeCoefficient
        self.openCloseTime = openCloseTime
    }
}

/// A weir (SWMM `[WEIRS]`). `HydraulicLink.inletOffset` is the crest height above the inlet invert.
public struct Weir: Sendable, Hashable {
    public enum Form: Sendable, Hashable {
        case transverse
        case sideFlow
        case vNotch
        case trapezoidal
        case roadway
    }

    public var form: Form
    /// Height of the weir opening, metres.
    public var height: Double
    /// Crest length (or top width for a V-notch), metres.
    public var length: Double
    /// Side slope (run/rise) for V-notch and trapezoidal weirs.
    public var sideSlope: Double
    /// Discharge coefficient in SI units (m^½/s), for the rectangular part.
    public var dischargeCoefficient: Double
    /// Discharge coefficient of the triangular ends of a trapezoidal weir, SI units.
    public var endCoefficient: Double
    /// Number of end contractions (0, 1 or 2).
    public var endContractions: Int
    /// Whether the weir behaves as an orifice when submerged above its opening.
    public var canSurcharge: Bool
    /// A roadway weir's road width (m) and surface: with both, the FHWA HDS-5 coefficient curves
    /// replace `dischargeCoefficient` (`RoadwayWeir`).
    public var roadWidth: Double = 0
    public var roadSurface: RoadwayWeir.Surface?
    /// The discharge coefficient (SI) as a function of the head over the crest (m), replacing
    /// `dischargeCoefficient` (SWMM 5.2's CoeffCurve; not for roadway weirs).
    public var coefficientCurve: Curve?

    public init(form: Form, height: Double, length: Double, sideSlope: Double = 0, dischargeCoefficient: Double,
                endCoefficient: Double = 0, endContractions: Int = 0, canSurcharge: Bool = true) {
        self.form = form
        self.height = height
        self.length = length
        self.sideSlope = sideSlope
        self.dischargeCoefficient = dischargeCoefficient
        self.endCoefficient = endCoefficient
        self.endContractions = endContractions
        self.canSurcharge = canSurcharge
    }
}

/// An outlet (SWMM `[OUTLETS]`): a rating curve from head or depth to flow.
/// `HydraulicLink.inletOffset` is the outlet's height above the inlet node invert.
public struct Outlet: Sendable, Hashable {
    public enum Rating: Sendable, Hashable {
        /// flow (m³/s) = coefficient·head^exponent, head in metres.
        case functional(coefficient: Double, exponent: Double)
        /// A head or depth (m) → flow (m³/s) table.
        case tabular(Curve)
    }

    public var rating: Rating
    /// true: the rating uses the head difference across the outlet; false: the depth above it.
    public var usesHeadDifference: Bool

    public init(rating: Rating, usesHeadDifference: Bool) {
        self.rating = rating
        self.usesHeadDifference = usesHeadDifference
    }
}
