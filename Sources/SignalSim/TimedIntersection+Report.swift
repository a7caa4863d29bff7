import Foundation

/// What a plan says of the intersection: per-approach performance (delay, queues, level of
/// service) and the warnings a traffic engineer reads (permitted lefts, bays, merges).
extension TimedIntersection {
    /// What a plan says of an approach whose lefts turn through opposing traffic in their stage: the
    /// lane-group models serve them from the start of the green, while they leave mostly at its end,
    /// and in a single shared lane a left waiting for a gap holds up everything behind it. The figures
    /// are SUMO's against the plans' delay (Benchmarks/README.md: `random_isolated.py --lefts any`
    /// for wider approaches and left bays, `reference_crossroads.py --left-share 0.15` for one lane).
    static func permittedLeftWarning(_ a: ApproachDemand, opposing: Double, delay: Double) -> String {
        let head = String(format: "approach %@ turns %.0f veh/h left through %.0f veh/h of opposing traffic: its delay (%.0f s) serves those lefts from the start of the green, but they leave mostly at its end", a.id, a.flows.left, opposing, delay)
        if a.lanes == 1, a.flows.left < a.flows.total {
            return head + "; in its one lane a left waiting for a gap holds up the traffic behind it, and on one-lane crossroads SUMO measured 7 s (5 % lefts) to 95-109 s (15 % lefts) more on average, up to 896 s, approaches planned at x 0.6-0.8 queueing as if over capacity (Benchmarks/README.md). Check it with signal evaluate --sumo, or give the lefts a lane and a stage"
        }
        return head + "; SUMO measured 25 s (lefts sharing lanes) to 41 s (left bays) more on average (Benchmarks/README.md). Check it with signal evaluate --sumo, or give the lefts a stage"
    }

    /// What a plan says of an approach whose lefts are protected in some of its stages and permitted
    /// through opposing traffic in others: they are timed at the permitted saturation flow in all of
    /// them. HCM's protected plus permitted capacity (each stage at its own rate) was tried and not
    /// kept: SUMO's permitted lefts serve less than it counts, its delays ran below SUMO's on every
    /// such bay and the plans it changed ran worse there (Benchmarks/README.md, `overlapping_stages.py
    /// --permitted-lefts`).
    static func protectedPermittedLeftWarning(_ a: ApproachDemand, opposing: Double, protected: [Int], permitted: [Int]) -> String {
        func stages(_ list: [Int]) -> String { (list.count == 1 ? "stage " : "stages ") + list.map { String($0 + 1) }.joined(separator: ", ") }
        let head = String(format: "approach %@ turns %.0f veh/h left, protected in %@ and permitted through %.0f veh/h of opposing traffic in %@: its lefts are timed at the permitted saturation flow throughout (conservative in the protected green); on 26 such left bays SUMO's delay differed from the plans' by 1.4 s on average (7.0 s below to 3.1 s above, 23 within 2.5 s; Benchmarks/README.md)", a.id, a.flows.left, stages(protected), opposing, stages(permitted))
        guard a.flows.through + a.flows.right > 0 else { return head }
        return head + "; in a lane it shares with through or right traffic a left waiting for a gap in the permitted green holds up the traffic behind it, which those bays do not measure: check it with signal evaluate --sumo"
    }

