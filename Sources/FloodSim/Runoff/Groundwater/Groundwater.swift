import Foundation

/// An aquifer beneath subcatchments, SWMM 5.2's `[AQUIFERS]` (`gwater.c`), in SI: depths and
/// elevations in m, rates in m/s.
public struct Aquifer: Sendable, Hashable {
    public var name: String
    /// Soil porosity, wilting point and field capacity (volume fractions).
    public var porosity: Double
    public var wiltingPoint: Double
    public var fieldCapacity: Double
    /// Saturated hydraulic conductivity, m/s.
    public var conductivity: Double
    /// Slope of log(conductivity) against moisture deficit.
    public var conductivitySlope: Double
    /// Slope of soil tension against moisture content, m.
    public var tensionSlope: Double
    /// Fraction of the potential evaporation the upper zone may use.
    public var upperEvaporationFraction: Double
    /// Depth below the surface to which evaporation reaches into the lower zone, m.
    public var lowerEvaporationDepth: Double
    /// Loss rate to deep groundwater when the aquifer is full, m/s.
    public var lowerLossCoefficient: Double
    /// Aquifer bottom, initial water table (elevations, m) and initial upper-zone moisture.
    public var bottomElevation: Double
    public var waterTableElevation: Double
    public var upperMoisture: Double

    public init(name: String, porosity: Double, wiltingPoint: Double, fieldCapacity: Double, conductivity: Double,
                conductivitySlope: Double, tensionSlope: Double, upperEvaporationFraction: Double, lowerEvaporationDepth: Double,
                lowerLossCoefficient: Double, bottomElevation: Double, waterTableElevation: Double, upperMoisture: Double) {
        self.name = name; self.porosity = porosity; self.wiltingPoint = wiltingPoint; self.fieldCapacity = fieldCapacity
        self.conductivity = conductivity; self.conductivitySlope = conductivitySlope; self.tensionSlope = tensionSlope
        self.upperEvaporationFraction = upperEvaporationFraction; self.lowerEvaporationDepth = lowerEvaporationDepth
        self.lowerLossCoefficient = lowerLossCoefficient; self.bottomElevation = bottomElevation
        self.waterTableElevation = waterTableElevation; self.upperMoisture = upperMoisture
    }
}

/// A subcatchment's groundwater, SWMM 5.2's `[GROUNDWATER]` line: the aquifer under it, the node
/// its lateral flow reaches, and the flow law
/// q = A1·(Hgw − Hcb)^B1 − A2·(Hsw − Hcb)^B2 + A3·Hgw·Hsw (heights above the aquifer bottom, in the
/// model's length unit; q per unit area in the model's groundwater-flow unit, cfs/acre or cms/ha).
public struct SubcatchmentGroundwater: Sendable, Hashable {
    public var aquifer: Aquifer
    /// The node receiving the lateral flow.
    public var node: String
    /// Ground surface elevation, m.
    public var surfaceElevation: Double
    public var a1: Double, b1: Double, a2: Double, b2: Double, a3: Double
    /// Fixed surface-water depth at the node, m (0: the node's own depth).
    public var fixedDepth: Double
    /// The node's invert, m, and the elevation below which no lateral flow occurs (Hcb; the
    /// node's invert unless the line gives one), m.
    public var nodeInvert: Double
    public var thresholdElevation: Double
    /// This subcatchment's aquifer bottom, initial water table (m) and upper-zone moisture.
    public var bottomElevation: Double
    public var waterTableElevation: Double
    public var upperMoisture: Double
    /// Metres per length unit of the flow law (1 in SI models, 0.3048 in US ones) and m/s per unit
    /// of its flow per area (1/10,000 for cms/ha, 0.3048/43,560 for cfs/acre).
    public var lawLength: Double
    public var lawFlow: Double

