import ArgumentParser
import Foundation
import ParkingSim

/// `citytwin parking …`: occupancy forecasts and their backtest, lot guidance, guided-vs-unguided simulation.
struct ParkingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parking",
        abstract: "Parking guidance: occupancy forecasts and their backtest, lot guidance, guided-vs-unguided simulation.",
        subcommands: [ParkingBacktestCommand.self])
}

/// `citytwin parking backtest --csv F --train-until D --test-from D --test-until D [--horizon 30]
/// [--predictions OUT.csv] [--json]`.
struct ParkingBacktestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Backtests the occupancy forecast on a CSV history: MAE/RMSE per horizon vs persistence and the profile baseline.",
        discussion: """
        The CSV has a header with SystemCodeNumber (or lot), Capacity, Occupancy (or occupied) and LastUpdated
        (or time, local YYYY-MM-DD HH:MM:SS), as Birmingham's. Negative readings are dropped, readings above
        --max-rate × capacity are clipped to it, repeated times keep the first: all counted. A forecast is issued
        at every reading of the test period for 15, 30, 60 and 120 minutes ahead, from readings up to that moment
        only; the model keeps learning as test days pass. The baseline is the training period's mean per
        lot × weekday × 30-min slot plus the last observed deviation from it. Dates are inclusive days.
        """)

    @Option(help: "Occupancy history as CSV.")
    var csv: String

    @Option(name: .customLong("train-until"), help: "Last day of the baseline's training period (YYYY-MM-DD, inclusive).")
    var trainUntil: String

    @Option(name: .customLong("test-from"), help: "First day scored (YYYY-MM-DD).")
    var testFrom: String

    @Option(name: .customLong("test-until"), help: "Last day scored (YYYY-MM-DD, inclusive).")
    var testUntil: String

    @Option(help: "Horizon (min) whose forecasts go to --predictions: 15, 30, 60 or 120.")
    var horizon: Int = 30

    @Option(help: "Write the forecasts at --horizon as CSV: lot,issued_at,target_at,rate.")
    var predictions: String?

    @Option(name: .customLong("max-rate"), help: "Occupancy rate readings are clipped to (the reference uses 1.2).")
    var maxRate: Double = 1.2

    @Option(help: ArgumentHelp("Ridge strength toward the prior blend.", visibility: .hidden))
    var ridge: Double = 100

    @Option(name: .customLong("warm-up-days"), help: ArgumentHelp("Days a lot is observed before it teaches the model.", visibility: .hidden))
    var warmUpDays: Int = 14

    @Flag(help: "Print one JSON document instead of a table.")
    var json = false

    func run() async throws {
        func day(_ text: String, _ option: String) throws -> Double {
            guard let t = LocalClock.parseDate(text) else { throw ValidationError("--\(option): \"\(text)\" is not a date YYYY-MM-DD") }
            return t
        }
        let trainEnd = try day(trainUntil, "train-until") + LocalClock.day
        let testStart = try day(testFrom, "test-from")
        let testEnd = try day(testUntil, "test-until") + LocalClock.day
        guard [15, 30, 60, 120].contains(horizon) else { throw ValidationError("--horizon: must be 15, 30, 60 or 120 (got \(horizon))") }
        guard maxRate.isFinite, maxRate >= 1 else { throw ValidationError("--max-rate: must be at least 1 (got \(maxRate))") }
        let text: String
        do { text = try String(contentsOfFile: csv, encoding: .utf8) } catch {
            throw CommandFailure("\(csv): cannot be read (\(error.localizedDescription))")
        }
        let feed: OccupancyFeed
        do { feed = try OccupancyFeed(csv: text) } catch let e as ParkingError { throw CommandFailure("\(csv): \(e)") }
        guard !feed.capacities.isEmpty else { throw CommandFailure("\(csv): the CSV needs a Capacity column for a backtest") }
        let cleaning = OccupancyCleaning(maximumRate: maxRate)
        let (series, cleaned) = cleaning.series(feed.observations, capacities: feed.capacities)
        let model = OccupancyForecastModel(horizons: [15, 30, 60, 120].map { Double($0) * 60 }, ridge: ridge, learningWarmUpDays: warmUpDays, maximumRate: maxRate)
        let report: ForecastBacktest.Report
        do {
            report = try ForecastBacktest(trainUntil: trainEnd, testFrom: testStart, testUntil: testEnd, model: model)
                .run(series, predictionHorizon: Double(horizon) * 60)
        } catch let e as ParkingError { throw CommandFailure(e.description) }
        guard report.horizons.contains(where: { $0.pairs > 0 }) else {
            throw CommandFailure("\(csv): no reading in \(testFrom)…\(testUntil) could be scored (is the test period inside the data?)")
        }
        if let path = predictions {
            var out = "lot,issued_at,target_at,rate\n"
            for p in report.predictions {
                out += "\(p.lot),\(LocalClock.format(p.issuedAt)),\(LocalClock.format(p.targetAt)),\(String(format: "%.4f", p.rate))\n"
            }
            do { try out.write(toFile: path, atomically: true, encoding: .utf8) } catch {
                throw CommandFailure("\(path): cannot be written (\(error.localizedDescription))")
            }
        }
        if json {
            struct Document: Encodable {
                var lots: Int
                var cleaning: OccupancyCleaning.Report
                var malformedLines: Int
                var horizons: [ForecastBacktest.HorizonScores]
                var predictionsWritten: Int
                enum CodingKeys: String, CodingKey {
                    case lots, cleaning, horizons
                    case malformedLines = "malformed_lines", predictionsWritten = "predictions_written"
                }
            }
            return try printJSONDocument(Document(lots: series.count, cleaning: cleaned, malformedLines: feed.malformedCount,
                                                  horizons: report.horizons,
                                                  predictionsWritten: predictions == nil ? 0 : report.predictions.count))
        }
        print("\(series.count) lots; readings kept \(cleaned.kept) (above capacity \(cleaned.aboveCapacity), clipped to \(maxRate) × capacity: \(cleaned.clipped)), "
              + "dropped: negative \(cleaned.rejectedNegative), repeated time \(cleaned.duplicates), unreadable lines \(feed.malformedCount)")
        print("horizon  pairs   MAE rate (veh)      RMSE rate (veh)     persistence MAE   baseline MAE      ÷baseline ÷persistence")
        for h in report.horizons {
            print(String(format: "%4.0f min %6d  %.4f (%6.1f)   %.4f (%6.1f)   %.4f (%6.1f)   %.4f (%6.1f)   %.3f     %.3f",
                         h.horizonMinutes, h.pairs, h.forecast.maeRate, h.forecast.maeVehicles, h.forecast.rmseRate,
                         h.forecast.rmseVehicles, h.persistence.maeRate, h.persistence.maeVehicles, h.baseline.maeRate,
                         h.baseline.maeVehicles, h.ratioToBaseline, h.ratioToPersistence))
        }
        if let path = predictions { print("\(report.predictions.count) forecasts at +\(horizon) min written to \(path)") }
    }
}
