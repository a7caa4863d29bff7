import FloodSim
import Foundation
import GeoCore
import SWMMFormat

/// `citytwin sponge evaluate`'s answer: the annual runoff volume capture rate (年径流总量控制率,
/// GB/T 51345-2018) of a SWMM model's subcatchments, drainage zones and whole, from a continuous
/// simulation over a rainfall record.
///
/// What is simulated is SWMM 5.2's runoff (`RunoffSimulation`): rain on each subcatchment's
/// impervious and pervious subareas, evaporation of ponded water between and during events (the
/// model's `[EVAPORATION]`), infiltration by the model's method with its recovery in dry weather,
/// depression storage, overland flow as nonlinear reservoirs and run-on between subcatchments. The
/// pipes are not routed: the capture rate counts the rain that does not leave the land as runoff,
/// so routing would not change it. The rate of a piece of land is 1 − runoff / (rain + run-on),
/// runoff counting LID underdrain flow. A model with LID usage is run twice, with and without its
/// LID controls (SWMM 5.2's LID simulation, `LIDGroupState`): the main figures are the run
/// `withLID` asks for, `lidComparison` the other, `lidPerformance` each LID's water balance.
public struct SpongeEvaluation: Sendable, Encodable {
    /// The capture of one subcatchment.
    public struct Subcatchment: Sendable, Encodable {
        public var name: String
        public var zone: String
        public var areaHectares: Double
        /// Over the whole record, mm over the subcatchment's area.
        public var rainfallMillimetres: Double
        public var runonMillimetres: Double
        public var runoffMillimetres: Double
        /// Annual runoff volume capture rate, 0…1.
        public var captureRate: Double
    }

    /// The capture of a drainage zone or of the whole model: volumes over the record, m³.
    public struct Area: Sendable, Encodable {
        public var name: String
        public var basis: DrainageZones.Basis?
        public var subcatchments: Int
        public var areaHectares: Double
        public var rainfallCubicMetres: Double
        /// Runoff that leaves the area's land for the drainage nodes.
        public var runoffCubicMetres: Double
        public var captureRate: Double
    }

    /// Whole-model runoff continuity over the record, m³ (SWMM's Runoff Quantity Continuity).
    public struct Continuity: Sendable, Encodable {
        public var rainfallCubicMetres: Double
        public var evaporationCubicMetres: Double
        public var infiltrationCubicMetres: Double
        public var runoffCubicMetres: Double
        public var finalStorageCubicMetres: Double
        public var errorPercent: Double
    }

    /// Each LID usage's water balance over the record in the run with LID controls, mm over its area
    /// (SWMM's LID Performance Summary).
    public struct LIDUnit: Sendable, Encodable {
        public var subcatchment: String
        public var control: String
        public var inflowMillimetres: Double, evaporationMillimetres: Double, infiltrationMillimetres: Double
        public var surfaceOutflowMillimetres: Double, drainOutflowMillimetres: Double
        public var initialStorageMillimetres: Double, finalStorageMillimetres: Double
        public var continuityErrorPercent: Double
    }

    /// The capture of the run the main figures are not (with LID when they are without, and the
    /// reverse).
    public struct Comparison: Sendable, Encodable {
        public var lid: String
        public var model: Area
        public var zones: [Area]
        public var subcatchments: [Subcatchment]
        public var continuity: Continuity
    }

    /// `with` (the model's LID controls simulated) or `without` (its `[LID_USAGE]` left out).
    public var lid: String
    /// Subcatchments whose LID usage was left out of the run.
    public var lidLeftOut: [String]
    public var simulated: String
    public var record: DailyRainfall.Coverage
    /// Days of snow given no rain (snowmelt is not simulated), and their depth, mm.
    public var snowDaysLeftOut: Int
    public var snowMillimetresLeftOut: Double
    public var model: Area
    public var zones: [Area]
    public var subcatchments: [Subcatchment]
    public var continuity: Continuity
    /// The other run when the model has LID usage (nil without).
    public var lidComparison: Comparison?
    /// Each LID usage's performance in the run with LID controls (empty without LID usage).
    public var lidPerformance: [LIDUnit]
    public var warnings: [String]

