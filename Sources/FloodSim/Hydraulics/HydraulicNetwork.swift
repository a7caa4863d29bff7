// The plain SI input of the 1D drainage hydraulics engine (SWMM 5.2 compatible).
//
// Everything is in metres, square metres, cubic metres, seconds and m³/s. A SWMM `.inp` reader
// converts US units (ft, cfs) and SWMM conventions (offsets as elevations, curves by name) into
// these values; the engine never sees names it must look up.

/// A drainage network ready for hydraulic routing: nodes, links, inflows and routing options.
///
/// Links refer to nodes by index into `nodes`. All lengths in metres, areas in m², flows in m³/s,
/// times in seconds from the start of the simulation.
public struct HydraulicNetwork: Sendable, Hashable {
    /// Junctions, outfalls, storage units and flow dividers.
    public var nodes: [HydraulicNode]
    /// Conduits, pumps, orifices, weirs and outlets.
    public var links: [HydraulicLink]
    /// External inflows (time series, baseline, dry-weather flow) at nodes.
    public var inflows: [NodeInflow]
    /// How and for how long to route.
    public var options: RoutingOptions

    public init(nodes: [HydraulicNode], links: [HydraulicLink], inflows: [NodeInflow] = [],
                options: RoutingOptions = RoutingOptions()) {
        self.nodes = nodes
        self.links = links
        self.inflows = inflows
        self.options = options
    }

    /// The index of the node with identifier `id`, or nil (linear search: for set-up only).
    public func nodeIndex(_ id: String) -> Int? { nodes.firstIndex { $0.id == id } }
    /// The index of the link with identifier `id`, or nil (linear search: for set-up only).
    public func linkIndex(_ id: String) -> Int? { links.firstIndex { $0.id == id } }
}

// MARK: - Time series and curves

/// A piecewise-linear series of values over simulation time.
///
/// `times` are seconds from the simulation start, strictly increasing; `values` are in the unit of
/// what the series drives (m³/s for inflows, m for stages). Before the first time the first value
/// applies; after the last time the value is 0 (SWMM's lookup for inflows) unless
/// `holdsLastValue` is set (SWMM's lookup for outfall stages).
public struct TimeSeries: Sendable, Hashable {
    public var times: [Double]
    public var values: [Double]
    /// Whether the last value continues after the last time (otherwise the series is 0 there).
    public var holdsLastValue: Bool

    public init(times: [Double], values: [Double], holdsLastValue: Bool = false) {
        self.times = times
        self.values = values
        self.holdsLastValue = holdsLastValue
    }

    /// The linearly interpolated value at `time` (seconds), or 0 for an empty series.
    public func value(at time: Double) -> Double {
        let n = times.count
        guard n > 0 else { return 0 }
        if time <= times[0] { return values[0] }
        if time > times[n - 1] { return holdsLastValue ? values[n - 1] : 0 }
        if time == times[n - 1] { return values[n - 1] }
        var lo = 0, hi = n - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= time { lo = mid } else { hi = mid }
        }
        let t0 = times[lo], t1 = times[hi]
        let f = t1 > t0 ? (time - t0) / (t1 - t0) : 0
        return values[lo] + f * (values[hi] - values[lo])
    }
}

/// A piecewise-linear x → y table (storage, pump, rating, tidal curves), SI units per use.
///
/// Lookups outside the table follow SWMM: below the first x the first segment's line is used
/// down to x = 0 where noted by the user of the curve, otherwise the end values are held.
public struct Curve: Sendable, Hashable {
    public var x: [Double]
    public var y: [Double]

    public init(x: [Double], y: [Double]) {
        self.x = x
        self.y = y
    }

    public init(points: [(Double, Double)]) {
        self.x = points.map(\.0)
        self.y = points.map(\.1)
    }

    public static func == (a: Curve, b: Curve) -> Bool { a.x == b.x && a.y == b.y }
    public func hash(into h: inout Hasher) { h.combine(x); h.combine(y) }
}

// MARK: - Nodes

/// A node of the drainage network (SWMM `[JUNCTIONS]`, `[OUTFALLS]`, `[STORAGE]`, `[DIVIDERS]`).
public struct HydraulicNode: Sendable, Hashable {
    /// The user's identifier (SWMM node name).
    public var id: String
    /// Invert (bottom) elevation, metres above datum.
    public var invertElevation: Double
    /// Depth from invert to the rim (ground), metres. 0 means "the crown of the highest
    /// connected conduit" (SWMM's rule).
    public var maxDepth: Double
    /// Water depth at the start, metres.
    public var initialDepth: Double
    /// Extra depth above `maxDepth` the node may be pressurised before it floods, metres.
    public var surchargeDepth: Double
    /// Area of surface ponding above the rim when ponding is allowed, m² (0 = water is lost).
    public var pondedArea: Double
    /// What kind of node this is, with its kind-specific data.
    public var kind: Kind

