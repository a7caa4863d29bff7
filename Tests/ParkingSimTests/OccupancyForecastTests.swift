import Foundation
import Testing
@testable import ParkingSim

/// Six Birmingham car parks (Models/parking/birmingham-excerpt.csv, CC BY 4.0), found from this file's path.
enum BirminghamExcerpt {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Models/parking/birmingham-excerpt.csv")

    static func series(maximumRate: Double = 1.2) throws -> ([LotOccupancySeries], OccupancyCleaning.Report) {
        let feed = try OccupancyFeed(csv: String(contentsOf: url, encoding: .utf8))
        return OccupancyCleaning(maximumRate: maximumRate).series(feed.observations, capacities: feed.capacities)
    }

    static let horizons: [Double] = [15, 30, 60, 120].map { $0 * 60 }
}

@Suite("Occupancy forecast")
struct OccupancyForecastTests {
    @Test("local clock: parse, format, weekday")
    func localClock() throws {
        let t = try #require(LocalClock.parse("2016-10-04 07:59:42"))
        #expect(LocalClock.format(t) == "2016-10-04 07:59:42")
        #expect(LocalClock.weekday(ofDay: LocalClock.dayIndex(t)) == 1)  // a Tuesday
        #expect(LocalClock.clock(t) == 7 * 3600 + 59 * 60 + 42)
        #expect(LocalClock.parse("2016-13-04 07:59") == nil)
        #expect(LocalClock.parse("04/10/2016 07:59") == nil)
        #expect(LocalClock.parseDate("2016-12-19").map(LocalClock.format) == "2016-12-19 00:00:00")
    }

    @Test("a forecast issued at t does not change when everything after t changes")
    func causal() throws {
        let (series, _) = try BirminghamExcerpt.series()
        let cut = try #require(LocalClock.parse("2016-11-23 12:10:00"))
        // The future rewritten: every later reading moved by +0.3 (or −0.3 near full) and extra readings added.
        let perturbed = series.map { s in
            var p = s
            p.readings = s.readings.map { r in
                r.time > cut ? OccupancyReading(time: r.time, rate: r.rate > 0.8 ? r.rate - 0.3 : r.rate + 0.3) : r
            }
            p.readings += [OccupancyReading(time: cut + 60, rate: 1.0), OccupancyReading(time: cut + 86_400 * 3 + 7, rate: 0)]
            p.readings.sort { $0.time < $1.time }
            return p
        }
        func forecasts(_ s: [LotOccupancySeries]) -> [OccupancyForecast] {
            var out: [OccupancyForecast] = []
            OccupancyForecaster.walk(s, model: OccupancyForecastModel(horizons: BirminghamExcerpt.horizons, maximumRate: 1.2)) {
                out.append($0)
            }
            return out
        }
        let before = forecasts(series), after = forecasts(perturbed)
        let issuedBefore = before.filter { $0.issuedAt <= cut }
        #expect(issuedBefore.count > 10_000)
        let afterBefore = after.filter { $0.issuedAt <= cut }
        #expect(afterBefore.count == issuedBefore.count)
        let differing = zip(issuedBefore, afterBefore).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) forecasts issued before the change moved with it")
        // …and the perturbation does reach the forecasts after it (so the check above can fail).
        let later = Dictionary(before.filter { $0.issuedAt > cut }.map { ("\($0.lotIndex)-\($0.issuedAt)-\($0.horizonIndex)", $0.rate) },
                               uniquingKeysWith: { a, _ in a })
        let changed = after.filter { $0.issuedAt > cut }.filter { later["\($0.lotIndex)-\($0.issuedAt)-\($0.horizonIndex)"] != $0.rate }
        #expect(changed.count > 1000)
    }

    @Test("on Birmingham the forecast beats the profile + last-deviation baseline and persistence at every horizon")
    func backtest() throws {
        let (series, _) = try BirminghamExcerpt.series()
        let day = { (s: String) in LocalClock.parseDate(s)! }
        let model = OccupancyForecastModel(horizons: BirminghamExcerpt.horizons, maximumRate: 1.2)
        let report = try ForecastBacktest(trainUntil: day("2016-11-21"), testFrom: day("2016-11-21"), testUntil: day("2016-12-05"),
                                          model: model).run(series, predictionHorizon: 1800)
        #expect(report.horizons.count == 4)
        for h in report.horizons {
            #expect(h.pairs > 700, "\(h.horizonMinutes) min")
            #expect(h.ratioToPersistence < 0.5, "\(h.horizonMinutes) min: \(h.ratioToPersistence)")
            #expect(h.ratioToBaseline < 0.95, "\(h.horizonMinutes) min: \(h.ratioToBaseline)")
            #expect(h.forecast.maeVehicles < h.baseline.maeVehicles)
        }
        // Predictions: only the test period, at +30 min, rates within the clip.
        #expect(!report.predictions.isEmpty)
        #expect(report.predictions.allSatisfy { $0.issuedAt >= day("2016-11-21") && $0.issuedAt < day("2016-12-05")
            && $0.targetAt - $0.issuedAt == 1800 && (0...1.2).contains($0.rate) })
    }

    @Test("a test period before the training end is refused, naming the field")
    func badSplit() throws {
        let (series, _) = try BirminghamExcerpt.series()
        let model = OccupancyForecastModel(horizons: BirminghamExcerpt.horizons)
        #expect(throws: ParkingError.self) {
            try ForecastBacktest(trainUntil: 2_000, testFrom: 1_000, testUntil: 3_000, model: model).run(series, predictionHorizon: nil)
        }
        #expect(throws: ParkingError(field: "horizon", "must be one of the scored horizons ([15, 30, 60, 120] min)")) {
            try ForecastBacktest(trainUntil: 1_000, testFrom: 1_000, testUntil: 3_000, model: model).run(series, predictionHorizon: 45 * 60)
        }
    }
}

