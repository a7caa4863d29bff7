import Foundation

/// A rain gage (`[RAINGAGES]`): where a subcatchment's rain comes from.
public struct SWMMRainGage: Sendable, Equatable {
    public enum Format: String, Sendable, CaseIterable { case intensity = "INTENSITY", volume = "VOLUME", cumulative = "CUMULATIVE" }
    public enum Source: Sendable, Equatable {
        /// A `[TIMESERIES]` by name.
        case timeseries(String)
        /// An external rainfall file: path, station id, depth units (`IN` or `MM`).
        case file(path: String, station: String, units: String)
    }
    public var name: String
    public var format: Format
    /// Recording interval in hours.
    public var intervalHours: Double
    /// Snow catch deficiency correction factor.
    public var snowCatchFactor: Double
    public var source: Source

    public init(name: String, format: Format, intervalHours: Double, snowCatchFactor: Double, source: Source) {
        self.name = name; self.format = format; self.intervalHours = intervalHours
        self.snowCatchFactor = snowCatchFactor; self.source = source
    }
}

/// A subcatchment (`[SUBCATCHMENTS]`): land area draining to a node or another subcatchment.
public struct SWMMSubcatchment: Sendable, Equatable {
    public var name: String
    public var rainGage: String
    /// A node or a subcatchment name.
    public var outlet: String
    /// Area in acres (US) or hectares (SI).
    public var area: Double
    public var percentImpervious: Double
    /// Characteristic overland-flow width in ft or m.
    public var width: Double
    public var percentSlope: Double
    public var curbLength: Double
    public var snowPack: String?

    public init(name: String, rainGage: String, outlet: String, area: Double, percentImpervious: Double, width: Double,
                percentSlope: Double, curbLength: Double = 0, snowPack: String? = nil) {
        self.name = name; self.rainGage = rainGage; self.outlet = outlet; self.area = area
        self.percentImpervious = percentImpervious; self.width = width; self.percentSlope = percentSlope
        self.curbLength = curbLength; self.snowPack = snowPack
    }
}

/// Surface parameters of a subcatchment's impervious and pervious parts (`[SUBAREAS]`).
public struct SWMMSubarea: Sendable, Equatable {
    public enum RouteTo: String, Sendable, CaseIterable { case outlet = "OUTLET", impervious = "IMPERVIOUS", pervious = "PERVIOUS" }
    public var subcatchment: String
    public var nImpervious: Double
    public var nPervious: Double
    /// Depression storage in inches or millimetres.
    public var storageImpervious: Double
    public var storagePervious: Double
    /// Percent of the impervious area without depression storage.
    public var percentZero: Double
    public var routeTo: RouteTo
    /// Percent of runoff routed between subareas (default 100).
    public var percentRouted: Double?

    public init(subcatchment: String, nImpervious: Double, nPervious: Double, storageImpervious: Double,
                storagePervious: Double, percentZero: Double, routeTo: RouteTo = .outlet, percentRouted: Double? = nil) {
        self.subcatchment = subcatchment; self.nImpervious = nImpervious; self.nPervious = nPervious
        self.storageImpervious = storageImpervious; self.storagePervious = storagePervious
        self.percentZero = percentZero; self.routeTo = routeTo; self.percentRouted = percentRouted
    }
}

/// The infiltration methods of SWMM 5 (`[OPTIONS] INFILTRATION`, or per subcatchment in 5.2).
public enum SWMMInfiltrationMethod: String, Sendable, CaseIterable {
    case horton = "HORTON", modifiedHorton = "MODIFIED_HORTON", greenAmpt = "GREEN_AMPT"
    case modifiedGreenAmpt = "MODIFIED_GREEN_AMPT", curveNumber = "CURVE_NUMBER"
}

/// Infiltration parameters of a subcatchment's pervious area (`[INFILTRATION]`).
public struct SWMMInfiltration: Sendable, Equatable {
    public enum Parameters: Sendable, Equatable {
        /// Rates in in/h or mm/h, decay in 1/h, dry time in days, max volume in in or mm (0 = none).
        case horton(maxRate: Double, minRate: Double, decay: Double, dryTimeDays: Double, maxVolume: Double)
        /// Suction head in in or mm, conductivity in in/h or mm/h, initial moisture deficit (fraction).
        case greenAmpt(suction: Double, conductivity: Double, initialDeficit: Double)
        /// SCS curve number; the conductivity field is ignored by SWMM 5.2; dry time in days.
        case curveNumber(curveNumber: Double, conductivity: Double, dryTimeDays: Double)
    }
    public var subcatchment: String
    public var parameters: Parameters
    /// A method written on the line itself (SWMM 5.2), overriding `[OPTIONS]`.
    public var method: SWMMInfiltrationMethod?

    public init(subcatchment: String, parameters: Parameters, method: SWMMInfiltrationMethod? = nil) {
        self.subcatchment = subcatchment; self.parameters = parameters; self.method = method
    }
}

/// Evaporation data (`[EVAPORATION]`); rates in in/day or mm/day.
public struct SWMMEvaporation: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case constant(Double)
        case monthly([Double])
        case timeseries(String)
        /// Computed from `[TEMPERATURE]` data (Hargreaves); not simulated here.
        case temperature
        /// From the climate file, with optional monthly pan coefficients.
        case file([Double])
    }
    public var source: Source
    /// Evaporate only in dry periods.
    public var dryOnly: Bool?
    public var recoveryPattern: String?

    public init(source: Source, dryOnly: Bool? = nil, recoveryPattern: String? = nil) {
        self.source = source; self.dryOnly = dryOnly; self.recoveryPattern = recoveryPattern
    }

    /// The potential evaporation rate in the file's units for a month (1…12), when given as data.
    public func rate(month: Int) -> Double {
        switch source {
        case .constant(let r): return r
        case .monthly(let m): return (1...m.count).contains(month) ? m[month - 1] : 0
        default: return 0
        }
    }
}
