import Foundation
import GeoCore

/// The time–space diagram (时距图) of a coordinated corridor as SVG: distance up, time across,
/// each signal's outbound and inbound greens as bars on its line, and the two green bands drawn
/// as the trajectories they are.
public enum TimeSpaceDiagram {
    /// - Parameters:
    ///   - cycles: how many cycles to draw across.
    ///   - width, height: picture size in pixels.
    public static func svg(corridor: Corridor, wave: GreenWave, cycles: Int = 2, width: Double = 960, height: Double = 540) -> String {
        let c = wave.cycle
        let positions = corridor.positions
        let t = corridor.outboundTimes, tb = corridor.inboundTimes
        let length = max(positions.last ?? 1, 1)
        let span = c * Double(max(1, cycles))
        let (left, right, top, bottom) = (70.0, 20.0, 56.0, 50.0)
        func x(_ time: Double) -> Double { left + (time / span) * (width - left - right) }
        func y(_ distance: Double) -> Double { height - bottom - (distance / length) * (height - top - bottom) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" font-family="sans-serif" font-size="12">
        <title>\(escape(corridor.id)) time–space diagram, cycle \(f(c)) s</title>
        <rect width="100%" height="100%" fill="white"/>
        <defs><clipPath id="plot"><rect x="\(f(left))" y="\(f(top - 10))" width="\(f(width - left - right))" height="\(f(height - top - bottom + 20))"/></clipPath></defs>

        """
        // Bands first, so the signal bars stay readable on top of them.
        svg += "<g clip-path=\"url(#plot)\">\n"
        // Enough cycles either side that every band crossing the picture is drawn.
        let reach = Int(((t.last ?? 0) + (tb.last ?? 0)) / c) + 1
        for k in -reach...(cycles + reach) {
            let shift = Double(k) * c
            if wave.outboundBandwidth > 0 {
                let s = wave.outboundBandStart + shift
                let forward = positions.indices.map { "\(f(x(s + t[$0]))),\(f(y(positions[$0])))" }
                let back = positions.indices.reversed().map { "\(f(x(s + wave.outboundBandwidth + t[$0]))),\(f(y(positions[$0])))" }
                svg += "<polygon class=\"band outbound\" points=\"\((forward + back).joined(separator: " "))\" fill=\"#2b8cbe\" fill-opacity=\"0.25\" stroke=\"#2b8cbe\"/>\n"
            }
            if wave.inboundBandwidth > 0 {
                let s = wave.inboundBandStart + shift
                let forward = positions.indices.map { "\(f(x(s - tb[$0] ))),\(f(y(positions[$0])))" }
                let back = positions.indices.reversed().map { "\(f(x(s + wave.inboundBandwidth - tb[$0] ))),\(f(y(positions[$0])))" }
                svg += "<polygon class=\"band inbound\" points=\"\((forward + back).joined(separator: " "))\" fill=\"#e6550d\" fill-opacity=\"0.25\" stroke=\"#e6550d\"/>\n"
            }
        }
        // Each signal: red line, outbound green just above it, inbound green just below it.
        for (i, signal) in corridor.signals.enumerated() {
            let yy = y(positions[i])
            svg += "<line x1=\"\(f(x(0)))\" y1=\"\(f(yy))\" x2=\"\(f(x(span)))\" y2=\"\(f(yy))\" stroke=\"#d7191c\" stroke-width=\"3\"/>\n"
            for k in -1...cycles {
                let shift = Double(k) * c + wave.offsets[i]
                svg += "<rect class=\"green outbound\" x=\"\(f(x(shift)))\" y=\"\(f(yy - 5))\" width=\"\(f(x(shift + signal.outboundGreen) - x(shift)))\" height=\"4\" fill=\"#1a9641\"/>\n"
                let inbound = shift + signal.inboundGreenShift
                svg += "<rect class=\"green inbound\" x=\"\(f(x(inbound)))\" y=\"\(f(yy + 1))\" width=\"\(f(x(inbound + signal.inboundGreen) - x(inbound)))\" height=\"4\" fill=\"#1a9641\" fill-opacity=\"0.7\"/>\n"
            }
        }
        svg += "</g>\n"
        for (i, signal) in corridor.signals.enumerated() {
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(positions[i]) + 4))\" text-anchor=\"end\">\(escape(signal.id))</text>"
            svg += "<text x=\"\(f(left - 6))\" y=\"\(f(y(positions[i]) + 17))\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">\(f(positions[i])) m</text>\n"
        }
        // Axes and a legend with the figures an engineer checks.
        svg += "<line x1=\"\(f(left))\" y1=\"\(f(height - bottom))\" x2=\"\(f(width - right))\" y2=\"\(f(height - bottom))\" stroke=\"black\"/>\n"
        for k in 0...cycles {
            let xx = x(Double(k) * c)
            svg += "<line x1=\"\(f(xx))\" y1=\"\(f(height - bottom))\" x2=\"\(f(xx))\" y2=\"\(f(height - bottom + 5))\" stroke=\"black\"/>"
            // The first label starts at the axis (the first signal's distance ends left of it), the last ends at it.
            let anchor = k == 0 ? "start" : k == cycles ? "end" : "middle"
            svg += "<text x=\"\(f(xx))\" y=\"\(f(height - bottom + 18))\" text-anchor=\"\(anchor)\">\(f(Double(k) * c)) s</text>\n"
        }
        svg += "<text x=\"\(f((left + width - right) / 2))\" y=\"\(f(height - 10))\" text-anchor=\"middle\">time (s)</text>\n"
        // What the colours are, under the title: each entry after the one before, by its text's width.
        let first = escape(corridor.signals.first?.id ?? ""), last = escape(corridor.signals.last?.id ?? "")
        let entries: [(swatch: String, text: String)] = [
            ("fill=\"#2b8cbe\" fill-opacity=\"0.25\" stroke=\"#2b8cbe\"", "outbound band (\(first) → \(last))"),
            ("fill=\"#e6550d\" fill-opacity=\"0.25\" stroke=\"#e6550d\"", "inbound band (\(last) → \(first))"),
            ("fill=\"#1a9641\"", "greens: outbound above, inbound below each signal's red line"),
        ]
        svg += "<g class=\"legend\" font-size=\"11\">"
        var at = left
        for (swatch, text) in entries {
            svg += "<rect x=\"\(f(at))\" y=\"28\" width=\"14\" height=\"9\" \(swatch)/><text x=\"\(f(at + 18))\" y=\"37\">\(text)</text>"
            at += 18 + Self.width(of: text, fontSize: 11) + 16
        }
        svg += "</g>\n"
        svg += "<text x=\"\(f(left))\" y=\"20\">\(escape(corridor.id)): cycle \(f(c)) s, outbound band \(f(wave.outboundBandwidth)) s, inbound band \(f(wave.inboundBandwidth)) s (k = \(String(format: "%.2f", wave.inboundWeight)))\(wave.progression == .twoWay ? "" : ", " + wave.progression.rawValue)</text>\n"
        svg += "</svg>\n"
        return svg
    }

    /// About how wide `text` is drawn at `fontSize` (px): CJK characters a full em, others a little over half.
    static func width(of text: String, fontSize: Double) -> Double {
        text.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x2E80 ? fontSize : fontSize * 0.58) }
    }

    static func escape(_ s: String) -> String {
        MarkupEscaping.escape(s)
    }
}
