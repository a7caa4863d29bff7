import Foundation

/// A pollutant (SWMM `[POLLUTANTS]`): its concentration units, the concentrations it arrives with
/// in rain, groundwater and dry-weather flow, its first-order decay and an optional co-pollutant.
public struct Pollutant: Sendable, Hashable {
    public enum Units: String, Sendable, Hashable {
        case milligramsPerLitre = "MG/L", microgramsPerLitre = "UG/L", countPerLitre = "#/L"
    }
    public var name: String
    public var units: Units
    /// Concentrations (in `units`) in rainfall, groundwater inflow and dry-weather inflow, and in
    /// the water standing in nodes and links at the start.
    public var rainConcentration: Double
    public var groundwaterConcentration: Double
    public var dryWeatherConcentration: Double
    public var initialConcentration: Double
    /// Concentration (in `units`) in RDII.
    public var rdiiConcentration: Double = 0
    /// First-order decay coefficient, 1/s (negative for growth).
    public var decay: Double
    /// Index of the co-pollutant whose washoff adds `coFraction` of itself to this one's, or nil.
    public var coPollutant: Int?
    public var coFraction: Double

    public init(name: String, units: Units, rainConcentration: Double = 0, groundwaterConcentration: Double = 0,
                dryWeatherConcentration: Double = 0, initialConcentration: Double = 0, decay: Double = 0,
                coPollutant: Int? = nil, coFraction: Double = 0) {
        self.name = name; self.units = units; self.rainConcentration = rainConcentration
        self.groundwaterConcentration = groundwaterConcentration; self.dryWeatherConcentration = dryWeatherConcentration
        self.initialConcentration = initialConcentration; self.decay = decay; self.coPollutant = coPollutant; self.coFraction = coFraction
    }

    /// Report mass (kg, lb, or a count for #/L) of one unit of the concentration's mass (mg, µg,
    /// one organism), given the report mass in kg (1) or lb (1/0.45359237): SWMM's `mcf`.
    func massFactor(reportMassPerKilogram: Double) -> Double {
        switch units {
        case .milligramsPerLitre: return 1e-6 * reportMassPerKilogram
        case .microgramsPerLitre: return 1e-9 * reportMassPerKilogram
        case .countPerLitre: return 1
        }
    }

    /// Kilograms (or counts) per unit of the concentration's mass.
    var kilogramsPerMassUnit: Double { massFactor(reportMassPerKilogram: 1) }
}

/// How a pollutant builds up on a land use between storms (SWMM `[BUILDUP]`), per unit of area
/// (acre or hectare) or of curb length, in report mass (lb or kg, counts for #/L pollutants).
public struct Buildup: Sendable, Hashable {
    public enum Function: Sendable, Hashable {
        case none
        /// min(c0, c1·t^c2), t in days.
        case power(max: Double, rate: Double, exponent: Double)
        /// c0·(1 − e^(−c1·t)).
        case exponential(max: Double, rate: Double)
        /// c0·t / (c2 + t).
        case saturation(max: Double, halfSaturation: Double)
        /// Adds scale × series(t) per day up to `max`; `series` gives the rate over simulation
        /// seconds.
        case external(max: Double, scale: Double, series: TimeSeries)
    }
    public enum Normalizer: Sendable, Hashable { case area, curb }
    public var function: Function
    public var normalizer: Normalizer

    public init(function: Function = .none, normalizer: Normalizer = .area) {
        self.function = function; self.normalizer = normalizer
    }

    var isNone: Bool { if case .none = function { return true } else { return false } }

    /// Days for buildup to reach its maximum (SWMM's `maxDays`).
    var maxDays: Double {
        switch function {
        case .none, .external: return 0
        case let .power(c0, c1, c2):
            if c1 * c2 == 0 { return 0 }
            if log10(c0) / c2 > 3.5 { return 3650 }
            return pow(c0 / c1, 1 / c2)
        case let .exponential(_, c1): return c1 == 0 ? 0 : -log(0.001) / c1
        case let .saturation(_, c2): return 1000 * c2
        }
    }

    var maximum: Double {
        switch function {
        case .none: return 0
        case let .power(c0, _, _), let .exponential(c0, _), let .saturation(c0, _), let .external(c0, _, _): return c0
        }
    }

    /// Days of buildup that give `b` (per unit).
    func days(toReach b: Double) -> Double {
        if b == 0 { return 0 }
        if b >= maximum { return maxDays }
        switch function {
        case let .power(_, c1, c2): return c1 * c2 == 0 ? 0 : pow(b / c1, 1 / c2)
        case let .exponential(c0, c1): return c0 * c1 == 0 ? 0 : -log(1 - b / c0) / c1
        case let .saturation(c0, c2): return c0 == 0 ? 0 : b * c2 / (c0 - b)
        default: return 0
        }
    }

    /// Buildup (per unit) after `days` of accumulation.
    func mass(afterDays days: Double) -> Double {
        if days == 0 { return 0 }
        if days >= maxDays { return maximum }
        switch function {
        case let .power(c0, c1, c2): return min(c0, c1 * pow(days, c2))
        case let .exponential(c0, c1): return c0 * (1 - exp(-days * c1))
        case let .saturation(c0, c2): return days * c0 / (c2 + days)
        default: return 0
        }
    }

