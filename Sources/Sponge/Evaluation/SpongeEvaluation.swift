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
/// so routing would not change it. The rate of a piece of land is 1 − runoff / (rain + run-on).
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

    /// `without` (the model's `[LID_USAGE]` left out); `with` is refused until LID controls are simulated.
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
    public var warnings: [String]

    /// Runs `model` over `record`.
    /// - Parameters:
    ///   - withLID: simulate the model's LID controls; until they are simulated this refuses a model
    ///     with `[LID_USAGE]` naming the first item, as a drainage run does.
    ///   - output: what the runoff run keeps: `.totals` (the default) keeps only running totals,
    ///     so memory does not grow with the record's length; `.series` keeps every step's runoff
    ///     and gives the same answer to the last digit (to check the totals).
    ///   - progress: the runoff simulation's progress (simulated seconds).
    /// - Throws: `SWMMInputError` for model data the run cannot use (`SWMMModel.checkSimulated()`:
    ///   the section, the item and why), `SpongeInputError` for a model without subcatchments.
    public init(model: SWMMModel, record: DailyRainfall, withLID: Bool = false, baseDirectory: URL? = nil,
                output: RunoffSimulation.Output = .totals, progress: ((WorkProgress) -> Void)? = nil) throws {
        guard !model.subcatchments.isEmpty else { throw SpongeInputError("model", "the model has no subcatchment: there is no land to capture rain") }
        guard let coverage = record.coverage else { throw SpongeInputError("daily-rainfall", "the record holds no day") }
        let lidNames = model.subcatchmentsWithLID
        let run = model.overRecord(record, withoutLID: !withLID)
        try run.checkSimulated()
        let simulation = try run.runoffSimulation(baseDirectory: baseDirectory)
        let duration = simulation.duration
        let result = simulation.run(output: output) { t in progress?(WorkProgress(stage: "runoff", completed: t, total: duration, unit: "s")) }
        let zones = DrainageZones(model: model)
        let subs = simulation.subcatchments
        // Run-on a subcatchment receives: the runoff of those that drain onto it.
        var runon = [Double](repeating: 0, count: subs.count)
        for (j, s) in subs.enumerated() {
            if case .subcatchment(let k) = s.outlet, k != j { runon[k] += result.runoffDepth[j] * s.area }
        }
        func rate(runoff: Double, supply: Double) -> Double { supply > 0 ? 1 - runoff / supply : 1 }
        subcatchments = subs.enumerated().map { j, s in
            let rain = result.rainfallDepth[j], on = s.area > 0 ? runon[j] / s.area : 0, off = result.runoffDepth[j]
            return Subcatchment(name: s.name, zone: zones.zoneOfSubcatchment[j], areaHectares: s.area / 10_000, rainfallMillimetres: rain * 1000,
                                runonMillimetres: on * 1000, runoffMillimetres: off * 1000, captureRate: rate(runoff: off, supply: rain + on))
        }
        func area(_ name: String, _ basis: DrainageZones.Basis?, _ members: [Int]) -> Area {
            var rain = 0.0, off = 0.0, a = 0.0
            for j in members {
                rain += result.rainfallDepth[j] * subs[j].area
                a += subs[j].area
                if case .node = subs[j].outlet { off += result.runoffDepth[j] * subs[j].area }
            }
            return Area(name: name, basis: basis, subcatchments: members.count, areaHectares: a / 10_000, rainfallCubicMetres: rain,
                        runoffCubicMetres: off, captureRate: rate(runoff: off, supply: rain))
        }
        var members: [String: [Int]] = [:]
        for (j, z) in zones.zoneOfSubcatchment.enumerated() { members[z, default: []].append(j) }
        self.zones = members.keys.sorted().map { area($0, zones.basis[$0], members[$0]!) }
        self.model = area("model", nil, Array(subs.indices))
        let c = result.continuity
        continuity = Continuity(rainfallCubicMetres: c.rainfall, evaporationCubicMetres: c.evaporation, infiltrationCubicMetres: c.infiltration,
                                runoffCubicMetres: c.runoff, finalStorageCubicMetres: c.finalStorage, errorPercent: c.errorPercent)
        lid = withLID ? "with" : "without"
        lidLeftOut = withLID ? [] : lidNames
        simulated = "SWMM 5.2 runoff over the record (rain, evaporation of ponded water, infiltration with dry-weather recovery, depression storage, nonlinear-reservoir overland flow, run-on); pipes not routed: the capture rate is 1 − runoff / (rain + run-on) of the land"
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
            warnings.append("the LID controls of \(lidNames.count) subcatchments were left out: this is the capture without LID (LID controls are not simulated yet)")
        }
    }
}