    /// Runs `model` over `record`.
    /// - Parameters:
    ///   - withLID: whether the main figures are the run with the model's LID controls (the other
    ///     run, when the model has LID usage, is `lidComparison`).
    ///   - output: what the runoff run keeps: `.totals` (the default) keeps only running totals,
    ///     so memory does not grow with the record's length; `.series` keeps every step's runoff
    ///     and gives the same answer to the last digit (to check the totals).
    ///   - progress: the runoff simulations' progress (simulated seconds; stage `runoff`, then
    ///     `runoff with LID` or `runoff without LID` for the comparison run).
    /// - Throws: `SWMMInputError` for model data the run cannot use (`SWMMModel.checkSimulated()`:
    ///   the section, the item and why), `SpongeInputError` for a model without subcatchments.
    public init(model: SWMMModel, record: DailyRainfall, withLID: Bool = false, baseDirectory: URL? = nil,
                output: RunoffSimulation.Output = .totals, progress: ((WorkProgress) -> Void)? = nil) throws {
        guard !model.subcatchments.isEmpty else { throw SpongeInputError("model", "the model has no subcatchment: there is no land to capture rain") }
        guard let coverage = record.coverage else { throw SpongeInputError("daily-rainfall", "the record holds no day") }
        let lidNames = model.subcatchmentsWithLID
        let zones = DrainageZones(model: model)
        let main = try Self.capture(model, record, withLID: withLID, zones: zones, baseDirectory: baseDirectory, output: output) { t, total in
            progress?(WorkProgress(stage: "runoff", completed: t, total: total, unit: "s"))
        }
        self.subcatchments = main.subcatchments
        self.zones = main.zones
        self.model = main.model
        continuity = main.continuity
        var performance = main.performance
        lidComparison = nil
        if !lidNames.isEmpty {
            let stage = withLID ? "runoff without LID" : "runoff with LID"
            let other = try Self.capture(model, record, withLID: !withLID, zones: zones, baseDirectory: baseDirectory, output: output) { t, total in
                progress?(WorkProgress(stage: stage, completed: t, total: total, unit: "s"))
            }
            lidComparison = Comparison(lid: withLID ? "without" : "with", model: other.model, zones: other.zones,
                                       subcatchments: other.subcatchments, continuity: other.continuity)
            if !withLID { performance = other.performance }
        }
        lidPerformance = performance.map {
            LIDUnit(subcatchment: $0.subcatchment, control: $0.control, inflowMillimetres: $0.inflow * 1000,
                    evaporationMillimetres: $0.evaporation * 1000, infiltrationMillimetres: $0.infiltration * 1000,
                    surfaceOutflowMillimetres: $0.surfaceOutflow * 1000, drainOutflowMillimetres: $0.drainOutflow * 1000,
                    initialStorageMillimetres: $0.initialStorage * 1000, finalStorageMillimetres: $0.finalStorage * 1000,
                    continuityErrorPercent: $0.continuityErrorPercent)
        }
        lid = withLID ? "with" : "without"
        lidLeftOut = withLID ? [] : lidNames
        simulated = "SWMM 5.2 runoff over the record (rain, evaporation of ponded water, infiltration with dry-weather recovery, depression storage, nonlinear-reservoir overland flow, run-on, LID controls in the run with LID); pipes not routed: the capture rate is 1 − runoff (with LID underdrain flow) / (rain + run-on) of the land"
        self.record = coverage
        let snow = record.days.filter(\.snow)
        snowDaysLeftOut = snow.count
        snowMillimetresLeftOut = snow.reduce(0) { $0 + $1.millimetres }
        warnings = []
        if coverage.years < DesignRainfall.recordYears {
            warnings.append("the record covers \(coverage.years) years (\(coverage.firstDate) to \(coverage.lastDate)); GB/T 51345-2018 asks for at least 30 years of daily rainfall")
        }
        if coverage.missingDays > 0 {
            warnings.append("\(coverage.missingDays) days between \(coverage.firstDate) and \(coverage.lastDate) are missing from the record and were run without rain")
        }
        if !lidNames.isEmpty && !withLID {
            warnings.append("the LID controls of \(lidNames.count) subcatchments were left out: this is the capture without LID (the capture with them is lidComparison)")
        }
    }
}