@Suite("Occupancy cleaning")
struct OccupancyCleaningTests {
    @Test("negative readings are dropped, readings above the clip clipped, repeated times and unknown lots counted")
    func counts() throws {
        let t = 1_000_000.0
        let obs = [
            OccupancyObservation(lot: "A", time: t, occupied: 50),
            OccupancyObservation(lot: "A", time: t, occupied: 60),          // same time: dropped
            OccupancyObservation(lot: "A", time: t + 600, occupied: 130),   // above capacity: clipped to 100
            OccupancyObservation(lot: "A", time: t + 1200, occupied: -3),   // negative: dropped
            OccupancyObservation(lot: "B", time: t, occupied: 10),          // unknown lot
        ]
        let (series, report) = OccupancyCleaning(maximumRate: 1.0).series(obs, capacities: ["A": 100])
        #expect(series.count == 1)
        #expect(series[0].readings == [OccupancyReading(time: t, rate: 0.5), OccupancyReading(time: t + 600, rate: 1.0)])
        #expect(report.accepted == 1 && report.clipped == 1 && report.aboveCapacity == 1)
        #expect(report.rejectedNegative == 1 && report.duplicates == 1 && report.rejectedUnknownLot == 1)
        #expect(report.unknownLots == ["B"])
    }

    @Test("the Birmingham excerpt's faults are counted, not kept")
    func birmingham() throws {
        let (series, report) = try BirminghamExcerpt.series(maximumRate: 1.0)
        #expect(series.count == 6)
        #expect(report.rejectedNegative == 12)          // NIA North
        #expect(report.aboveCapacity == report.clipped)
        #expect(report.clipped > 200)                   // BHMBCCTHL01
        #expect(series.allSatisfy { $0.readings.allSatisfy { (0...1).contains($0.rate) } })
    }

    @Test("a CSV without an occupancy column is refused naming it; a bad line is counted")
    func feed() throws {
        #expect(throws: ParkingError.self) { try OccupancyFeed(csv: "lot,time\nA,2016-10-04 08:00:00\n") }
        let feed = try OccupancyFeed(csv: "lot,capacity,occupied,time\nA,100,5,2016-10-04 08:00:00\nA,100,x,2016-10-04 08:30:00\n")
        #expect(feed.observations.count == 1)
        #expect(feed.malformedCount == 1)
        #expect(feed.malformed.first?.hasPrefix("line 3:") == true)
    }

    @Test("the feed is RFC 4180 CSV: a BOM, CR LF, quoted lot ids with commas and doubled quotes; an unclosed quote is refused")
    func feedIsRFC4180() throws {
        let text = "\u{FEFF}lot,capacity,occupied,time\r\n\"P1, north\",100,5,2016-10-04 08:00:00\r\n\"P\"\"2\",50,7,2016-10-04 08:30:00\r\n\r\n"
        let feed = try OccupancyFeed(csv: text)
        #expect(feed.malformedCount == 0, "\(feed.malformed)")
        #expect(feed.observations.map(\.lot) == ["P1, north", "P\"2"])
        #expect(feed.capacities == ["P1, north": 100, "P\"2": 50])
        let error = #expect(throws: ParkingError.self) { try OccupancyFeed(csv: "lot,capacity,occupied,time\n\"P1,100,5,2016-10-04 08:00:00\n") }
        #expect(error?.field == "csv")
    }
}
