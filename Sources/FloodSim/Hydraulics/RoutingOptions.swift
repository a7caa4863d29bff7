// MARK: - Options

/// Routing options (SWMM `[OPTIONS]`), SI units.
public struct RoutingOptions: Sendable, Hashable {
    /// SWMM's flow routing methods.
    public enum Method: String, Sendable, Hashable {
        case steady = "STEADY"
        case kinematicWave = "KINWAVE"
        case dynamicWave = "DYNWAVE"
    }

    /// How the inertial terms of the momentum equation are damped (SWMM `INERTIAL_DAMPING`).
    public enum InertialDamping: String, Sendable, Hashable {
        case none = "NONE"
        case partial = "PARTIAL"
        case full = "FULL"
    }

    /// When flow is limited to normal flow (SWMM `NORMAL_FLOW_LIMITED`).
    public enum NormalFlowLimit: String, Sendable, Hashable {
        case slope = "SLOPE"
        case froude = "FROUDE"
        case both = "BOTH"
    }

    /// Friction law for FORCE_MAIN sections (SWMM `FORCE_MAIN_EQUATION`).
    public enum ForceMainEquation: String, Sendable, Hashable {
        case hazenWilliams = "H-W"
        case darcyWeisbach = "D-W"
    }

    /// How surcharged closed conduits and their nodes are computed (SWMM `SURCHARGE_METHOD`).
    public enum SurchargeMethod: String, Sendable, Hashable {
        /// SWMM's default: a node above its highest crown is head-iterated from ΣdQ/dH.
        case extran = "EXTRAN"
        /// Preissmann slot: closed conduits above 98.5257 % of full depth carry a narrow slot
        /// (Sjöberg's width), so surcharged nodes keep the plain continuity update.
        case slot = "SLOT"
    }

    public var method: Method
    /// Total simulated duration, seconds.
    public var duration: Double
    /// Routing step, seconds (the fixed step, or the upper bound of the variable step).
    public var routingStep: Double
    /// Safety factor on the Courant step (SWMM `VARIABLE_STEP`, 0 = fixed step).
    public var variableStepFactor: Double
    /// Smallest variable step allowed, seconds (SWMM `MINIMUM_STEP`, default 0.5).
    public var minimumStep: Double
    /// Time step used to artificially lengthen short conduits, seconds (SWMM `LENGTHENING_STEP`, 0 = off).
    public var lengtheningStep: Double
    /// Minimum nodal surface area, m² (SWMM `MIN_SURFAREA`; default 12.566 ft² = 1.167 m²).
    public var minSurfaceArea: Double
    public var inertialDamping: InertialDamping
    public var normalFlowLimit: NormalFlowLimit
    public var forceMainEquation: ForceMainEquation
    public var surchargeMethod: SurchargeMethod
    /// Whether water above a node's rim ponds over `pondedArea` and returns (SWMM `ALLOW_PONDING`).
    public var allowPonding: Bool
    /// Convergence tolerance on node heads, metres (SWMM `HEAD_TOLERANCE`, default 0.005 ft).
    public var headTolerance: Double
    /// Maximum Picard trials per step (SWMM `MAX_TRIALS`, default 8).
    public var maxTrials: Int
    /// Slope below which SWMM treats a conduit as flat for its minimum slope, m/m (SWMM `MIN_SLOPE`).
    public var minSlope: Double
    /// Calendar position of time 0 (for dry-weather flow patterns).
    public var start: SimulationClock
    /// Time between reported snapshots in results, seconds (0 = no snapshots).
    public var reportStep: Double
    /// Potential evaporation rate from storage units' and open conduits' water surfaces, m/s (SWMM
    /// `[EVAPORATION] CONSTANT`; each unit loses its share `StorageUnit.evaporationFactor`, a conduit all of it).
    public var evaporationRate: Double = 0
    /// Potential evaporation rate by calendar month 1…12 of the routing time, m/s (SWMM
    /// `[EVAPORATION] MONTHLY`); when it holds twelve values it replaces `evaporationRate`.
    public var monthlyEvaporationRates: [Double] = []
    /// Potential evaporation rate from a time series, m/s (SWMM `[EVAPORATION] TIMESERIES`, stepped as
    /// SWMM's climate.c steps it); when set it replaces the two above.
    public var evaporationSchedule: StepSchedule?
    /// Added to the potential evaporation rate by calendar month 1…12, m/s (SWMM `[ADJUSTMENTS]
    /// EVAPORATION`); twelve values or none.
    public var evaporationAdjustments: [Double] = []

    /// Whether the potential evaporation rate can be above 0 at some time.
    public var evaporates: Bool {
        evaporationRate > 0 || monthlyEvaporationRates.contains { $0 > 0 } || (evaporationSchedule?.values.contains { $0 > 0 } ?? false)
            || evaporationAdjustments.contains { $0 > 0 }
    }

    public init(method: Method = .dynamicWave, duration: Double = 3600, routingStep: Double = 20,
                variableStepFactor: Double = 0, minimumStep: Double = 0.5, lengtheningStep: Double = 0,
                minSurfaceArea: Double = 1.167_415_4, inertialDamping: InertialDamping = .partial,
                normalFlowLimit: NormalFlowLimit = .both, forceMainEquation: ForceMainEquation = .hazenWilliams,
                allowPonding: Bool = false, headTolerance: Double = 0.001_524, maxTrials: Int = 8,
                minSlope: Double = 0, start: SimulationClock = SimulationClock(), reportStep: Double = 0,
                surchargeMethod: SurchargeMethod = .extran) {
        self.method = method
        self.duration = duration
        self.routingStep = routingStep
        self.variableStepFactor = variableStepFactor
        self.minimumStep = minimumStep
        self.lengtheningStep = lengtheningStep
        self.minSurfaceArea = minSurfaceArea
        self.inertialDamping = inertialDamping
        self.normalFlowLimit = normalFlowLimit
        self.forceMainEquation = forceMainEquation
        self.surchargeMethod = surchargeMethod
        self.allowPonding = allowPonding
        self.headTolerance = headTolerance
        self.maxTrials = maxTrials
        self.minSlope = minSlope
        self.start = start
        self.reportStep = reportStep
    }
}

// MARK: - Errors

/// What is wrong with a hydraulic network, naming the node or link and the field.
public struct HydraulicsError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// A node or link index outside the network.
        case badReference
        /// A value that is negative, not finite, or otherwise out of range.
        case invalidValue
        /// A cross-section shape or link form the engine does not route.
        case unsupported
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
