/// The JSON document of a timing (`citytwin signal plan --json`, the `signal-timing` process):
/// snake_case names with units, approaches keyed by id.
public struct IntersectionTimingReport: Sendable, Encodable {
    public struct Stage: Sendable, Encodable {
        var approaches: [String]
        var green_s: Double
        var amber_s: Double
        var all_red_s: Double
        var effective_green_s: Double
        var critical_approach: String
    }

    public struct Approach: Sendable, Encodable {
        var flow_veh_h: Double
        var saturation_veh_h: Double
        /// The site conditions' factors on the saturation flow, those the lane group gives.
        var saturation_factors: [String: Double]?
        var y: Double
        var capacity_veh_h: Double
        var x: Double
        /// HCM 2000 control delay d₁ + d₂, the level of service's basis.
        var delay_s: Double
        var uniform_delay_s: Double
        var incremental_delay_s: Double
        var webster_delay_s: Double?
        var queue_veh: Double
        /// The 95th-percentile back of queue in one lane (veh/lane) and its length (m); absent at x ≥ 1.
        var queue_95_veh_lane: Double?
        var queue_95_m: Double?
        /// The lane group's storage (m) when it gives one, and the 95th-percentile queue's share of it.
        var storage_m: Double?
        var queue_storage_ratio: Double?
        var stops_per_veh: Double?
        var los: String
        /// true for a free right turn (渠化右转): in no stage, it turns without a signal; and for an
        /// approach green in every stage (常绿), which the signal never stops.
        var uncontrolled: Bool?
    }

    public struct Crossing: Sendable, Encodable {
        var stage: Int
        var green_s: Double
        /// HCM 2000 pedestrian delay (C − g)²/(2C).
        var delay_s: Double
        var longest_wait_s: Double
        var island_wait_s: Double?
        var los: String
    }

    var intersection: String
    var method: String
    var cycle_s: Double
    var offset_s: Double
    var Y: Double
    var lost_time_s: Double
    var webster_cycle_s: Double?
    var mean_delay_s: Double
    var warnings: [SignalTimingWarning]
    var stages: [Stage]
    var approaches: [String: Approach]
    var crossings: [String: Crossing]

    public init(_ timing: IntersectionTiming) {
        intersection = timing.intersection
        method = timing.method
        cycle_s = timing.cycle
        offset_s = timing.plan.offset
        Y = timing.flowRatioSum
        lost_time_s = timing.lostTime
        webster_cycle_s = timing.websterCycle
        mean_delay_s = timing.meanControlDelay
        warnings = timing.warnings
        let effective = Dictionary(timing.approaches.map { ($0.id, $0.effectiveGreen) }, uniquingKeysWith: { a, _ in a })
        stages = timing.plan.stages.enumerated().map { i, s in
            let critical = i < timing.criticalApproaches.count ? timing.criticalApproaches[i] : ""
            return Stage(approaches: s.approaches, green_s: s.green, amber_s: s.amber, all_red_s: s.allRed,
                         effective_green_s: effective[critical] ?? max(0, s.green), critical_approach: critical)
        }
        approaches = Dictionary(timing.approaches.map { a in
            let queue95 = a.backOfQueue95
            let queue95Length = queue95.map { $0 * SignalTiming.queuedVehicleSpacing }
            return (a.id, Approach(flow_veh_h: a.flow, saturation_veh_h: a.saturationFlow, saturation_factors: a.saturationFactors, y: a.flowRatio, capacity_veh_h: a.capacity,
                            x: a.degreeOfSaturation, delay_s: a.controlDelay, uniform_delay_s: a.uniformDelay,
                            incremental_delay_s: a.incrementalDelay, webster_delay_s: a.websterDelay, queue_veh: a.queue,
                            queue_95_veh_lane: queue95, queue_95_m: queue95Length,
                            storage_m: a.storage, queue_storage_ratio: a.storage.flatMap { s in queue95Length.map { $0 / s } },
                            stops_per_veh: a.stopsPerVehicle, los: a.levelOfService.rawValue, uncontrolled: a.uncontrolled))
        }, uniquingKeysWith: { a, _ in a })
        crossings = Dictionary(timing.crossings.map { c in
            (c.id, Crossing(stage: c.stage, green_s: c.green, delay_s: c.delay, longest_wait_s: c.longestWait, island_wait_s: c.islandWait,
                            los: c.levelOfService.rawValue))
        }, uniquingKeysWith: { a, _ in a })
    }
}