    /// New buildup over a land use after `dt` seconds from `buildup` (report mass), with `perUnit`
    /// its area (acres or hectares) or curb length; `time` is the step's end (for EXT).
    func advance(_ buildup: Double, perUnit: Double, dt: Double, time: Double) -> Double {
        if isNone || dt == 0 { return buildup }
        if perUnit == 0 { return 0 }
        if case let .external(c0, scale, series) = function {
            if time == 0 { return 0 }
            let b = buildup / perUnit + scale * series.value(at: time) * dt / 86_400
            return min(b, c0) * perUnit
        }
        return mass(afterDays: days(toReach: buildup / perUnit) + dt / 86_400) * perUnit
    }
}

/// How runoff washes a pollutant off a land use (SWMM `[WASHOFF]`).
public struct Washoff: Sendable, Hashable {
    public enum Function: Sendable, Hashable {
        case none
        /// c1 · q^c2 · buildup per hour, q the runoff in in/h or mm/h.
        case exponential(coefficient: Double, exponent: Double)
        /// c1 · Q^c2 mass per second, Q the land use's runoff in the model's flow units.
        case ratingCurve(coefficient: Double, exponent: Double)
        /// A fixed concentration (event mean concentration), in the pollutant's units.
        case eventMean(concentration: Double)
    }
    public var function: Function
    /// Fractions (0–1) of buildup removed by street sweeping and of washoff removed by BMPs.
    public var sweepingEfficiency: Double
    public var bmpEfficiency: Double

    public init(function: Function = .none, sweepingEfficiency: Double = 0, bmpEfficiency: Double = 0) {
        self.function = function; self.sweepingEfficiency = sweepingEfficiency; self.bmpEfficiency = bmpEfficiency
    }
}

/// A land use (SWMM `[LANDUSES]`) with its street sweeping and, per pollutant, buildup and washoff.
public struct LandUse: Sendable, Hashable {
    public var name: String
    /// Days between sweepings (0: never swept), fraction of buildup available to sweeping, days
    /// since last swept at the start.
    public var sweepInterval: Double
    public var sweepAvailability: Double
    public var daysSinceSwept: Double
    /// Per pollutant (by index).
    public var buildup: [Buildup]
    public var washoff: [Washoff]

    public init(name: String, sweepInterval: Double = 0, sweepAvailability: Double = 0, daysSinceSwept: Double = 0,
                buildup: [Buildup], washoff: [Washoff]) {
        self.name = name; self.sweepInterval = sweepInterval; self.sweepAvailability = sweepAvailability
        self.daysSinceSwept = daysSinceSwept; self.buildup = buildup; self.washoff = washoff
    }
}

/// Everything of water quality a runoff run needs: the pollutants, land uses, and per subcatchment
/// the land-use fractions, curb length and initial loadings.
public struct SurfaceQualitySetup: Sendable {
    public var pollutants: [Pollutant]
    public var landUses: [LandUse]
    /// Per subcatchment (runoff order): fraction (0–1) of its area under each land use.
    public var coverage: [[Double]]
    /// Per subcatchment: curb length in the model's own units.
    public var curbLength: [Double]
    /// Per subcatchment: initial buildup per pollutant, report mass per acre or hectare (0: from
    /// the buildup function over the antecedent dry days).
    public var initialLoading: [[Double]]
    /// Square metres per acre or hectare, metres per in/h or mm/h depth unit, m³/s per model flow unit,
    /// and report mass (lb or kg) per kilogram.
    public var landAreaUnit: Double
    public var rainDepthUnit: Double
    public var flowUnit: Double
    public var reportMassPerKilogram: Double
    /// Antecedent dry days (buildup at the start), s.
    public var initialDryTime: Double
    /// Calendar position of time 0, and the street-sweeping season (days of the year, 1–365).
    public var start: SimulationClock
    public var sweepStart: Int
    public var sweepEnd: Int

    public init(pollutants: [Pollutant], landUses: [LandUse], coverage: [[Double]], curbLength: [Double], initialLoading: [[Double]],
                landAreaUnit: Double, rainDepthUnit: Double, flowUnit: Double, reportMassPerKilogram: Double, initialDryTime: Double,
                start: SimulationClock = SimulationClock(), sweepStart: Int = 1, sweepEnd: Int = 365) {
        self.pollutants = pollutants; self.landUses = landUses; self.coverage = coverage; self.curbLength = curbLength
        self.initialLoading = initialLoading; self.landAreaUnit = landAreaUnit; self.rainDepthUnit = rainDepthUnit
        self.flowUnit = flowUnit; self.reportMassPerKilogram = reportMassPerKilogram; self.initialDryTime = initialDryTime
        self.start = start; self.sweepStart = sweepStart; self.sweepEnd = sweepEnd
    }

    /// Day of the year (1–365, February 29 counted as 59) of a clock position.
    static func dayOfYear(month: Int, day: Int) -> Int {
        let before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
        return before[max(0, min(11, month - 1))] + min(day, month == 2 ? 28 : 31)
    }
}
