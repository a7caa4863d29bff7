import Foundation
import SWMMFormat

/// An observed rain-gauge record read from CSV, as a `Hyetograph`.
///
/// Two columns with a header: time, then either `mm` (depth in each interval) or `mm/h`
/// (intensity). Times are `h:mm[:ss]` or minutes from the start; the value on a row applies from
/// that row's time to the next row's time (the last row lasts as long as the one before it), as
/// a SWMM rain gage reads its series.
public enum RainGaugeRecord {
    /// Reads CSV text.
    /// - Throws: `SWMMInputError` (section `CSV`) naming the line and the column.
    public static func hyetograph(csv text: String) throws -> Hyetograph {
        var rows: [(Double, Double)] = []
        var isDepth: Bool?
        for (k, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            func fail(_ field: String, _ reason: String) -> SWMMInputError {
                SWMMInputError(line: k + 1, section: "CSV", field: field, reason: reason)
            }
            guard cells.count >= 2 else { throw fail("value", "expected two columns: time and mm or mm/h") }
            if isDepth == nil {
                let unit = cells[1].lowercased()
                if unit == "mm" { isDepth = true; continue }
                if unit == "mm/h" || unit == "mm/hr" { isDepth = false; continue }
                throw fail("value", "the header's second column must be mm or mm/h, found \(cells[1])")
            }
            let t: Double
            if cells[0].contains(":") {
                guard let h = SWMMLine.hours(clock: cells[0]) else { throw fail("time", "not a time: \(cells[0])") }
                t = h * 3600
            } else {
                guard let m = Double(cells[0]), m.isFinite else { throw fail("time", "not a time: \(cells[0])") }
                t = m * 60
            }
            guard let v = Double(cells[1]), v.isFinite, v >= 0 else { throw fail("value", "not a non-negative number: \(cells[1])") }
            if let last = rows.last, t <= last.0 { throw fail("time", "times must increase") }
            rows.append((t, v))
        }
        guard let isDepth, !rows.isEmpty else { return Hyetograph(starts: [], intensities: [], lastInterval: 0) }
        let starts = rows.map(\.0)
        let last = rows.count > 1 ? starts[rows.count - 1] - starts[rows.count - 2] : 3600
        var h = Hyetograph(starts: starts, intensities: rows.map(\.1), lastInterval: last)
        if isDepth {
            h.intensities = rows.indices.map { rows[$0].1 / (h.end($0) - starts[$0]) * 3600 }
        }
        return h
    }
}