    /// A turn bay whose entry the queue beside it blocks: on the bay's arm, a lane group whose lanes
    /// run farther back (no storage, or a longer one) queues past where the bay opens, so the bay's
    /// vehicles wait behind that queue in its lanes. One warning per bay, about the longest such queue.
    func bayEntryWarnings(_ performance: [ApproachPerformance]) -> [SignalTimingWarning] {
        var warnings: [SignalTimingWarning] = []
        for (i, bay) in demand.approaches.enumerated() {
            guard let storage = bay.storage, bay.flows.total > 0 else { continue }
            let beside = lanesBeside(bay: i)
            let held = Int((storage / SignalTiming.queuedVehicleSpacing).rounded(.down))
            let over = beside.filter { performance[$0].degreeOfSaturation >= 1 }
            if let j = over.first {
                warnings.append(.init(.bayBlocked, String(format: "lane group %@ runs over capacity (x = %.2f): its queue grows past where lane group %@'s %.0f m bay opens, and %@'s vehicles wait behind it", demand.approaches[j].id, performance[j].degreeOfSaturation, bay.id, storage, bay.id), approach: bay.id, affects: [demand.approaches[j].id]))
                continue
            }
            let longest = beside.compactMap { j in performance[j].backOfQueue95.map { (j, $0) } }.max { $0.1 < $1.1 }
            guard let (j, queue) = longest, queue * SignalTiming.queuedVehicleSpacing > storage else { continue }
            let share = performance[j].backOfQueueExceedance(held) ?? 1
            warnings.append(.init(.bayBlocked, String(format: "lane group %@'s 95th-percentile queue (%.0f vehicles a lane, %.0f m) reaches past where lane group %@'s %.0f m bay opens: in about %.0f %% of cycles %@'s vehicles cannot reach their bay and wait in %@'s lanes; lengthen the bay", demand.approaches[j].id, queue, queue * SignalTiming.queuedVehicleSpacing, bay.id, storage, share * 100, bay.id, demand.approaches[j].id), approach: bay.id, affects: [demand.approaches[j].id]))
        }
        return warnings
    }

    /// Movements that leave by the arm the traffic of an approach green in every stage (常绿) leaves
    /// by: they merge into a stream the signal never stops and yield to it, which their delay leaves
    /// out. One warning per approach that merges, naming the streams it joins.
    func mergeWarnings(_ performance: [ApproachPerformance]) -> [SignalTimingWarning] {
        let always = demand.approaches.indices.filter { StageChain.alwaysGreen(demand.approaches[$0].id, in: demand.stages) }
        guard !always.isEmpty else { return [] }
        var warnings: [SignalTimingWarning] = []
        for (i, a) in demand.approaches.enumerated() where !stagesOfApproach[i].isEmpty {
            guard let arm = a.compassArm else { continue }
            var merging: [(movement: String, flow: Double)] = []
            var joined: [Int] = []
            for (movement, flow) in [("left", a.flows.left), ("through", a.flows.through), ("right", a.flows.right)] where flow > 0 {
                let exit = Self.exitArm(from: arm, movement)
                let into = always.filter { j in
                    let b = demand.approaches[j]
                    guard let other = b.compassArm, other != arm else { return false }
                    return b.flows.flowing.contains { Self.exitArm(from: other, $0) == exit }
                }
                if !into.isEmpty { merging.append((movement, flow)); joined += into.filter { !joined.contains($0) } }
            }
            guard !merging.isEmpty else { continue }
            let what = merging.map { String(format: "%.0f veh/h of %@", $0.flow, $0.movement == "through" ? "through traffic" : $0.movement + " turns") }.joined(separator: " and ")
            let streams = joined.map { String(format: "%@ (%.0f veh/h)", demand.approaches[$0].id, demand.approaches[$0].flows.total) }.joined(separator: ", ")
            warnings.append(.init(.mergesIntoAlwaysGreen, String(format: "approach %@'s %@ leave by the arm that %@ leaves by, which is green in every stage and never stops: unless they have a receiving lane of their own, they merge into that traffic and yield to it, a wait their delay (%.0f s) leaves out; check it with signal evaluate --sumo, whose network merges them", a.id, what, streams, performance[i].controlDelay), approach: a.id))
        }
        return warnings
    }

    /// The lane groups with flow on a turn bay's arm whose lanes run farther back than the bay (no
    /// storage, or a longer one): the lanes its overflowing queue blocks, and whose queue can block
    /// its entry. Empty when the bay has no storage or no compass arm.
    func lanesBeside(bay i: Int) -> [Int] {
        let bay = demand.approaches[i]
        guard let storage = bay.storage, let arm = bay.compassArm else { return [] }
        return demand.approaches.indices.filter { j in
            let other = demand.approaches[j]
            return j != i && other.compassArm == arm && other.flows.total > 0 && (other.storage ?? .infinity) > storage
        }
    }

