import Foundation
import GeoCore
import SignalSim

/// A signal plan replayed in SUMO by the measured method of the signals reference (§8): the
/// exported intersection (`SumoExport`, explicit Poisson vehicles) runs once under the plan and
/// once per approach with that approach permanently green and every other approach empty (the
/// crossing axis, and the opposing traffic a protected left turn never meets), the same
/// vehicles; a vehicle's delay is its time lost under the plan minus its time lost in the
/// baseline, so acceleration, turning and dawdling losses that the signal does not cause cancel out.
/// Time lost is `timeLoss` (on the road) plus `departDelay` (waiting to enter it): a queue that
/// reaches back past the arm's start keeps vehicles out of the network, and that wait is the
/// signal's too (SUMO's `timeLoss` alone would leave it out and report the plan as better than it is).
/// Vehicles departing during the warm-up (and the cool-down after the measured window) are
/// simulated but not measured.
public struct SumoEvaluation: Sendable {
    /// Per lane group: mean baseline-corrected delay (s/veh), of it the mean wait to enter the
    /// network under the plan beyond the baseline's (`departDelay`, s/veh: the queue reached back
    /// past the arm's start; both runs insert a vehicle at the step after its departure time), and
    /// vehicles measured.
    public struct GroupDelay: Sendable, Hashable {
        public var delay: Double
        public var entryWait: Double
        public var vehicles: Int
        /// The standard error of `delay` (s/veh) from SUMO's own sampling: the measured vehicles
        /// batched by when they departed (`batchLength`: whole cycles, five minutes in a long replay),
        /// the cluster-robust error of the mean over those batches. Nil with fewer than
        /// `fewestBatches` batches holding vehicles.
        public var standardError: Double?
        /// The batches `standardError` comes from.
        public var batches: Int = 0

        /// Half the width of the 95 % interval of `delay` (s/veh): Student's t with batches − 1
        /// degrees of freedom times the standard error.
        public var confidence95: Double? {
            standardError.map { SumoEvaluation.studentT975(degreesOfFreedom: batches - 1) * $0 }
        }
    }

    /// Replications of one evaluation (the same plan and flows, a seed each) as one: per lane group
    /// the mean of the replications' means and of their waits to enter, the vehicles of all, and the
    /// standard error of that mean from the replications' own (√Σseᵢ² / n, with their batches'
    /// degrees of freedom pooled), or, when some replication has none (too few batches), from the
    /// spread of the replications' means (s/√n, n − 1 degrees of freedom). A lane group some
    /// replication did not measure is the mean of those that did.
    public static func combining(_ runs: [SumoEvaluation]) -> SumoEvaluation {
        guard let first = runs.first, runs.count > 1 else { return runs.first ?? SumoEvaluation(version: "", groups: [:], departed: 0, measured: 0) }
        var groups: [String: GroupDelay] = [:]
        for id in Set(runs.flatMap(\.groups.keys)) {
            let each = runs.compactMap { $0.groups[id] }
            let n = Double(each.count)
            let errors = each.compactMap(\.standardError)
            let mean = each.reduce(0) { $0 + $1.delay } / n
            var standardError: Double?
            var batches = each.reduce(0) { $0 + $1.batches - 1 } + 1
            if errors.count == each.count {
                standardError = errors.reduce(0) { $0 + $1 * $1 }.squareRoot() / n
            } else if each.count >= 2 {
                // Some run held too few batches for its own error: the replications themselves are
                // independent draws, so the spread of their means gives one (n − 1 degrees of freedom).
                standardError = (each.reduce(0) { $0 + ($1.delay - mean) * ($1.delay - mean) } / (n - 1) / n).squareRoot()
                batches = each.count
            }
            groups[id] = GroupDelay(delay: mean, entryWait: each.reduce(0) { $0 + $1.entryWait } / n,
                                    vehicles: each.reduce(0) { $0 + $1.vehicles }, standardError: standardError, batches: batches)
        }
        return SumoEvaluation(version: first.version, groups: groups, departed: runs.reduce(0) { $0 + $1.departed },
                              measured: runs.reduce(0) { $0 + $1.measured }, bays: first.bays)
    }