    public init(aquifer: Aquifer, node: String, surfaceElevation: Double, a1: Double, b1: Double, a2: Double, b2: Double, a3: Double,
                fixedDepth: Double, nodeInvert: Double, thresholdElevation: Double? = nil, bottomElevation: Double? = nil,
                waterTableElevation: Double? = nil, upperMoisture: Double? = nil, lawLength: Double, lawFlow: Double) {
        self.aquifer = aquifer; self.node = node; self.surfaceElevation = surfaceElevation
        self.a1 = a1; self.b1 = b1; self.a2 = a2; self.b2 = b2; self.a3 = a3; self.fixedDepth = fixedDepth
        self.nodeInvert = nodeInvert; self.thresholdElevation = thresholdElevation ?? nodeInvert
        self.bottomElevation = bottomElevation ?? aquifer.bottomElevation
        self.waterTableElevation = waterTableElevation ?? aquifer.waterTableElevation
        self.upperMoisture = upperMoisture ?? aquifer.upperMoisture
        self.lawLength = lawLength; self.lawFlow = lawFlow
    }

    /// Total depth from the aquifer bottom to the ground surface, m.
    public var totalDepth: Double { surfaceElevation - bottomElevation }
}

/// What one subcatchment's groundwater did over a run (SWMM's Groundwater Summary; depths over the
/// whole subcatchment area, m).
public struct GroundwaterSummary: Sendable, Hashable {
    public var infiltration = 0.0
    public var upperEvaporation = 0.0
    public var lowerEvaporation = 0.0
    /// Loss to deep groundwater ("Total Lower Seepage").
    public var deepPercolation = 0.0
    /// Lateral outflow to the node, as SWMM's summary sums it (end-of-step rates), m.
    public var lateralOutflow = 0.0
    /// Largest lateral outflow, m³/s.
    public var maxLateralOutflow = 0.0
    /// Time-averaged and final upper-zone moisture and water-table elevation (m).
    public var averageUpperMoisture = 0.0
    public var averageWaterTable = 0.0
    public var finalUpperMoisture = 0.0
    public var finalWaterTable = 0.0

    public init() {}
}

/// Groundwater mass balance over a run (SWMM's Groundwater Continuity), m³.
public struct GroundwaterContinuity: Sendable, Hashable {
    public var initialStorage = 0.0
    public var infiltration = 0.0
    public var upperEvaporation = 0.0
    public var lowerEvaporation = 0.0
    public var deepPercolation = 0.0
    /// Lateral flow to the nodes (trapezoidal over each step, as SWMM's balance counts it).
    public var lateralFlow = 0.0
    public var finalStorage = 0.0

    public init() {}

    /// 100·(in − out)/in, percent.
    public var errorPercent: Double {
        let input = initialStorage + infiltration
        guard input > 0 else { return 0 }
        let out = upperEvaporation + lowerEvaporation + deepPercolation + lateralFlow + finalStorage
        return 100 * (input - out) / input
    }
}

/// The running state of one subcatchment's groundwater: SWMM's two-zone model (an unsaturated
/// upper zone of moisture θ over a saturated lower zone of depth d), advanced per runoff step by
/// integrating dθ/dt and dd/dt with the adaptive Cash–Karp scheme of `odesolve.c`.
public struct GroundwaterState: Sendable {
    public let setup: SubcatchmentGroundwater
    /// Upper-zone moisture content and lower-zone depth (m).
    public private(set) var theta: Double
    public private(set) var lowerDepth: Double
    /// Lateral flow per unit subcatchment area at the start and end of the last step, m/s.
    public private(set) var oldFlow = 0.0
    public private(set) var newFlow = 0.0
    /// Infiltration depth over the pervious area the upper zone can still take, m.
    public private(set) var maxInfiltrationVolume: Double
    public private(set) var summary = GroundwaterSummary()
    /// The fluxes of the last step, m/s over the whole area.
    var lastFluxes = GroundwaterFluxes()

    /// SWMM's tolerance on moisture and depth near their bounds (0.001 ft for depths).
    static let moistureTolerance = 0.001
    static let depthTolerance = 0.001 * 0.3048

    /// - Parameter perviousFraction: the subcatchment's pervious share of its area (> 0).
    public init(_ setup: SubcatchmentGroundwater, perviousFraction: Double) {
        self.setup = setup
        let a = setup.aquifer
        theta = setup.upperMoisture
        if theta >= a.porosity { theta = a.porosity - Self.moistureTolerance }
        lowerDepth = setup.waterTableElevation - setup.bottomElevation
        if lowerDepth >= setup.totalDepth { lowerDepth = setup.totalDepth - Self.depthTolerance }
        maxInfiltrationVolume = perviousFraction > 0
            ? (setup.surfaceElevation - setup.waterTableElevation) * (a.porosity - theta) / perviousFraction : 0
        summary.finalUpperMoisture = theta
        summary.finalWaterTable = setup.bottomElevation + lowerDepth
    }