    /// Performance of every approach under `plan` (its stages in `demand.stages` order).
    func timing(of plan: SignalPlan, method: String, websterCycle: Double?, warnings: [SignalTimingWarning]) -> IntersectionTiming {
        let cycle = plan.cycle
        var warnings = warnings
        var performance: [ApproachPerformance] = []
        for (i, a) in demand.approaches.enumerated() {
            let s = saturationFlows[i]
            let q = a.flows.total
            // A free right turn (in no stage) is never stopped by the signal: its green is the whole cycle.
            let g = effectiveGreen(i, in: plan)
            performance.append(Self.performance(id: a.id, flow: q, saturationFlow: s, effectiveGreen: g, cycle: cycle,
                                                analysisPeriod: settings.analysisPeriod, incrementalDelayFactor: incrementalDelayFactor,
                                                lanes: a.lanes))
            if stagesOfApproach[i].isEmpty { performance[i].uncontrolled = true }
            performance[i].storage = a.storage
            let factors = a.conditions.factors(lanes: a.lanes)
            if !factors.isEmpty { performance[i].saturationFactors = factors }
            if q > 0, performance[i].degreeOfSaturation > 1 {
                let growth = (q - performance[i].capacity) * settings.analysisPeriod
                warnings.append(.init(.overCapacity, String(format: "approach %@ runs at x = %.2f: its queue grows through the period, by about %.0f vehicles in %.0f minutes ((q − c)·T, %.0f − %.0f veh/h)", a.id, performance[i].degreeOfSaturation, growth, settings.analysisPeriod * 60, q, performance[i].capacity), approach: a.id))
            }
            if let storage = a.storage, q > 0, performance[i].degreeOfSaturation >= 1 {
                warnings.append(.init(.queueStorage, String(format: "lane group %@ runs over capacity (x = %.2f): its queue grows past the end of its %.0f m bay and blocks the lanes beside it", a.id, performance[i].degreeOfSaturation, storage), approach: a.id, affects: lanesBeside(bay: i).map { demand.approaches[$0].id }))
            } else if let storage = a.storage, let queue = performance[i].backOfQueue95, queue * SignalTiming.queuedVehicleSpacing > storage {
                let held = Int((storage / SignalTiming.queuedVehicleSpacing).rounded(.down))
                let share = performance[i].backOfQueueExceedance(held) ?? 1
                warnings.append(.init(.queueStorage, String(format: "lane group %@: its 95th-percentile queue (%.0f vehicles a lane, %.0f m) is longer than its %.0f m of storage (%d vehicles): the queue reaches back past where its lanes begin in about %.0f %% of cycles and blocks the lanes beside them; lengthen the bay or give it more green", a.id, queue, queue * SignalTiming.queuedVehicleSpacing, storage, held, share * 100), approach: a.id, affects: lanesBeside(bay: i).map { demand.approaches[$0].id }))
            }
            if !unknownOpposing[i].isEmpty {
                let others = unknownOpposing[i].map { demand.approaches[$0] }
                let flow = others.reduce(0) { $0 + $1.flows.through + $1.flows.right }
                let unknown = ([a] + others).filter { $0.compassArm == nil }.map(\.id)
                let whose = unknown.count == 1 ? "the arm of \(unknown[0]) is" : "the arms of \(unknown.joined(separator: ", ")) are"
                warnings.append(.init(.armUnknown, String(format: "approach %@ turns %.0f veh/h left in the stage it shares with %@ (%.0f veh/h of through and right traffic), but %@ not known (an id that is not N, S, E or W and no arm given), so its lefts are timed as turning unopposed; if they cross that traffic they wait for gaps and their delay is higher (see permitted-left). Give each approach its arm", a.id, a.flows.left, others.map(\.id).joined(separator: ", "), flow, whose), approach: a.id))
            }
            if permittedLeftOpposing[i] > 0 {
                let permitted = permittedLeftStages[i]
                let text = protectedLeftStages[i].isEmpty
                    ? Self.permittedLeftWarning(a, opposing: permittedLeftOpposing[i], delay: performance[i].controlDelay)
                    : Self.protectedPermittedLeftWarning(a, opposing: permittedLeftOpposing[i], protected: protectedLeftStages[i], permitted: permitted)
                warnings.append(.init(.permittedLeft, text, approach: a.id))
            }
        }
        warnings += bayEntryWarnings(performance)
        warnings += mergeWarnings(performance)
        let crossings = demand.crossings.map { crossing in
            let green = plan.stages.indices.contains(crossing.stage) ? max(0, plan.stages[crossing.stage].green) : 0
            let red = max(0, cycle - green)
            let delay = red * red / (2 * cycle)
            let whole = settings.pedestrianStartup + crossing.length / settings.walkingSpeed
            return CrossingPerformance(id: crossing.id, stage: crossing.stage, green: green, delay: delay, longestWait: red,
                                       islandWait: crossing.refugeIsland && green < whole ? red : nil,
                                       levelOfService: LevelOfService(pedestrianDelay: delay))
        }
        return IntersectionTiming(intersection: demand.id, method: method, plan: plan, lostTime: criticalLostTime,
                                  flowRatioSum: flowRatioSum, websterCycle: websterCycle,
                                  criticalApproaches: criticalApproaches, approaches: performance, crossings: crossings,
                                  warnings: warnings)
    }