    /// The kind of a node.
    public enum Kind: Sendable, Hashable {
        /// A manhole or pipe junction.
        case junction
        /// A terminal node with a downstream boundary condition.
        case outfall(OutfallBoundary)
        /// A storage unit (pond, tank) with a depth–area relation.
        case storage(StorageUnit)
        /// A flow divider (acts as a junction under dynamic wave).
        case divider(FlowDivider)
    }

    public init(id: String, invertElevation: Double, maxDepth: Double = 0, initialDepth: Double = 0,
                surchargeDepth: Double = 0, pondedArea: Double = 0, kind: Kind = .junction) {
        self.id = id
        self.invertElevation = invertElevation
        self.maxDepth = maxDepth
        self.initialDepth = initialDepth
        self.surchargeDepth = surchargeDepth
        self.pondedArea = pondedArea
        self.kind = kind
    }
}

/// The downstream boundary of an outfall (SWMM `[OUTFALLS]`). Stages are elevations in metres.
public struct OutfallBoundary: Sendable, Hashable {
    /// How the water surface at the outfall is set.
    public enum Stage: Sendable, Hashable {
        /// Free outfall: the smaller of critical and normal depth of the connecting conduit.
        case free
        /// Normal depth of the connecting conduit.
        case normal
        /// A fixed water-surface elevation, metres.
        case fixed(Double)
        /// A tidal curve: hour of day (0–24) → water-surface elevation in metres.
        case tidal(Curve)
        /// A time series of water-surface elevation (metres) over simulation seconds.
        case timeSeries(TimeSeries)
    }

    public var stage: Stage
    /// A flap gate prevents backflow into the outfall.
    public var flapGate: Bool

    public init(stage: Stage = .free, flapGate: Bool = false) {
        self.stage = stage
        self.flapGate = flapGate
    }
}

/// A storage unit's geometry and losses (SWMM `[STORAGE]`).
public struct StorageUnit: Sendable, Hashable {
    /// Surface area as a function of depth.
    public enum Shape: Sendable, Hashable {
        /// area (m²) = coefficient·depth^exponent + constant, depth in metres.
        case functional(coefficient: Double, exponent: Double, constant: Double)
        /// A depth (m) → surface area (m²) table.
        case tabular(Curve)
    }

    public var shape: Shape
    /// Fraction of potential evaporation realised (not modelled by this engine; kept for fidelity).
    public var evaporationFactor: Double
    /// Constant seepage rate through the bottom and sides, m/s (0 = none).
    public var seepageRate: Double

    public init(shape: Shape, evaporationFactor: Double = 0, seepageRate: Double = 0) {
        self.shape = shape
        self.evaporationFactor = evaporationFactor
        self.seepageRate = seepageRate
    }
}

/// A flow divider (SWMM `[DIVIDERS]`): under kinematic wave it splits inflow between its
/// diverted link and its other outflow link; under dynamic wave it behaves as a junction.
public struct FlowDivider: Sendable, Hashable {
    public enum Rule: Sendable, Hashable {
        /// Diverts inflow above the cutoff flow, m³/s.
        case cutoff(Double)
        /// Diverts whatever exceeds the capacity of the non-diverted conduit.
        case overflow
        /// Diverted flow (m³/s) as a function of total inflow (m³/s).
        case tabular(Curve)
        /// Weir: minimum flow (m³/s), maximum depth (m) and weir coefficient (SI).
        case weir(minFlow: Double, maxDepth: Double, coefficient: Double)
    }

    /// Index of the link that receives diverted flow.
    public var divertedLink: Int
    public var rule: Rule

