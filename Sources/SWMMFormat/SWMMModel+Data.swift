import Foundation

/// An external inflow at a node (`[INFLOWS]`).
public struct SWMMInflow: Sendable, Equatable {
    public var node: String
    /// `FLOW` or a pollutant.
    public var constituent: String
    /// Time series name, "" for none.
    public var timeseries: String
    /// `FLOW`, `CONCEN` or `MASS`.
    public var kind: String
    /// Units conversion factor.
    public var unitsFactor: Double
    public var scaleFactor: Double
    public var baseline: Double
    public var baselinePattern: String?

    public init(node: String, constituent: String = "FLOW", timeseries: String, kind: String = "FLOW", unitsFactor: Double = 1,
                scaleFactor: Double = 1, baseline: Double = 0, baselinePattern: String? = nil) {
        self.node = node; self.constituent = constituent; self.timeseries = timeseries; self.kind = kind
        self.unitsFactor = unitsFactor; self.scaleFactor = scaleFactor; self.baseline = baseline; self.baselinePattern = baselinePattern
    }
}

/// A dry-weather inflow (`[DWF]`): average value times up to four time patterns.
public struct SWMMDryWeatherFlow: Sendable, Equatable {
    public var node: String
    public var constituent: String
    public var average: Double
    /// Pattern names, "" for none.
    public var patterns: [String]

    public init(node: String, constituent: String = "FLOW", average: Double, patterns: [String] = []) {
        self.node = node; self.constituent = constituent; self.average = average; self.patterns = patterns
    }
}

/// A time pattern (`[PATTERNS]`): MONTHLY (12), DAILY (7), HOURLY or WEEKEND (24) factors.
public struct SWMMPattern: Sendable, Equatable {
    public var name: String
    public var kind: String
    public var factors: [Double]

    public init(name: String, kind: String, factors: [Double]) { self.name = name; self.kind = kind; self.factors = factors }
}

/// A curve (`[CURVES]`): (x, y) pairs of a STORAGE, PUMPn, RATING, TIDAL, SHAPE, … curve.
public struct SWMMCurve: Sendable, Equatable {
    public var name: String
    public var kind: String
    public var points: [SWMMPair]

    public init(name: String, kind: String, points: [SWMMPair]) { self.name = name; self.kind = kind; self.points = points }

    /// Linear interpolation of y at x, held constant beyond the ends.
    public func value(at x: Double) -> Double {
        guard let first = points.first, let last = points.last else { return 0 }
        if x <= first.x { return first.y }
        if x >= last.x { return last.y }
        for k in 1..<points.count where x <= points[k].x {
            let a = points[k - 1], b = points[k]
            return b.x == a.x ? b.y : a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)
        }
        return last.y
    }
}

/// A pair of numbers: a curve point, or a map coordinate.
public struct SWMMPair: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
}

/// A time series (`[TIMESERIES]`), either inline points or a file reference.
public struct SWMMTimeseries: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        /// A calendar date `MM/DD/YYYY` when the series is dated, else nil (times from the start).
        public var date: String?
        /// Hours: of the day when `date` is set, else since the simulation start.
        public var hours: Double
        public var value: Double
        public init(date: String? = nil, hours: Double, value: Double) { self.date = date; self.hours = hours; self.value = value }
    }
    public var name: String
    public var points: [Point]
    /// A data file (`FILE "Example2.dat"`), relative to the `.inp` file.
    public var file: String?

    public init(name: String, points: [Point] = [], file: String? = nil) { self.name = name; self.points = points; self.file = file }
}

/// An `[OPTIONS]` entry, kept as written; typed access through `SWMMModel`'s option properties.
public struct SWMMOption: Sendable, Equatable {
    public var key: String
    public var value: String
    public init(key: String, value: String) { self.key = key; self.value = value }
}

/// A map coordinate of a node (`[COORDINATES]`), a link vertex (`[VERTICES]`) or a subcatchment
/// polygon vertex (`[POLYGONS]`), in the model's map units.
public struct SWMMMapPoint: Sendable, Equatable {
    public var name: String
    public var x: Double
    public var y: Double
    public init(name: String, x: Double, y: Double) { self.name = name; self.x = x; self.y = y }
}

/// A section the reader recognises but does not model (pollutants, land uses, controls, LIDs,
/// transects, labels, …): its data lines as tokens, kept so the writer can give them back.
public struct SWMMRawSection: Sendable, Equatable {
    public var name: String
    public var lines: [[String]]
    public init(name: String, lines: [[String]]) { self.name = name; self.lines = lines }
}