    /// Delay, queue and stops of one lane group (flows veh/h, times s, period h) of `lanes` lanes.
    static func performance(id: String, flow q: Double, saturationFlow s: Double, effectiveGreen g: Double, cycle: Double,
                            analysisPeriod t: Double, incrementalDelayFactor k: Double = SignalTiming.hcmPretimedDelayFactor,
                            lanes: Int = 1)
        -> ApproachPerformance {
        let lambda = g / cycle
        let capacity = s * lambda
        let x = capacity > 0 ? q / capacity : (q > 0 ? .infinity : 0)
        let (d1, d2) = SignalTiming.hcmDelay(cycle: cycle, effectiveGreen: g, flow: q, capacity: capacity, analysisPeriod: t,
                                             incrementalDelayFactor: k)
        let webster = capacity > 0 ? SignalTiming.websterDelay(cycle: cycle, effectiveGreen: g, flow: q, saturationFlow: s) : nil
        // Akçelik (ARR 123): overflow queue for x above x₀ = 0.67 + s·g/600 (s in veh/s).
        let x0 = 0.67 + (s / 3600) * g / 600
        var overflow = 0.0
        if x > x0, capacity > 0 {
            let ct = capacity * t
            overflow = x.isFinite ? ct / 4 * ((x - 1) + ((x - 1) * (x - 1) + 12 * (x - x0) / ct).squareRoot()) : q * t
        }
        let red = cycle - g
        let queue = q / 3600 * red + overflow
        let y = q / s
        var stops: Double?
        if q == 0 { stops = 0 } else if y < 1 {
            stops = 0.9 * ((1 - lambda) / (1 - y) + overflow / (q * cycle / 3600))
        }
        let control = d1 + d2
        return ApproachPerformance(id: id, flow: q, saturationFlow: s, flowRatio: y, effectiveGreen: g, capacity: capacity,
                                   degreeOfSaturation: x, websterDelay: webster, uniformDelay: d1, incrementalDelay: d2,
                                   controlDelay: control, queue: queue, lanes: lanes, stopsPerVehicle: stops,
                                   levelOfService: LevelOfService(controlDelay: control, degreeOfSaturation: x))
    }
}
