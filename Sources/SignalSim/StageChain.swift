/// The stage chain (相位阶段链) as a cycle: which stages each approach has green in, and in what
/// order. The chain repeats, so its last stage runs on into its first: an approach may keep its
/// green through the change between consecutive stages (搭接), including the change from the last
/// stage back to the first (a lagging left whose through runs on into the next cycle's first stage).
/// Every consumer of a plan's stages (the timing, the corridor's green windows, the SUMO programme)
/// reads an approach's green through this one definition.
public enum StageChain {
    /// The stages `approach` has green in, in running order from the stage its green starts in:
    /// one stage, or consecutive ones, which may run on past the last stage into the first. An
    /// approach in every stage starts in the first (in a chain of two stages or more it never stops:
    /// `alwaysGreen`). Empty when it is in no stage; `nil` when its stages are not consecutive (it
    /// comes back after a stage without it).
    public static func run(of approach: String, in stages: [[String]]) -> [Int]? {
        let member = stages.map { $0.contains(approach) }
        return run(member)
    }

    /// `run(of:in:)` for the stages `member` marks.
    static func run(_ member: [Bool]) -> [Int]? {
        let n = member.count
        let count = member.filter { $0 }.count
        if count == 0 { return [] }
        if count == n { return Array(0..<n) }
        let starts = greenStarts(member)
        guard starts.count == 1, let start = starts.first else { return nil }
        return (0..<count).map { (start + $0) % n }
    }

    /// Whether `approach` is green in every stage of a chain of two or more (常绿, e.g. the far side's
    /// through traffic at a T junction): nothing that runs in any stage crosses it, so no stage
    /// change stops it, at the chain's end neither. A one-stage chain still changes (its amber and
    /// all-red) and stops what runs in it.
    public static func alwaysGreen(_ approach: String, in stages: [[String]]) -> Bool {
        alwaysGreen(stages.map { $0.contains(approach) })
    }

    /// `alwaysGreen(_:in:)` for the stages `member` marks.
    static func alwaysGreen(_ member: [Bool]) -> Bool { member.count >= 2 && !member.contains(false) }

    /// The stage at which an approach whose stages are not consecutive comes back (its second green
    /// start in chain order): the stage an error names. `nil` when its stages are consecutive.
    static func comeback(_ member: [Bool]) -> Int? {
        let starts = greenStarts(member)
        return starts.count > 1 ? starts[1] : nil
    }

    /// The stages `member` marks that the stage before them (the last before the first) does not.
    static func greenStarts(_ member: [Bool]) -> [Int] {
        member.indices.filter { member[$0] && !member[($0 + member.count - 1) % member.count] }
    }

    /// Whether `approach` keeps its green through the change after stage `stage` (its amber and
    /// all-red) into the next stage of the chain.
    public static func keepsGreen(_ approach: String, after stage: Int, in stages: [[String]]) -> Bool {
        if alwaysGreen(approach, in: stages) { return stages.indices.contains(stage) }
        guard let run = run(of: approach, in: stages), let k = run.firstIndex(of: stage) else { return false }
        return k < run.count - 1
    }
}

extension SignalPlan {
    /// Where `approach`'s displayed green starts (s after the first stage's green starts, within the
    /// cycle) and how long it lasts: through the changes between its stages when it runs in
    /// consecutive ones (搭接), past the cycle's end when its green runs on into the first stage;
    /// the whole cycle for an approach green in every stage (`StageChain.alwaysGreen`).
    /// (0, 0) for an approach in no stage.
    public func greenWindow(of approach: String) -> (start: Double, green: Double) {
        if StageChain.alwaysGreen(approach, in: stages.map(\.approaches)) { return (0, cycle) }
        guard let run = StageChain.run(of: approach, in: stages.map(\.approaches)), let first = run.first, let last = run.last
        else { return (0, 0) }
        let start = stages[..<first].reduce(0) { $0 + $1.duration }
        let through = run.dropLast().reduce(0) { $0 + stages[$1].duration }
        return (start, through + stages[last].green)
    }
}
