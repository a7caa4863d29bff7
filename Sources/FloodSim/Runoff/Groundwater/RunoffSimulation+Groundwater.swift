import Foundation

/// What the groundwater under a runoff run did: per subcatchment with an aquifer, its summary and
/// its lateral flow at every runoff time (for routing); the balance of all aquifers together.
public struct GroundwaterResult: Sendable {
    /// Per subcatchment (nil where it has no groundwater).
    public var summaries: [GroundwaterSummary?]
    /// Lateral flow into the receiving node at each runoff time, m³/s (`[subcatchment][time]`;
    /// empty for subcatchments without groundwater and for a `.totals` run).
    public var flow: [[Double]]
    public var continuity: GroundwaterContinuity
}

extension RunoffSimulation {
    /// The initial groundwater state of each subcatchment (nil where it has none).
    func initialGroundwater() -> [GroundwaterState?] {
        subcatchments.indices.map { j in
            guard j < groundwater.count, let g = groundwater[j] else { return nil }
            return GroundwaterState(g, perviousFraction: perviousFraction(j))
        }
    }

    /// The share of subcatchment `j` an aquifer below sees as pervious (SWMM's
    /// subcatch_getFracPerv): the non-LID pervious area and the LID units that seep into native
    /// soil (`LIDControl.isPervious`).
    func perviousFraction(_ j: Int) -> Double {
        let s = subcatchments[j]
        let lidArea = s.lids.reduce(0) { $0 + $1.area }
        guard lidArea > 0, s.area > 0 else { return 1 - s.imperviousFraction }
        let covered = lidArea > 0.999 * s.area ? s.area : lidArea
        let pervious = s.lids.filter { $0.control.isPervious }.reduce(0) { $0 + $1.area }
        return min(((1 - s.imperviousFraction) * (s.area - covered) + pervious) / s.area, 1)
    }

    /// An empty result for the states, with the storage they start with.
    static func groundwaterResult(_ states: [GroundwaterState?], subcatchments: [RunoffSubcatchment], series: Bool) -> GroundwaterResult? {
        guard states.contains(where: { $0 != nil }) else { return nil }
        var result = GroundwaterResult(summaries: states.map { $0?.summary }, flow: states.map { $0 != nil && series ? [0] : [] },
                                       continuity: GroundwaterContinuity())
        for (j, s) in states.enumerated() { if let s { result.continuity.initialStorage += s.storedDepth * subcatchments[j].area } }
        return result
    }

    /// Advances subcatchment `j`'s groundwater over a runoff step and books it: the volumes
    /// infiltrated and evaporated at the surface this step (m³), the potential evaporation rate
    /// (m/s, before any DRY_ONLY rule, as SWMM's groundwater reads it).
    static func advanceGroundwater(_ state: inout GroundwaterState, into result: inout GroundwaterResult, subcatchment j: Int,
                                   _ s: RunoffSubcatchment, infiltration: Double, surfaceEvaporation: Double,
                                   evaporationRate: Double, perviousFraction: Double, dt: Double) {
        state.advance(infiltration: infiltration, surfaceEvaporation: surfaceEvaporation, evaporationRate: evaporationRate,
                      area: s.area, perviousFraction: perviousFraction, dt: dt)
        let f = state.lastFluxes, a = s.area * dt
        result.continuity.infiltration += infiltration
        result.continuity.upperEvaporation += f.upperEvaporation * a
        result.continuity.lowerEvaporation += f.lowerEvaporation * a
        result.continuity.deepPercolation += f.deepLoss * a
        result.continuity.lateralFlow += 0.5 * (state.oldFlow + state.newFlow) * a
    }

    /// Closes the result: final storage and summaries (averages over `duration`).
    static func finishGroundwater(_ states: [GroundwaterState?], into result: inout GroundwaterResult,
                                  subcatchments: [RunoffSubcatchment], duration: Double) {
        for (j, s) in states.enumerated() {
            guard let s else { continue }
            result.continuity.finalStorage += s.storedDepth * subcatchments[j].area
            result.summaries[j] = s.finished(duration: duration)
        }
    }

    /// Groundwater flow into each node as m³/s time series (linear between runoff steps, as SWMM
    /// interpolates it for routing), from a `.series` run.
    public func groundwaterInflows(_ result: Result) -> [String: TimeSeries] {
        guard let gw = result.groundwater else { return [:] }
        var sums: [String: [Double]] = [:]
        for (j, g) in groundwater.enumerated() where j < gw.flow.count {
            guard let g, gw.flow[j].count == result.times.count else { continue }
            var v = sums[g.node] ?? Array(repeating: 0, count: result.times.count)
            for k in v.indices { v[k] += gw.flow[j][k] }
            sums[g.node] = v
        }
        return sums.mapValues { TimeSeries(times: result.times, values: $0) }
    }
}

extension GroundwaterResult {
    /// SWMM's groundwater summary and continuity in SI (depths over each subcatchment's area in
    /// mm, volumes in m³, elevations in m), as `citytwin simulate drainage --json` prints it.
    public func summaryJSON(subcatchments names: [String]) -> [String: Any] {
        var perSubcatchment: [String: Any] = [:]
        for (j, s) in summaries.enumerated() {
            guard let s, j < names.count else { continue }
            perSubcatchment[names[j]] = [
                "infiltration_mm": s.infiltration * 1000, "evaporation_mm": (s.upperEvaporation + s.lowerEvaporation) * 1000,
                "upper_evaporation_mm": s.upperEvaporation * 1000, "lower_evaporation_mm": s.lowerEvaporation * 1000,
                "deep_percolation_mm": s.deepPercolation * 1000, "lateral_outflow_mm": s.lateralOutflow * 1000,
                "max_lateral_outflow_m3s": s.maxLateralOutflow, "average_upper_moisture": s.averageUpperMoisture,
                "average_water_table_m": s.averageWaterTable, "final_upper_moisture": s.finalUpperMoisture,
                "final_water_table_m": s.finalWaterTable,
            ]
        }
        let c = continuity
        return ["subcatchments": perSubcatchment,
                "continuity": ["initial_storage_m3": c.initialStorage, "infiltration_m3": c.infiltration,
                               "upper_evaporation_m3": c.upperEvaporation, "lower_evaporation_m3": c.lowerEvaporation,
                               "deep_percolation_m3": c.deepPercolation, "lateral_flow_m3": c.lateralFlow,
                               "final_storage_m3": c.finalStorage, "error_pct": c.errorPercent]]
    }
}
