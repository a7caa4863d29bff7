import Foundation

/// A subcatchment ready for runoff simulation, in SI (m, m², s).
public struct RunoffSubcatchment: Sendable, Hashable {
    /// Where a subcatchment's runoff goes.
    public enum Outlet: Sendable, Hashable {
        /// A drainage node, by name.
        case node(String)
        /// Another subcatchment, by index, which receives it as run-on.
        case subcatchment(Int)
    }
    /// Where runoff of one subarea is re-routed inside the subcatchment (SWMM `RouteTo`).
    public enum InternalRouting: Sendable, Hashable { case outlet, impervious, pervious }

    public var name: String
    /// m².
    public var area: Double
    /// Impervious fraction 0…1.
    public var imperviousFraction: Double
    /// Overland flow width, m.
    public var width: Double
    /// Slope, m/m.
    public var slope: Double
    public var nImpervious: Double
    public var nPervious: Double
    /// Depression storage, m.
    public var storageImpervious: Double
    public var storagePervious: Double
    /// Fraction of the impervious area with no depression storage.
    public var zeroStorageFraction: Double
    public var routing: InternalRouting
    /// Fraction of runoff re-routed between subareas (the rest goes to the outlet).
    public var routedFraction: Double
    public var infiltration: Infiltration
    public var outlet: Outlet
    /// Index of the rain gauge (hyetograph) this subcatchment reads, nil for none.
    public var gauge: Int?
    /// LID controls placed in it (`[LID_USAGE]`); their area is taken out of the subareas.
    public var lids: [LIDUsage]

    public init(name: String, area: Double, imperviousFraction: Double, width: Double, slope: Double, nImpervious: Double,
                nPervious: Double, storageImpervious: Double, storagePervious: Double, zeroStorageFraction: Double,
                routing: InternalRouting = .outlet, routedFraction: Double = 1, infiltration: Infiltration, outlet: Outlet, gauge: Int?,
                lids: [LIDUsage] = []) {
        self.lids = lids
        self.name = name; self.area = area; self.imperviousFraction = imperviousFraction; self.width = width; self.slope = slope
        self.nImpervious = nImpervious; self.nPervious = nPervious; self.storageImpervious = storageImpervious
        self.storagePervious = storagePervious; self.zeroStorageFraction = zeroStorageFraction; self.routing = routing
        self.routedFraction = routedFraction; self.infiltration = infiltration; self.outlet = outlet; self.gauge = gauge
    }

    /// α of a subarea per SWMM: W·√S/(n·A_sub), with A_sub the whole impervious (both impervious
    /// subareas) or pervious area of the non-LID part; 0 when n or the area is 0.
    func alpha(pervious: Bool, lidArea: Double = 0) -> Double {
        let a = (pervious ? 1 - imperviousFraction : imperviousFraction) * (area - lidArea)
        let n = pervious ? nPervious : nImpervious
        guard a > 0, n > 0 else { return 0 }
        return width / a * slope.squareRoot() / n
    }
}

/// Runoff mass balance over a run (SWMM's Runoff Quantity Continuity), cubic metres.
public struct RunoffContinuity: Sendable, Hashable {
    public var rainfall = 0.0
    public var evaporation = 0.0
    public var infiltration = 0.0
    /// Runoff leaving subcatchments to drainage nodes.
    public var runoff = 0.0
    /// LID underdrain flow to drainage nodes (SWMM's "LID Drainage").
    public var drains = 0.0
    public var initialStorage = 0.0
    public var finalStorage = 0.0

    public init() {}

    /// 100·(in − out)/in, percent.
    public var errorPercent: Double {
        let input = rainfall + initialStorage
        guard input > 0 else { return 0 }
        return 100 * (input - evaporation - infiltration - runoff - drains - finalStorage) / input
    }
}
