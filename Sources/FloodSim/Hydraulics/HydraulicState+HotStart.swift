import Foundation

/// The routing state a SWMM hot-start file carries, in SI and in the engine's node and link order:
/// what a run ends in, for another to start from (SWMM's SAVE/USE HOTSTART).
public struct RoutingHotStart: Sendable, Equatable {
    /// Depth above each node's invert, m, and each node's lateral inflow, m³/s.
    public var nodeDepths: [Double]
    public var lateralInflows: [Double]
    /// Each link's flow (m³/s, signed in the engine's own direction of the link, as SWMM keeps
    /// it), depth (m) and setting (0…1 opening, pump speed).
    public var linkFlows: [Double]
    public var linkDepths: [Double]
    public var linkSettings: [Double]

    public init(nodeDepths: [Double], lateralInflows: [Double], linkFlows: [Double], linkDepths: [Double], linkSettings: [Double]) {
        self.nodeDepths = nodeDepths; self.lateralInflows = lateralInflows
        self.linkFlows = linkFlows; self.linkDepths = linkDepths; self.linkSettings = linkSettings
    }
}

extension HydraulicState {
    /// The state now, as a hot start keeps it.
    var hotStart: RoutingHotStart {
        RoutingHotStart(nodeDepths: newDepth, lateralInflows: newLatFlow, linkFlows: newFlow, linkDepths: linkNewDepth, linkSettings: setting)
    }

    /// Replaces the initial depths, flows and settings by a saved state, then settles volumes and
    /// node inflows from them as SWMM's flowrout_init does after reading a hot-start file.
    mutating func applyHotStart(_ h: RoutingHotStart) {
        for i in 0..<nodeCount {
            newDepth[i] = h.nodeDepths[i]
            newLatFlow[i] = h.lateralInflows[i]
        }
        for j in 0..<linkCount {
            newFlow[j] = h.linkFlows[j]; oldFlow[j] = newFlow[j]
            linkNewDepth[j] = h.linkDepths[j]
            setting[j] = h.linkSettings[j]; targetSetting[j] = setting[j]
        }
        settleInitialState()
    }
}

extension DrainageRouting {
    /// The routing state now (depths, lateral inflows, flows, settings), for a hot-start file.
    public var hotStartState: RoutingHotStart { state.hotStart }
}
