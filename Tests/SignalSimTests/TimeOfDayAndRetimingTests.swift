import Foundation
import Testing
@testable import SignalSim

@Suite("Time-of-day plans and adaptive re-timing")
struct TimeOfDayAndRetimingTests {
    /// A weekday of 15-minute counts: quiet night, AM peak 07:00–09:00 heavy north–south,
    /// PM peak 17:00–19:00 heavy east–west, moderate in between.
    static func weekday() -> [IntervalCount] {
        (0..<96).map { i in
            let minute = i * 15
            let (ns, ew): (Double, Double)
            switch minute {
            case ..<360: (ns, ew) = (15, 10)
            case 420..<540: (ns, ew) = (180, 70)
            case 1020..<1140: (ns, ew) = (90, 170)
            case 1320...: (ns, ew) = (20, 15)
            default: (ns, ew) = (90, 60)
            }
            return IntervalCount(start: minute, volumes: [
                "N": MovementFlows(through: ns), "S": MovementFlows(through: ns),
                "W": MovementFlows(through: ew), "E": MovementFlows(through: ew),
            ])
        }
    }

    @Test("a weekday splits into night, AM peak, off-peak, PM peak and night at the changes")
    func segmentsWeekday() throws {
        let periods = try TimeOfDayPlanning.periods(from: Self.weekday())
        #expect(periods.map(\.name) == ["night", "off-peak", "am-peak", "off-peak", "pm-peak", "off-peak", "night"])
        #expect(periods.map(\.label) == ["00:00-06:00", "06:00-07:00", "07:00-09:00", "09:00-17:00", "17:00-19:00",
                                         "19:00-22:00", "22:00-24:00"])
        let am = try #require(periods.first { $0.name == "am-peak" })
        #expect(am.label == "07:00-09:00")
        #expect(am.designFlows["N"]?.total == 720)  // 180 per 15 min = 720 veh/h
        let pm = try #require(periods.first { $0.name == "pm-peak" })
        #expect(pm.label == "17:00-19:00")
        // Periods tile the day.
        #expect(periods.first?.start == 0 && periods.last?.end == 1440)
        for (a, b) in zip(periods, periods.dropFirst()) { #expect(a.end == b.start) }
    }

    @Test("one plan per period: the AM peak favours north–south, the PM peak east–west, night runs short cycles")
    func plansPerPeriod() throws {
        let plans = try TimeOfDayPlanning.plans(for: WebsterTimingTests.crossroads(), counts: Self.weekday())
        let am = try #require(plans.first { $0.period.name == "am-peak" }).timing
        let pm = try #require(plans.first { $0.period.name == "pm-peak" }).timing
        let night = try #require(plans.first { $0.period.name == "night" }).timing
        #expect(am.plan.stages[0].green > am.plan.stages[1].green)
        #expect(pm.plan.stages[1].green > pm.plan.stages[0].green)
        #expect(night.cycle < am.cycle)
    }

    @Test("counts naming an unknown approach are refused with the field")
    func unknownApproachCounts() {
        var counts = Self.weekday()
        counts[3].volumes["Q"] = MovementFlows(through: 4)
        #expect { try TimeOfDayPlanning.plans(for: WebsterTimingTests.crossroads(), counts: counts) } throws: {
            ($0 as? SignalTimingError)?.field == "counts[3].volumes.Q"
        }
    }

    @Test("Webster re-timing moves within its limits per step and reaches Webster's plan")
    func websterRetimingConverges() throws {
        let demand = WebsterTimingTests.crossroads(ns: 700, ew: 300)
        var plan = SignalPlan(stages: [StageTiming(approaches: ["N", "S"], green: 40, amber: 3, allRed: 2),
                                       StageTiming(approaches: ["W", "E"], green: 40, amber: 3, allRed: 2)])
        let limits = RetimingLimits(maximumCycleChange: 10, maximumGreenChange: 5)
        let target = try SignalTiming.webster(demand)
        for _ in 0..<20 {
            let next = try AdaptiveRetiming.webster(current: plan, demand: demand, limits: limits).plan
            #expect(abs(next.cycle - plan.cycle) <= 10 + 1)
            for (a, b) in zip(next.stages, plan.stages) { #expect(abs(a.green - b.green) <= 5 + 1) }
            plan = next
        }
        #expect(abs(plan.cycle - target.cycle) <= 1)
        for (a, b) in zip(plan.stages, target.plan.stages) { #expect(abs(a.green - b.green) <= 1) }
    }

    @Test("saturation balancing lengthens a cycle running above target and evens out the degrees of saturation")
    func balancing() throws {
        let demand = WebsterTimingTests.crossroads(ns: 750, ew: 500)
        let tight = SignalPlan(stages: [StageTiming(approaches: ["N", "S"], green: 12, amber: 3, allRed: 2),
                                        StageTiming(approaches: ["W", "E"], green: 18, amber: 3, allRed: 2)])
        let before = try SignalTiming.evaluate(tight, for: demand)
        let after = try AdaptiveRetiming.balanceSaturation(current: tight, demand: demand)
        #expect(after.cycle > tight.cycle)
        let spread = { (t: IntersectionTiming) in t.approaches.map(\.degreeOfSaturation).max()! - t.approaches.map(\.degreeOfSaturation).min()! }
        #expect(spread(after) < spread(before))
        #expect(after.approaches.map(\.degreeOfSaturation).max()! < before.approaches.map(\.degreeOfSaturation).max()!)
    }
}