    /// How long a batch of departures runs in a long replay (s), rounded up to whole cycles. Vehicles of one cycle share
    /// its queue, and a queue that overflows carries into the next cycles, so single cycles are not
    /// independent draws. Measured against the spread of three seeds on 106 lane groups
    /// (`random_isolated.py --lefts protected`, 7,200 s): batches of one cycle understated the
    /// seeds' variance by 43 % overall (150 % at x > 0.65), five-minute batches by 26 % (111 %).
    /// With Student's t on five-minute batches, two seeds of a lane group agreed within their
    /// combined 95 % intervals 305 times in 318 (95.9 %; 39 in 42 at x > 0.65).
    static let batchSeconds = 300.0
    /// A short replay is cut into at least this many batches (shorter ones, down to a cycle): an
    /// error from two or three batches is itself too uncertain to read.
    static let batchesWanted = 10.0
    /// Lane groups with fewer batches holding vehicles get no standard error.
    public static let fewestBatches = 5

    /// The batch length (s): whole cycles, `batchSeconds` or less so that `window` (s) holds
    /// `batchesWanted` batches, and at least one cycle.
    static func batchLength(cycle: Double, window: Double) -> Double {
        let cycle = max(1, cycle)
        return cycle * max(1, (min(batchSeconds, window / batchesWanted) / cycle).rounded(.up))
    }

    /// Student's t, two-sided 95 % (the 0.975 quantile), for 1…30 degrees of freedom; beyond, the
    /// normal's 1.96 raised toward it (within 0.01 of the exact quantile).
    static func studentT975(degreesOfFreedom df: Int) -> Double {
        let table: [Double] = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                               2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
        guard df >= 1 else { return .infinity }
        return df <= table.count ? table[df - 1] : 1.96 + 2.4 / Double(df)
    }

    /// One batch of measured vehicles: the sum of their delays (s) and how many.
    struct Batch: Sendable, Hashable {
        var total: Double = 0
        var vehicles: Int = 0
    }

    /// The cluster-robust standard error of the mean delay over `batches`:
    /// √(B/(B−1) · Σ(Sᵦ − m·nᵦ)²) / N, with B non-empty batches, N vehicles, m = ΣSᵦ/N.
    static func standardError(_ batches: [Batch]) -> Double? {
        let used = batches.filter { $0.vehicles > 0 }
        guard used.count >= 2 else { return nil }
        let n = Double(used.reduce(0) { $0 + $1.vehicles })
        let mean = used.reduce(0) { $0 + $1.total } / n
        let spread = used.reduce(0) { $0 + ($1.total - mean * Double($1.vehicles)) * ($1.total - mean * Double($1.vehicles)) }
        let b = Double(used.count)
        return (b / (b - 1) * spread).squareRoot() / n
    }

    /// A finished trip's time lost (s): `timeLoss` on the road plus `departDelay`, and the latter alone.
    struct TimeLost: Sendable, Hashable {
        var lost: Double
        var entryWait: Double
    }

    public var version: String
    /// Delay by lane group id.
    public var groups: [String: GroupDelay]
    /// Vehicles that departed in the measured window, and of them those that finished both runs.
    public var departed: Int
    public var measured: Int
    /// The turn bays as SUMO built them (their lanes' length from where they open to the stop line).
    public var bays: [SumoExport.BuiltBay] = []

