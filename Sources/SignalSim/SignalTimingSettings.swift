/// The bounds and design values a plan is computed within (seconds, m/s, hours).
public struct SignalTimingSettings: Sendable, Hashable, Codable {
    /// Shortest and longest cycle a controller may run (s).
    public var minimumCycle: Double
    public var maximumCycle: Double
    /// Shortest displayed vehicle green of any stage (s).
    public var minimumGreen: Double
    /// Design walking speed for pedestrian minimum greens (m/s); lower near schools and hospitals.
    public var walkingSpeed: Double
    /// Start-up allowance before a pedestrian steps off the kerb (s).
    public var pedestrianStartup: Double
    /// Analysis period T of the HCM incremental delay and the overflow queue (h); 0.25 for 15-minute counts.
    public var analysisPeriod: Double
    /// The analysis periods the CLI and the processes accept (h): three minutes to a day.
    public static let analysisPeriods: ClosedRange<Double> = 0.05...24
    /// Y above which GB 50647 §8.5.4 asks for a redesign.
    public var redesignFlowRatio: Double
    /// Saturation flows for approaches that give none.
    public var saturation: SaturationFlowDefaults

    public init(minimumCycle: Double = 30, maximumCycle: Double = 180, minimumGreen: Double = 10,
                walkingSpeed: Double = 1.0, pedestrianStartup: Double = 4, analysisPeriod: Double = 0.25,
                redesignFlowRatio: Double = 0.9, saturation: SaturationFlowDefaults = SaturationFlowDefaults()) {
        self.minimumCycle = minimumCycle
        self.maximumCycle = maximumCycle
        self.minimumGreen = minimumGreen
        self.walkingSpeed = walkingSpeed
        self.pedestrianStartup = pedestrianStartup
        self.analysisPeriod = analysisPeriod
        self.redesignFlowRatio = redesignFlowRatio
        self.saturation = saturation
    }

    /// Checks the settings themselves, naming the bad one.
    func validate() throws {
        func positive(_ v: Double, _ field: String) throws {
            guard v.isFinite, v > 0 else { throw SignalTimingError(field: field, "must be a positive number (got \(v))") }
        }
        try positive(minimumCycle, "min_cycle_s")
        try positive(maximumCycle, "max_cycle_s")
        guard maximumCycle >= minimumCycle else {
            throw SignalTimingError(field: "max_cycle_s", "must not be below min_cycle_s (\(maximumCycle) < \(minimumCycle))")
        }
        guard minimumGreen.isFinite, minimumGreen >= 0 else { throw SignalTimingError(field: "min_green_s", "must be ≥ 0") }
        try positive(walkingSpeed, "walking_speed_m_s")
        try positive(analysisPeriod, "analysis_period_h")
        try positive(saturation.through, "saturation_veh_h_lane")
        try positive(saturation.permittedLeftCriticalGap, "permitted_left_critical_gap_s")
        try positive(saturation.permittedLeftFollowUp, "permitted_left_follow_up_s")
    }
}
