import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CLI's one progress display, on stderr: a redrawn bar when stderr is a terminal,
/// otherwise a plain line at most every `interval` seconds (so logs stay readable).
final class ProgressBar {
    private let label: String
    private let isTerminal: Bool
    private let interval: TimeInterval
    private var lastDraw = Date.distantPast

    /// - Parameters:
    ///   - label: what is progressing (`importing roads.geojson`).
    ///   - interval: seconds between plain lines when stderr is not a terminal.
    init(_ label: String, interval: TimeInterval = 2) {
        self.label = label
        self.isTerminal = isatty(STDERR_FILENO) == 1
        self.interval = interval
    }

    /// Shows `completed` of `total` (a count without a bar when the total is unknown).
    func update(_ completed: Int, of total: Int?, note: String = "") {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= (isTerminal ? 0.1 : interval) else { return }
        lastDraw = now
        draw(completed, total, note)
    }

    /// Draws the final state and ends the line.
    func finish(_ completed: Int, of total: Int?, note: String = "") {
        draw(completed, total, note)
        if isTerminal { write("\n") }
    }

    private func draw(_ completed: Int, _ total: Int?, _ note: String) {
        var text = label
        if let total, total > 0 {
            let fraction = min(1, Double(completed) / Double(total))
            if isTerminal {
                let width = 30
                let filled = Int(fraction * Double(width))
                text += " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
            }
            text += " \(Int(fraction * 100))% \(completed)/\(total)"
        } else {
            text += " \(completed)"
        }
        if !note.isEmpty { text += " " + note }
        write(isTerminal ? "\r\u{1B}[K" + text : text + "\n")
    }

    private func write(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
    }
}
