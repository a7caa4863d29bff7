import Foundation

// Water a conduit loses along its length (SWMM 5.2.4 link.c conduit_getLossRate): evaporation from
// an open conduit's water surface at the potential evaporation rate, and seepage through its wetted
// width at the `[LOSSES]` seepage rate. Each routing method takes the loss into its own balance:
// the kinematic wave's continuity (kinwave.c's q3), the dynamic wave's momentum (dwflow.c's dq6, the
// loss then drawn from the end nodes as dynwave.c's updateNodeFlows), steady flow's outflow
// (flowrout.c's steadyflow_execute); the step's losses enter the routing continuity as evaporation
// and seepage (routing.c removeConduitLosses).

extension HydraulicState {
    /// The conduit's loss rate (m³/s per barrel) over a step, at the mean of its depths at the step's
    /// start and now: evaporation over the top width of an open section, seepage over the width at the
    /// depth (capped at the widest), both scaled down together to `limit` (the flow for the kinematic
    /// wave and steady flow, the link's volume over the step for the dynamic wave). Keeps each part in
    /// `conduitEvapLoss` and `conduitSeepLoss`.
    mutating func conduitLossRate(_ j: Int, limit: Double) -> Double {
        var evap = 0.0, seep = 0.0
        let depth = 0.5 * (linkOldDepth[j] + linkNewDepth[j])
        if depth > SWMMConstant.fudge {
            let x = xsect[j]
            if x.isOpen && evaporationNow > 0 { evap = x.width(depth) * length[j] * evaporationNow }
            if seepRate[j] > 0 { seep = seepRate[j] * x.seepageWidth(depth) * length[j] }
            let total = evap + seep
            if total > limit {
                evap *= limit / total
                seep *= limit / total
            }
        }
        conduitEvapLoss[j] = evap
        conduitSeepLoss[j] = seep
        return evap + seep
    }
}
