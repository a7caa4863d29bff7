import Foundation

/// SWMM 5.2 control rules (`[CONTROLS]`, real-time control) resolved against a network: rules of
/// IF/AND/OR premises and THEN/ELSE actions with priorities, named VARIABLEs and EXPRESSIONs.
/// `ControlRules.parse` reads them from the section's lines (see `ControlRules+Parsing.swift`);
/// `DrainageRouting` evaluates them each rule step (`ControlRules+Evaluation.swift`).
///
/// Values compared in premises are in the model's own units (feet or metres, its flow units,
/// decimal days for times), as SWMM compares them.
public struct ControlRules: Sendable {
    /// What a premise variable reads.
    enum Variable: Sendable {
        case node(Int, NodeAttribute)
        case link(Int, LinkKindCode, LinkAttribute)
        /// A rain gage's current intensity (model rain-rate units), by gage index in `gages`.
        case gageIntensity(Int)
        /// A rain gage's rain total over the past `hours` whole hours (model rain-depth units).
        case gagePastRain(Int, hours: Int)
        case simulation(SimulationAttribute)

        var attribute: Attribute {
            switch self {
            case .node(_, let a): return .node(a)
            case .link(_, _, let a): return .link(a)
            case .gageIntensity, .gagePastRain: return .other
            case .simulation(let a): return .simulation(a)
            }
        }
    }

    enum NodeAttribute: Sendable { case depth, maxDepth, head, volume, inflow }
    enum LinkAttribute: Sendable { case flow, fullFlow, fullDepth, depth, velocity, length, slope, status, setting, timeOpen, timeClosed }
    enum SimulationAttribute: Sendable { case time, date, clockTime, dayOfYear, day, month }
    /// The attribute of a premise's left side, which decides how its right side reads and compares.
    enum Attribute: Sendable, Equatable {
        case node(NodeAttribute), link(LinkAttribute), simulation(SimulationAttribute), other
    }

    enum Relation: String, Sendable, CaseIterable { case eq = "=", ne = "<>", lt = "<", le = "<=", gt = ">", ge = ">=" }

    /// One IF/AND/OR clause.
    struct Premise: Sendable {
        enum Left: Sendable { case variable(Variable), expression(Int) }
        enum Right: Sendable { case value(Double), variable(Variable) }
        var isOr: Bool
        var left: Left
        var relation: Relation
        var right: Right
        /// The left side's attribute (SWMM keeps it for time comparisons and TIMEOPEN/TIMECLOSED).
        var attribute: Attribute
    }

    /// One THEN/ELSE clause: a link's new status or setting (pumps and conduits by status or
    /// setting, orifices and outlets by any setting, weirs closed or open).
    struct Action: Sendable {
        enum Source: Sendable {
            case constant(Double)
            /// Setting = curve(y) at the controller value (the last premise's left side).
            case curve(x: [Double], y: [Double])
            /// Setting = the time series at the current time (seconds from the start).
            case timeSeries(TimeSeries)
            /// PID controller: gain, integral and derivative times (minutes).
            case pid(kp: Double, ki: Double, kd: Double)
        }
        var rule: Int
        var link: Int
        var source: Source
    }

    struct Rule: Sendable {
        var name: String
        var priority: Double
        var premises: [Premise]
        /// Actions in SWMM's evaluation order (the file's order reversed, as SWMM links them).
        var thenActions: [Action]
        var elseActions: [Action]
    }

    var rules: [Rule]
    var variables: [Variable]
    var expressions: [ControlExpression]
    /// Rain gages read by GAGE premises (intensity in model rain-rate units over seconds from the start).
    var gages: [Hyetograph]
    /// End times of the runoff steps (seconds from the start, `RunoffSimulation.Result.times`):
    /// SWMM adds each runoff step's rain to the gage's hourly totals as runoff runs ahead of the
    /// routing, so a past-rain premise reads the totals as of the runoff step the routing step
    /// ends in. Empty without subcatchments (SWMM keeps no totals then: they read 0).
    public var runoffTimes: [Double] = []
    /// The model's units: metres per length unit, m³ per volume unit, m³/s per flow unit.
    var lengthUnit: Double, volumeUnit: Double, flowUnit: Double
    /// Days since 1970 of the simulation start (SWMM's DateTime, shifted) and its time of day (days).
    var startDay: Double
    /// Seconds between rule evaluations (SWMM `RULE_STEP`; 0 = every routing step).
    public var ruleStep: Double

    /// The number of rules.
    public var count: Int { rules.count }
    /// The rules' names in file order.
    public var ruleNames: [String] { rules.map(\.name) }
}

/// A control action taken (SWMM's control-action report: "date time Link X setting changed to Y
/// by Control RULE"). Modulated (curve, time series, PID) actions are not reported, as in SWMM.
public struct ControlActionRecord: Sendable, Hashable {
    /// Seconds from the simulation start.
    public var time: Double
    public var link: String
    public var setting: Double
    public var rule: String
}