    /// Water stored in both zones per unit area, m.
    public var storedDepth: Double {
        (setup.totalDepth - lowerDepth) * theta + lowerDepth * setup.aquifer.porosity
    }

    /// Water-table elevation, m.
    public var waterTable: Double { setup.bottomElevation + lowerDepth }

    /// Advances one runoff step.
    /// - Parameters:
    ///   - infiltration: volume infiltrated from the surface this step, m³.
    ///   - surfaceEvaporation: volume evaporated from the surface this step, m³ (what SWMM counts
    ///     as already used of the potential rate).
    ///   - evaporationRate: potential evaporation rate, m/s.
    ///   - area: the subcatchment's area, m²; `perviousFraction` its pervious share.
    ///   - nodeDepth: water depth at the receiving node, m (used only without a fixed depth).
    ///   - dt: the step, s.
    public mutating func advance(infiltration: Double, surfaceEvaporation: Double, evaporationRate: Double, area: Double,
                                 perviousFraction: Double, nodeDepth: Double = 0, dt: Double) {
        guard perviousFraction > 0, area > 0, dt > 0 else { return }
        let total = setup.totalDepth
        guard total > 0 else { return }
        let a = setup.aquifer
        let maxEvap = evaporationRate * perviousFraction
        let hsw = (setup.fixedDepth > 0 ? setup.fixedDepth : nodeDepth) + setup.nodeInvert - setup.bottomElevation
        let limitNegative = (total - lowerDepth) * (a.porosity - theta) / dt
        var law = GroundwaterFluxes.Law(setup: setup, infiltration: infiltration / area / dt, maxEvaporation: maxEvap,
                                        availableEvaporation: max(maxEvap - surfaceEvaporation / area / dt, 0), totalDepth: total,
                                        hstar: setup.thresholdElevation - setup.bottomElevation, hsw: hsw, dt: dt)
        law.maxUpperPercolation = max(0, (total - lowerDepth) * (theta - a.fieldCapacity)) / dt
        law.maxFlowPositive = lowerDepth * a.porosity / dt
        // Inflow from the node is refused upstream (it needs the node's inflow during runoff);
        // the cap on a negative flow is then the upper zone's room alone.
        law.maxFlowNegative = -limitNegative
        let frozen = law
        var x = SIMD2(theta, lowerDepth)
        x = CashKarp2.integrate(x, over: dt, tolerance: 0.0001) { y in frozen.derivatives(y) }
        x[0] = max(x[0], a.wiltingPoint)
        if x[0] >= a.porosity {
            x[0] = a.porosity - Self.moistureTolerance
            x[1] = total - Self.depthTolerance
        }
        x[1] = max(x[1], 0)
        if x[1] >= total { x[1] = total - Self.depthTolerance }
        theta = x[0]; lowerDepth = x[1]
        let f = law.fluxes(theta: theta, lowerDepth: lowerDepth)
        lastFluxes = f
        oldFlow = newFlow
        newFlow = f.lateral
        maxInfiltrationVolume = (total - lowerDepth) * (a.porosity - theta) / perviousFraction
        summary.infiltration += law.infiltration * dt
        summary.upperEvaporation += f.upperEvaporation * dt
        summary.lowerEvaporation += f.lowerEvaporation * dt
        summary.deepPercolation += f.deepLoss * dt
        summary.lateralOutflow += f.lateral * dt
        if abs(f.lateral * area) > abs(summary.maxLateralOutflow) { summary.maxLateralOutflow = f.lateral * area }
        summary.averageUpperMoisture += theta * dt
        summary.averageWaterTable += waterTable * dt
        summary.finalUpperMoisture = theta
        summary.finalWaterTable = waterTable
    }

    /// The summary with its averages divided by the run's duration (s).
    func finished(duration: Double) -> GroundwaterSummary {
        var s = summary
        if duration > 0 { s.averageUpperMoisture /= duration; s.averageWaterTable /= duration }
        return s
    }
}
