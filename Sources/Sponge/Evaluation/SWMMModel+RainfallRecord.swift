import FloodSim
import Foundation
import SWMMFormat

extension SWMMModel {
    /// The time series every rain gage reads in a run over a rainfall record.
    static let recordSeriesName = "CITYTWIN_RAINFALL_RECORD"

    /// This model over `record`: every rain gage reads the record's daily depths (VOLUME, a 24 h
    /// interval, converted to the model's depth units), the simulation runs from the record's first
    /// day 00:00 to the day after its last, and the reporting starts with it. A day the record
    /// does not list, and a day of snow, gets no rain (snowmelt is not simulated).
    /// - Parameter withoutLID: remove the `[LID_USAGE]` lines (the run "without LID").
    func overRecord(_ record: DailyRainfall, withoutLID: Bool) -> SWMMModel {
        var m = self
        if withoutLID { m.rawSections.removeAll { $0.name == "LID_USAGE" } }
        guard let first = record.days.first?.day, let last = record.days.last?.day else { return m }
        let perDepthUnit = 1 / (m.units.rainDepth * 1000)   // model depth units per mm
        let points = record.days.map { day in
            SWMMTimeseries.Point(hours: Double(day.day - first) * 24, value: day.snow ? 0 : day.millimetres * perDepthUnit)
        }
        m.timeseries.removeAll { $0.name == Self.recordSeriesName }
        m.timeseries.append(SWMMTimeseries(name: Self.recordSeriesName, points: points))
        m.rainGages = m.rainGages.map {
            SWMMRainGage(name: $0.name, format: .volume, intervalHours: 24, snowCatchFactor: 1, source: .timeseries(Self.recordSeriesName))
        }
        func swmmDate(_ day: Int) -> String {
            let text = DailyRainfall.dateText(day)   // YYYY-MM-DD
            let p = text.split(separator: "-")
            return "\(p[1])/\(p[2])/\(p[0])"
        }
        let settings = ["START_DATE": swmmDate(first), "START_TIME": "00:00:00", "END_DATE": swmmDate(last + 1), "END_TIME": "00:00:00",
                        "REPORT_START_DATE": swmmDate(first), "REPORT_START_TIME": "00:00:00"]
        m.options.removeAll { settings[$0.key.uppercased()] != nil }
        for key in settings.keys.sorted() { m.options.append(SWMMOption(key: key, value: settings[key]!)) }
        return m
    }

    /// Names of the subcatchments with a `[LID_USAGE]` line, in file order, each once.
    var subcatchmentsWithLID: [String] {
        var seen = Set<String>(), names: [String] = []
        for s in rawSections where s.name == "LID_USAGE" {
            for line in s.lines { if let n = line.first, seen.insert(n).inserted { names.append(n) } }
        }
        return names
    }
}
