/// How far a long piece of work has got: CityTwin's one progress report, from the kernels
/// (simulated seconds of a flood or drainage run) through the loaders and imports (layers,
/// features) and the process runtime (a job's percent, `JobProgress`) to the CLI's progress bar.
///
/// A report names its stage and counts what the stage has done in its own unit; `fraction` is
/// the share of the WHOLE work, which a run of several stages sets to the stage's place in it
/// (`within(_:)`), so a bar or a job's percent never runs backwards when a new stage starts.
public struct WorkProgress: Sendable, Hashable {
    /// What is being done now: `reading`, `writing`, `runoff`, `routing`, `simulating`, a layer id.
    public var stage: String
    /// How much of the stage is done, in `unit`s.
    public var completed: Double
    /// How much the stage has in all, in `unit`s; nil when unknown (a file read without a count).
    public var total: Double?
    /// What `completed` and `total` count: `features`, `layers`, `tiles`, `rows`, `s` (simulated seconds).
    public var unit: String
    /// The share of the whole work done, 0…1; nil when unknown.
    public var fraction: Double?

    /// A report of `completed` of `total` `unit`s in `stage`; `fraction` defaults to the stage's
    /// own share (`completed / total`), for work of one stage.
    public init(stage: String, completed: Double, total: Double?, unit: String, fraction: Double? = nil) {
        self.stage = stage
        self.completed = completed
        self.total = total
        self.unit = unit
        if let fraction {
            self.fraction = Swift.min(1, Swift.max(0, fraction))
        } else if let total {
            self.fraction = total > 0 ? Swift.min(1, Swift.max(0, completed / total)) : 1
        } else {
            self.fraction = nil
        }
    }

    /// A report of a stage that counts nothing, at `fraction` of the whole (`writing results`).
    public static func stage(_ name: String, fraction: Double) -> WorkProgress {
        WorkProgress(stage: name, completed: 0, total: nil, unit: "", fraction: fraction)
    }

    /// This report as part of a larger run that gives its stage `range` of the whole: the
    /// stage's own share mapped into `range`; stage and counts kept.
    public func within(_ range: ClosedRange<Double>) -> WorkProgress {
        var out = self
        out.fraction = range.lowerBound + (range.upperBound - range.lowerBound) * (fraction ?? 0)
        return out
    }

    /// The share of the whole done in percent (0…100), 0 when unknown: a job's progress.
    public var percent: Double { 100 * (fraction ?? 0) }
}