    /// Runs the evaluation of `export` (one signal, its plan, its routes) with SUMO's `tools`,
    /// measuring vehicles that depart in `window` (simulation seconds), batched in whole cycles of
    /// `cycle` (s) for each lane group's standard error.
    /// - Parameter progress: reports from 0 to 1 of the whole (netconvert, the plan's run, the
    ///   baselines); a throwing report (a dismissed job) kills the running SUMO and rethrows.
    /// - Throws: `SumoTools.Failure` when netconvert or SUMO fails; `SignalTimingError` when the
    ///   built network does not match the export.
    public static func run(_ export: SumoExport, tools: (sumo: URL, netconvert: URL), seed: UInt64,
                           window: Range<Double>, cycle: Double, progress: @escaping @Sendable (WorkProgress) async throws -> Void) async throws -> SumoEvaluation {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-sumo-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func write(_ text: String, _ name: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        let version = try await SumoTools.version(tools.sumo)
        try await progress(.stage("netconvert", fraction: 0.02))
        let (net, links, bays) = try await export.buildNetwork(in: directory) { _ = try await SumoTools.run(tools.netconvert, $0) }

        let vehicles = export.vehicles(seed: seed)
        let begin = Double(export.period.start * 60), end = Double(export.period.end * 60)
        let approaches = Set(vehicles.map(\.flow.approach)).sorted()
        // Shares of the whole: the plan's run counts as much as all baselines together.
        let runs = [(tag: "plan", alone: String?.none, share: 0.05...0.55)]
            + approaches.enumerated().map { i, approach in
                let width = 0.4 / Double(approaches.count)
                return (tag: "baseline-" + approach, alone: Optional(approach), share: (0.55 + width * Double(i))...(0.55 + width * Double(i + 1)))
            }
        var lost: [String: [String: TimeLost]] = [:]
        for run in runs {
            let chosen = run.alone.map { approach in vehicles.filter { $0.flow.approach == approach } } ?? vehicles
            let routes = try write(export.routes(chosen), "\(run.tag).rou.xml")
            let program = try write(run.alone.map { try export.greenProgram(netLinks: links, approaches: [$0]) } ?? export.programs(netLinks: links),
                                    "\(run.tag).add.xml")
            let trips = directory.appendingPathComponent("\(run.tag).trips.xml")
            let stage = run.tag
            let share = run.share
            _ = try await SumoTools.run(tools.sumo, [
                "-n", net.path, "-r", routes, "-a", program, "--seed", "\(seed % 2_147_483_647)",
                "--begin", "\(Int(begin))", "--tripinfo-output", trips.path, "--time-to-teleport", "-1",
                "--no-step-log", "true", "--no-warnings", "true", "--duration-log.disable", "true",
            ]) {
                let done = max(0, (SumoTools.latestArrival(in: trips) ?? begin) - begin)
                try await progress(WorkProgress(stage: "sumo \(stage)", completed: min(done, end - begin), total: end - begin, unit: "s").within(share))
            }
            lost[run.tag] = try Self.timeLost(Data(contentsOf: trips))
        }

        let plan = lost["plan"] ?? [:]
        var baseline: [String: TimeLost] = [:]
        for run in runs where run.alone != nil { baseline.merge(lost[run.tag] ?? [:]) { a, _ in a } }
        var sums: [String: (total: Double, entry: Double, n: Int)] = [:]
        var batches: [String: [Int: Batch]] = [:]
        let batchLength = Self.batchLength(cycle: cycle, window: window.upperBound - window.lowerBound)
        var departed = 0
        for v in vehicles where window.contains(v.depart) {
            departed += 1
            guard let signalled = plan[v.id], let free = baseline[v.id] else { continue }
            let delay = signalled.lost - free.lost
            sums[v.flow.laneGroup, default: (0, 0, 0)].total += delay
            sums[v.flow.laneGroup, default: (0, 0, 0)].entry += signalled.entryWait - free.entryWait
            sums[v.flow.laneGroup, default: (0, 0, 0)].n += 1
            let batch = Int((v.depart - window.lowerBound) / batchLength)
            batches[v.flow.laneGroup, default: [:]][batch, default: Batch()].total += delay
            batches[v.flow.laneGroup, default: [:]][batch, default: Batch()].vehicles += 1
        }
        try await progress(.stage("sumo done", fraction: 1))
        let groups = Dictionary(uniqueKeysWithValues: sums.map { id, s in
            let held = (batches[id] ?? [:]).sorted { $0.key < $1.key }.map(\.value).filter { $0.vehicles > 0 }
            return (id, GroupDelay(delay: s.total / Double(s.n), entryWait: s.entry / Double(s.n), vehicles: s.n,
                                   standardError: held.count >= Self.fewestBatches ? Self.standardError(held) : nil, batches: held.count))
        })
        return SumoEvaluation(version: version, groups: groups, departed: departed, measured: sums.values.reduce(0) { $0 + $1.n }, bays: bays)
    }

    /// Time lost by vehicle id of a SUMO `tripinfo` output.
    static func timeLost(_ data: Data) throws -> [String: TimeLost] {
        var loss: [String: TimeLost] = [:]
        do {
            try XMLElements.read(data, start: { name, a in
                guard name == "tripinfo", let id = a["id"], let l = a["timeLoss"].flatMap(Double.init) else { return }
                let entry = a["departDelay"].flatMap(Double.init) ?? 0
                loss[id] = TimeLost(lost: l + entry, entryWait: entry)
            })
        } catch {
            throw SignalTimingError(field: "tripinfo", "SUMO's trip output cannot be read: \(error.reason)")
        }
        return loss
    }
}
