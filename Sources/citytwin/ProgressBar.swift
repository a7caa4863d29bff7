import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CLI's one progress display, on stderr, of the one progress report (`WorkProgress`): a
/// redrawn bar when stderr is a terminal, otherwise a plain line at most every `interval` seconds
/// (so logs stay readable).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let isTerminal: Bool
    private let interval: TimeInterval
    private let lock = NSLock()
    private var lastDraw: ContinuousClock.Instant?

    /// - Parameters:
    ///   - label: what is progressing (`importing roads.geojson`).
    ///   - interval: seconds between plain lines when stderr is not a terminal.
    init(_ label: String, interval: TimeInterval = 2) {
        self.label = label
        self.isTerminal = isatty(STDERR_FILENO) == 1
        self.interval = interval
    }

    /// Shows `progress`: the share of the whole as a bar and percent when known, the stage's
    /// count, and the stage.
    func update(_ progress: WorkProgress) {
        let now = ContinuousClock.now
        let due = lock.withLock {
            if let lastDraw, (now - lastDraw).seconds < (isTerminal ? 0.1 : interval) { return false }
            lastDraw = now
            return true
        }
        if due { draw(progress, note: "") }
    }

    /// This bar as the progress of a process run through `ProcessRunner`.
    var progress: JobProgress { JobProgress { [self] report in update(report) } }

    /// Draws the final state, with `note` (a summary) after it, and ends the line.
    func finish(_ progress: WorkProgress, note: String = "") {
        draw(progress, note: note)
        if isTerminal { write("\n") }
    }

    private func draw(_ p: WorkProgress, note: String) {
        var text = label
        if let fraction = p.fraction {
            if isTerminal {
                let width = 30
                let filled = Int(fraction * Double(width))
                text += " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
            }
            text += " \(Int(fraction * 100))%"
        }
        if p.total != nil || p.completed > 0 {
            text += " " + Self.count(p.completed) + (p.total.map { "/" + Self.count($0) } ?? "") + (p.unit.isEmpty ? "" : " " + p.unit)
        }
        for part in [p.stage, note] where !part.isEmpty { text += " " + part }
        write(isTerminal ? "\r\u{1B}[K" + text : text + "\n")
    }

    /// A count as a whole number (simulated seconds included: a bar has no room for fractions).
    private static func count(_ value: Double) -> String {
        value.isFinite ? String(Int(value.rounded())) : "?"
    }

    private func write(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
    }
}