/// The JSON document of a corridor plan.
public struct CorridorPlanReport: Sendable, Encodable {
    var corridor: String
    var cycle_s: Double
    var critical_intersection: String
    /// The critical intersection's own cycle, the shortest the corridor may run.
    var critical_cycle_s: Double
    /// The common cycles searched (for `cycle_objective`), [shortest, longest]; absent when the
    /// common cycle is the critical one.
    var cycle_range_s: [Double]?
    /// What the range was searched for: band (MAXBAND's efficiency) or delay; absent without a range.
    var cycle_objective: String?
    /// What the offsets were set for: band (the widest weighted band, MAXBAND) or delay (TRANSYT's hill climb).
    var offset_objective: String
    /// With offsets set for delay: the widest band's bands and mean control delay at the same cycle.
    var at_band_offsets: Alternative?
    var outbound_bandwidth_s: Double
    var inbound_bandwidth_s: Double
    var inbound_weight: Double
    /// two-way, outbound-only or inbound-only.
    var progression: String
    /// Flow-weighted control delay over the corridor's lane groups (s/veh), its through traffic's
    /// with arrivals from the upstream signals under these offsets.
    var mean_control_delay_s: Double
    /// Outbound and inbound: the delay of the corridor's through traffic at each signal under these
    /// offsets (platoons carried down each link) beside the isolated-signal figure, and their sums.
    var directions: [DirectionDelay]
    /// The same plans at offsets the caller gave to compare with (absent when none were).
    var at_compared_offsets: CorridorPlan.OffsetComparison?
    var warnings: [String]
    /// When a cycle range chose a longer cycle: the wave and delay at the critical cycle.
    var at_critical_cycle: Alternative?
    /// For a one-way wave: the shortest longer cycle whose wave carries both directions.
    var two_way_alternative: Alternative?
    var intersections: [IntersectionTimingReport]

    struct Alternative: Sendable, Encodable {
        var cycle_s: Double
        var outbound_bandwidth_s: Double
        var inbound_bandwidth_s: Double
        var mean_control_delay_s: Double

        init(_ wave: GreenWave, meanControlDelay: Double) {
            cycle_s = wave.cycle
            outbound_bandwidth_s = wave.outboundBandwidth
            inbound_bandwidth_s = wave.inboundBandwidth
            mean_control_delay_s = meanControlDelay
        }
    }

    public init(_ plan: CorridorPlan) {
        corridor = plan.corridor.id
        cycle_s = plan.cycle
        critical_intersection = plan.criticalIntersection
        critical_cycle_s = plan.criticalCycle
        cycle_range_s = plan.cycleRange.map { [$0.lowerBound, $0.upperBound] }
        cycle_objective = plan.cycleObjective?.rawValue
        offset_objective = plan.offsetObjective.rawValue
        at_band_offsets = plan.atBandOffsets.map { Alternative($0.wave, meanControlDelay: $0.meanControlDelay) }
        outbound_bandwidth_s = plan.wave.outboundBandwidth
        inbound_bandwidth_s = plan.wave.inboundBandwidth
        inbound_weight = plan.wave.inboundWeight
        progression = plan.wave.progression.rawValue
        mean_control_delay_s = plan.meanControlDelay
        directions = plan.directions
        at_compared_offsets = plan.atComparedOffsets
        warnings = plan.warnings
        at_critical_cycle = plan.atCriticalCycle.map { Alternative($0.wave, meanControlDelay: $0.meanControlDelay) }
        two_way_alternative = plan.twoWayAlternative.map { Alternative($0.wave, meanControlDelay: $0.meanControlDelay) }
        intersections = plan.timings.map(IntersectionTimingReport.init)
    }
}
