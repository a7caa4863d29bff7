import FloodSim
import Foundation
import SWMMFormat

extension SpongeEvaluation {
    /// One continuous run's capture: per subcatchment, per zone, the model's, its continuity and
    /// the LID units' water balance.
    struct Capture {
        var subcatchments: [Subcatchment]
        var zones: [Area]
        var model: Area
        var continuity: Continuity
        var performance: [LIDPerformance]
    }

    /// Runs `model` over `record` with or without its LID controls.
    /// - Parameter progress: simulated seconds and the run's duration.
    static func capture(_ model: SWMMModel, _ record: DailyRainfall, withLID: Bool, zones: DrainageZones, baseDirectory: URL?,
                        output: RunoffSimulation.Output, progress: @escaping (Double, Double) -> Void) throws -> Capture {
        let run = model.overRecord(record, withoutLID: !withLID)
        try run.checkSimulated()
        let simulation = try run.runoffSimulation(baseDirectory: baseDirectory)
        let duration = simulation.duration
        let result = simulation.run(output: output) { t in progress(t, duration) }
        let subs = simulation.subcatchments
        // Run-on a subcatchment receives: the runoff of those that drain onto it.
        var runon = [Double](repeating: 0, count: subs.count)
        for (j, s) in subs.enumerated() {
            if case .subcatchment(let k) = s.outlet, k != j { runon[k] += result.runoffDepth[j] * s.area }
        }
        func rate(runoff: Double, supply: Double) -> Double { supply > 0 ? 1 - runoff / supply : 1 }
        let subcatchments = subs.enumerated().map { j, s in
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
        let c = result.continuity
        return Capture(subcatchments: subcatchments,
                       zones: members.keys.sorted().map { area($0, zones.basis[$0], members[$0]!) },
                       model: area("model", nil, Array(subs.indices)),
                       continuity: Continuity(rainfallCubicMetres: c.rainfall, evaporationCubicMetres: c.evaporation,
                                              infiltrationCubicMetres: c.infiltration, runoffCubicMetres: c.runoff + c.drains,
                                              finalStorageCubicMetres: c.finalStorage, errorPercent: c.errorPercent),
                       performance: result.lidPerformance)
    }
}
