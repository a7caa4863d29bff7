import GeoCore

/// The water a manhole trades between the pipe network (1D) and the street surface (2D),
/// following Rubinato et al. (2017) as itzi's `drainage.py` does (flood.md §4.6).
///
/// Discharge is **positive from pipe to surface** (a surcharging manhole spilling onto the
/// street) and negative from surface to pipe (street water draining in). The 1D engine takes
/// the opposite sign as the node's lateral inflow.
///
/// | condition | regime | Q |
/// |---|---|---|
/// | H > η (surcharging) | orifice | C_o·A·√(2g·\|η − H\|) |
/// | H < η and H < z | free weir | ⅔·C_w·w·h^{3/2}·√(2g) |
/// | H < η, H ≥ z, h < A/w | submerged weir | C_sw·w·h·√(2g·h) |
/// | H < η, H ≥ z, h ≥ A/w | orifice | C_o·A·√(2g·\|η − H\|) |
///
/// with H the node head, z the ground (crest) level, η the surface water level, h = η − z,
/// A the manhole area and w = 2√(π·A) its perimeter as weir width. Default coefficients are itzi's.
public struct ManholeExchange: Sendable, Equatable {
    /// How water passes the manhole cover in a step.
    public enum Regime: String, Sendable {
        /// Heads equal, or a dry street over a node below ground: nothing moves.
        case none
        case orifice
        case freeWeir
        case submergedWeir
    }

    /// The outcome of one exchange step.
    public struct Flow: Sendable, Equatable {
        /// Discharge in m³/s, positive from pipe to surface, after relaxation, limiting and damping.
        public var discharge: Double
        /// Discharge in m³/s the regime's formula gives before relaxation, limiting and damping.
        public var rawDischarge: Double
        public var regime: Regime
    }

    /// Manhole (cover) area A in m².
    public let area: Double
    /// Orifice coefficient C_o (itzi 0.167).
    public var orificeCoefficient: Double = 0.167
    /// Free-weir coefficient C_w (itzi 0.54).
    public var freeWeirCoefficient: Double = 0.54
    /// Submerged-weir coefficient C_sw (itzi 0.056).
    public var submergedWeirCoefficient: Double = 0.056
    /// Weight of the new discharge against the previous step's (1 = no under-relaxation; itzi 0.8).
    public var relaxation: Double = 0.8
    /// Factor applied when the discharge changes direction from one step to the next (itzi 0.5).
    public var reversalDamping: Double = 0.5
    /// Gravitational acceleration in m/s².
    public var gravity: Double = 9.80665

    /// - Throws: `FloodInputError` when `area` is not a positive finite number.
    public init(area: Double) throws {
        guard area > 0, area.isFinite else {
            throw FloodInputError("manhole area must be > 0 m², got \(area)", field: "area")
        }
        self.area = area
    }

    /// Weir width w = 2√(π·A) in metres: the perimeter of a round cover of area A.
    public var weirWidth: Double { 2 * (Double.pi * area).squareRoot() }

    /// The regime and discharge (m³/s, positive pipe → surface) of the formulas alone.
    /// - Parameters:
    ///   - nodeHead: hydraulic head H in the manhole, metres.
    ///   - groundLevel: ground (cover) level z of the surface cell, metres.
    ///   - waterLevel: water-surface level η of the surface cell (≥ z), metres.
    public func formulaDischarge(nodeHead: Double, groundLevel: Double, waterLevel: Double) -> (discharge: Double, regime: Regime) {
        let eta = Swift.max(waterLevel, groundLevel)
        let g2 = 2 * gravity
        if nodeHead > eta {
            return (orificeCoefficient * area * (g2 * (nodeHead - eta)).squareRoot(), .orifice)
        }
        guard nodeHead < eta else { return (0, .none) }
        let depth = eta - groundLevel
        if nodeHead < groundLevel {
            let q = 2.0 / 3.0 * freeWeirCoefficient * weirWidth * depth * depth.squareRoot() * g2.squareRoot()
            return (-q, .freeWeir)
        }
        if depth < area / weirWidth {
            return (-submergedWeirCoefficient * weirWidth * depth * (g2 * depth).squareRoot(), .submergedWeir)
        }
        return (-orificeCoefficient * area * (g2 * (eta - nodeHead)).squareRoot(), .orifice)
    }

    /// The exchange for one coupled step: the formula discharge under-relaxed against the
    /// previous step's, limited so the surface cell cannot empty in one step, and damped when
    /// its direction flips.
    /// - Parameters:
    ///   - nodeHead: hydraulic head H in the manhole, metres.
    ///   - groundLevel: ground level z of the surface cell, metres.
    ///   - surfaceDepth: water depth h of the surface cell, metres.
    ///   - previousDischarge: the discharge this function returned last step (0 at the start), m³/s.
    ///   - timeStep: the step's length in seconds (> 0).
    ///   - cellArea: plan area of the surface cell in m².
    public func flow(nodeHead: Double, groundLevel: Double, surfaceDepth: Double, previousDischarge: Double,
                     timeStep: Double, cellArea: Double) -> Flow {
        let depth = Swift.max(0, surfaceDepth)
        let (raw, regime) = formulaDischarge(nodeHead: nodeHead, groundLevel: groundLevel, waterLevel: groundLevel + depth)
        var q = relaxation * raw + (1 - relaxation) * previousDischarge
        if q < 0, timeStep > 0 {
            q = Swift.max(q, -depth * cellArea / timeStep)
        }
        if (previousDischarge > 0 && q < 0) || (previousDischarge < 0 && q > 0) {
            q *= reversalDamping
        }
        return Flow(discharge: q, rawDischarge: raw, regime: regime)
    }
}