    public init(divertedLink: Int, rule: Rule) {
        self.divertedLink = divertedLink
        self.rule = rule
    }
}

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

    public init(length: Double, roughness: Double, crossSection: CrossSection, barrels: Int = 1,
                entryLoss: Double = 0, exitLoss: Double = 0, averageLoss: Double = 0, seepageRate: Double = 0) {
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

    public init(shape: Shape, geometry1: Double, geometry2: Double = 0, geometry3: Double = 0, geometry4: Double = 0) {
        self.shape = shape
        self.geometry1 = geometry1
        self.geometry2 = geometry2
        self.geometry3 = geometry3
        self.geometry4 = geometry4
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

// MARK: - Inflows

/// An external inflow at a node (SWMM `[INFLOWS]` FLOW and `[DWF]` FLOW), m³/s.
///
/// Flow at time t = scale·series(t) + baseline·baselinePattern(t) + dryWeather(t).
public struct NodeInflow: Sendable, Hashable {
    /// Index of the receiving node.
    public var node: Int
    /// The inflow time series in its own units (nil = none).
    public var series: TimeSeries?
    /// Multiplier turning `series` values into m³/s (SWMM's Mfactor × Sfactor × unit conversion).
    public var scale: Double
    /// A constant baseline flow, m³/s.
    public var baseline: Double
    /// Dry-weather flow at the node.
    public var dryWeather: DryWeatherFlow?

    public init(node: Int, series: TimeSeries? = nil, scale: Double = 1, baseline: Double = 0,
                dryWeather: DryWeatherFlow? = nil) {
        self.node = node
        self.series = series
        self.scale = scale
        self.baseline = baseline
        self.dryWeather = dryWeather
    }

    /// The inflow at simulation time `time` (seconds) with `start` the calendar position of time 0.
    public func flow(at time: Double, start: SimulationClock = SimulationClock()) -> Double {
        var q = baseline
        if let series { q += scale * series.value(at: time) }
        if let dryWeather { q += dryWeather.flow(at: time, start: start) }
        return q
    }
}

/// Dry-weather (sanitary) flow: an average multiplied by monthly, daily and hourly patterns.
public struct DryWeatherFlow: Sendable, Hashable {
    /// Average flow, m³/s.
    public var average: Double
    /// 12 monthly multipliers (January first), or empty.
    public var monthly: [Double]
    /// 7 daily multipliers (Sunday first), or empty.
    public var daily: [Double]
    /// 24 hourly multipliers (midnight first), or empty.
    public var hourly: [Double]
    /// 24 weekend hourly multipliers, or empty (then `hourly` is used).
    public var weekendHourly: [Double]

    public init(average: Double, monthly: [Double] = [], daily: [Double] = [], hourly: [Double] = [],
                weekendHourly: [Double] = []) {
        self.average = average
        self.monthly = monthly
        self.daily = daily
        self.hourly = hourly
        self.weekendHourly = weekendHourly
    }

    /// The dry-weather flow at `time` seconds after `start`, m³/s.
    public func flow(at time: Double, start: SimulationClock) -> Double {
        let position = start.advanced(by: time)
        var q = average
        if monthly.count == 12 { q *= monthly[position.month - 1] }
        if daily.count == 7 { q *= daily[position.weekday] }
        let weekend = position.weekday == 0 || position.weekday == 6
        if weekend, weekendHourly.count == 24 {
            q *= weekendHourly[position.hour]
        } else if hourly.count == 24 {
            q *= hourly[position.hour]
        }
        return q
    }
}

/// The calendar position of simulation time 0, for patterns that depend on month, weekday and hour.
public struct SimulationClock: Sendable, Hashable {
    /// Month 1–12.
    public var month: Int
    /// Weekday 0–6 (0 = Sunday).
    public var weekday: Int
    /// Seconds after midnight.
    public var secondOfDay: Double
    /// Day of month 1–31 (used to roll months over).
    public var day: Int
    /// Year (for month lengths).
    public var year: Int

    public init(year: Int = 2000, month: Int = 1, day: Int = 1, secondOfDay: Double = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.secondOfDay = secondOfDay
        // Zeller-style day of week (0 = Sunday) for the Gregorian calendar.
        var y = year, m = month
        if m < 3 { m += 12; y -= 1 }
        let h = (day + (13 * (m + 1)) / 5 + y + y / 4 - y / 100 + y / 400) % 7 // 0 = Saturday
        self.weekday = (h + 6) % 7
    }

    /// The hour of day 0–23.
    public var hour: Int { min(23, max(0, Int(secondOfDay / 3600))) }

    /// This clock moved forward by `seconds`.
    public func advanced(by seconds: Double) -> SimulationClock {
        var total = secondOfDay + seconds
        var days = Int((total / 86_400).rounded(.down))
        total -= Double(days) * 86_400
        var y = year, m = month, d = day
        while days > 0 {
            let length = SimulationClock.daysIn(month: m, year: y)
            if d + days <= length { d += days; days = 0 } else {
                days -= length - d + 1
                d = 1
                m += 1
                if m > 12 { m = 1; y += 1 }
            }
        }
        return SimulationClock(year: y, month: m, day: d, secondOfDay: total)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

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

    public init(method: Method = .dynamicWave, duration: Double = 3600, routingStep: Double = 20,
                variableStepFactor: Double = 0, minimumStep: Double = 0.5, lengtheningStep: Double = 0,
                minSurfaceArea: Double = 1.167_415_4, inertialDamping: InertialDamping = .partial,
                normalFlowLimit: NormalFlowLimit = .both, forceMainEquation: ForceMainEquation = .hazenWilliams,
                allowPonding: Bool = false, headTolerance: Double = 0.001_524, maxTrials: Int = 8,
                minSlope: Double = 0, start: SimulationClock = SimulationClock(), reportStep: Double = 0) {
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
