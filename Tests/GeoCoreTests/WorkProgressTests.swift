import GeoCore
import Testing

/// The one progress report: a stage's own share, its place in a larger run, and a job's percent.
@Suite struct WorkProgressTests {
    @Test("a stage's share is completed / total, clamped; unknown without a total")
    func ownShare() {
        #expect(WorkProgress(stage: "reading", completed: 250, total: 1000, unit: "features").fraction == 0.25)
        #expect(WorkProgress(stage: "routing", completed: 3700, total: 3600, unit: "s").fraction == 1)
        #expect(WorkProgress(stage: "writing", completed: 0, total: 0, unit: "features").fraction == 1)
        #expect(WorkProgress(stage: "reading", completed: 12, total: nil, unit: "features").fraction == nil)
        #expect(WorkProgress(stage: "reading", completed: 12, total: nil, unit: "features").percent == 0)
    }

    @Test("within a larger run the stage's share maps into its range; counts and stage stay")
    func withinRun() {
        let simulating = WorkProgress(stage: "simulating", completed: 1800, total: 3600, unit: "s").within(0.05...0.9)
        #expect(abs((simulating.fraction ?? 0) - 0.475) < 1e-12)
        #expect(simulating.completed == 1800 && simulating.total == 3600 && simulating.stage == "simulating")
        #expect(abs(simulating.percent - 47.5) < 1e-9)
        #expect(WorkProgress.stage("writing results", fraction: 0.9).fraction == 0.9)
        #expect(WorkProgress.stage("done", fraction: 1.5).fraction == 1)
    }
}
