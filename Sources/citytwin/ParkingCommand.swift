import ArgumentParser
import Emergency
import Foundation
import GeoCore
import Parking
import ParkingSim
import ProcessRuntime
import Scenarios
import Signals
import TwinStore

/// `citytwin parking …`: occupancy forecasts and their backtest, lot guidance, guided-vs-unguided simulation.
struct ParkingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parking",
        abstract: "Parking guidance: occupancy forecasts and their backtest, lot guidance, guided-vs-unguided simulation.",
        subcommands: [ParkingBacktestCommand.self, ParkingForecastCommand.self, ParkingImportCommand.self, ParkingGuideCommand.self,
                      ParkingSimulateCommand.self, ParkingCoverageCommand.self, ParkingExportSumoCommand.self])
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
        do { feed = try OccupancyFeed(csv: text) } catch let e as ParkingError { throw CommandFailure(presenting: e, in: csv) }
        guard !feed.capacities.isEmpty else { throw CommandFailure("\(csv): the CSV needs a Capacity column for a backtest") }
        let cleaning = OccupancyCleaning(maximumRate: maxRate)
        let (series, cleaned) = cleaning.series(feed.observations, capacities: feed.capacities)
        let model = OccupancyForecastModel(horizons: [15, 30, 60, 120].map { Double($0) * 60 }, ridge: ridge, learningWarmUpDays: warmUpDays, maximumRate: maxRate)
        let report: ForecastBacktest.Report
        report = try ForecastBacktest(trainUntil: trainEnd, testFrom: testStart, testUntil: testEnd, model: model)
            .run(series, predictionHorizon: Double(horizon) * 60)
        guard report.horizons.contains(where: { $0.pairs > 0 }) else {
            throw CommandFailure("\(csv): no reading in \(testFrom)…\(testUntil) could be scored (is the test period inside the data?)")
        }
        if let path = predictions {
            var out = "lot,issued_at,target_at,rate\n"
            for p in report.predictions {
                // The lot id comes from the CSV read: a text field (`CSVField`), the rate a number.
                out += CSVField.record([p.lot, LocalClock.format(p.issuedAt), LocalClock.format(p.targetAt), String(format: "%.4f", p.rate)],
                                       kinds: [.text, .text, .text, .number]) + "\n"
            }
            try writeOutputFile(out, to: path)
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

/// `citytwin parking guide --from LON,LAT --to LON,LAT [--occupancy F.json] [--drivers N] [--json]`:
/// the `parking-guidance` process.
struct ParkingGuideCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guide",
        abstract: "Ranks the district's lots for a trip by generalised cost (drive, walk, expected search at arrival, price).",
        discussion: """
        --occupancy names a JSON file of readings [{"lot": "PK-001", "occupied": 120, "age_s": 60}]; a lot without a
        reading fresher than --freshness seconds is ranked as near full and marked unknown, never shown as free.
        """)

    @Option(help: "Origin as LON,LAT (CGCS2000 degrees).")
    var from: String
    @Option(help: "Destination as LON,LAT (CGCS2000 degrees).")
    var to: String
    @Option(help: "Direction of travel at the origin (degrees clockwise from north, as a screen's heading_deg); default: either way.")
    var heading: Double?
    @Option(help: "Occupancy readings as JSON: [{lot, occupied, age_s}].")
    var occupancy: String?
    @Option(help: "Seconds after which a reading shows as unknown.")
    var freshness: Double = ParkingGuidanceProcess.defaultFreshness
    @Option(help: "Local time YYYY-MM-DDTHH:MM:SS of departure, judging the store's readings (default: now; older than --freshness = unknown).")
    var at: String?
    @Option(help: "Drivers guided at once (capacity feedback spreads them over the lots).")
    var drivers: Int = 1
    @Option(help: "How far in metres a point may lie from the nearest road (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @Flag(help: "Print the process's JSON result instead of a table.")
    var json = false
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        var inputs: [String: JSONValue] = [
            "from": try lonLatInput(from, option: "--from"), "to": try lonLatInput(to, option: "--to"),
            "drivers": .integer(Int64(drivers)), "freshnessSeconds": .number(freshness), "maximumSnapMetres": .number(maxSnapMetres),
        ]
        if let heading { inputs["heading"] = .number(heading) }
        if let at { inputs["at"] = .string(at) }
        if let path = occupancy {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                throw CommandFailure("\(path): cannot be read (\(error.localizedDescription))")
            }
            do { inputs["occupancy"] = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
                throw CommandFailure("\(path): not JSON (\(error.localizedDescription))")
            }
        }
        let result = try await ProcessRunner(store: storeOption.path).run("parking-guidance", inputs)
        if json { return try printJSONDocument(result) }
        if let r = result["readings"] {
            print("readings at \(r["at"]?.stringValue ?? "?"): a lot whose latest reading was observed before \(r["fresh_after"]?.stringValue ?? "?") is unknown")
        }
        print("rank lot     cost s  drive s  walk m  search s  price s  free      share")
        for l in result["lots"]?.arrayValue ?? [] {
            let o = l.objectValue ?? [:]
            let free = o["availability_unknown"]?.boolValue == true ? "unknown" : (o["predicted_full"]?.boolValue == true ? "FULL" : String(format: "%.0f", o["predicted_free"]?.doubleValue ?? 0))
            print(String(format: "%4d %@ %7.0f %8.0f %7.0f %9.0f %8.0f  %@ %9.3f", o["rank"]?.integerValue ?? 0, o["lot"]?.stringValue ?? "",
                         o["cost_s"]?.doubleValue ?? 0, o["drive_s"]?.doubleValue ?? 0, o["walk_m"]?.doubleValue ?? 0,
                         o["search_s"]?.doubleValue ?? 0, o["price_s"]?.doubleValue ?? 0, free.padding(toLength: 8, withPad: " ", startingAt: 0),
                         o["share"]?.doubleValue ?? 0))
        }
        if let c = result["coverage"]?.objectValue {
            print(String(format: "smart-parking coverage of public berths: %.1f %% (%lld of %lld; target 70 %%)", (c["share"]?.doubleValue ?? 0) * 100,
                         c["detected_berths"]?.integerValue ?? 0, c["public_berths"]?.integerValue ?? 0))
        }
    }
}

/// `citytwin parking simulate [--drivers N] [--seed S] [--json]`: the `parking-simulation` process.
struct ParkingSimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "A day of drivers on the district's road graph, unguided and guided, side by side.")

    @Option(help: "Trips in the day (default: sized so the lots peak near 90 % occupancy).")
    var drivers: Int?
    @Option(help: "Seed of the demand.")
    var seed: Int = 17
    @Option(name: .customLong("capacity-scale"), help: "Scale every lot's berths (and so the default demand) by this factor.")
    var capacityScale: Double = 1
    @Flag(help: "Print the process's JSON result instead of a table.")
    var json = false
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        var inputs: [String: JSONValue] = ["seed": .integer(Int64(seed)), "capacityScale": .number(capacityScale)]
        if let n = drivers { inputs["drivers"] = .integer(Int64(n)) }
        let result = try await ProcessRunner(store: storeOption.path).run("parking-simulation", inputs)
        if json { return try printJSONDocument(result) }
        let u = result["unguided"]?.objectValue ?? [:], g = result["guided"]?.objectValue ?? [:]
        let rows: [(String, String, String)] = [
            ("drivers", "drivers", "%.0f"), ("parked", "parked", "%.0f"), ("rejected arrivals", "rejected", "%.0f"),
            ("mean search time (s)", "mean_search_s", "%.1f"), ("  of which driving (s)", "mean_cruise_s", "%.1f"), ("extra vehicle-km", "extra_vehicle_km", "%.1f"),
            ("mean walk (m)", "mean_walk_m", "%.0f"), ("full lots met", "full_lot_arrivals", "%.0f"),
            ("occupancy spread (sd)", "occupancy_spread", "%.3f"), ("peak occupancy", "peak_occupancy", "%.3f"),
            ("lot time at >= 90 %", "share_lot_time_above_90", "%.3f"),
        ]
        print("                          unguided      guided")
        for (label, key, format) in rows {
            let a = String(format: format, u[key]?.doubleValue ?? 0), b = String(format: format, g[key]?.doubleValue ?? 0)
            print(label.padding(toLength: 24, withPad: " ", startingAt: 0) + String(repeating: " ", count: max(0, 10 - a.count)) + a
                  + String(repeating: " ", count: max(0, 12 - b.count)) + b)
        }
        if let c = result["change"]?.objectValue {
            print(String(format: "guidance changes mean search time by %+.1f %% and extra vehicle-km by %+.1f %%",
                         (c["search_time"]?.doubleValue ?? 0) * 100, (c["extra_vehicle_km"]?.doubleValue ?? 0) * 100))
        }
    }
}

/// `citytwin parking forecast [--at T] [--json]`: the `parking-forecast` process (the availability view).
struct ParkingForecastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecast",
        abstract: "Each lot's free spaces, trend and freshness now and predicted at +15/+30/+60/+120 min.")

    @Option(help: "Local time YYYY-MM-DDTHH:MM:SS (default: now; a reading older than --freshness is unknown).")
    var at: String?
    @Option(help: "Seconds after which a reading shows as unknown.")
    var freshness: Double = ParkingAvailability.defaultFreshness
    @Flag(help: "Print the process's JSON result instead of a table.")
    var json = false
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        var inputs: [String: JSONValue] = ["freshnessSeconds": .number(freshness)]
        if let at { inputs["at"] = .string(at) }
        let result = try await ProcessRunner(store: storeOption.path).run("parking-forecast", inputs)
        if json { return try printJSONDocument(result) }
        print("availability at \(result["at"]?.stringValue ?? "?") (a lot whose latest reading was observed before \(result["fresh_after"]?.stringValue ?? "?") is unknown)")
        print("lot     state         free  occupancy  trend/h  +15  +30  +60 +120")
        for l in result["lots"]?.arrayValue ?? [] {
            func v(_ k: String) -> String {
                l[k]?.stringValue ?? l[k]?.integerValue.map { String($0) } ?? (l[k]?.doubleValue.map { String(format: "%.2f", $0) } ?? "--")
            }
            print("\(l["lot"]?.stringValue ?? "") \(v("state").padding(toLength: 13, withPad: " ", startingAt: 0)) "
                  + [v("free"), v("occupancy"), v("trend_per_hour"), v("predicted_free_15"), v("predicted_free_30"), v("predicted_free_60"),
                     v("predicted_free_120")].map { String(repeating: " ", count: max(0, 5 - $0.count)) + $0 }.joined(separator: " "))
        }
    }
}

/// `citytwin parking import FILE`: occupancy readings in bulk (CSV or JSON) into `parking_occupancy`.
struct ParkingImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Imports occupancy readings (CSV with lot, occupied, time columns, or JSON [{lot, occupied, time}]).",
        discussion: "Negative counts and unknown lots are rejected, counts above capacity clipped to it; all counted and reported.")

    @Argument(help: "The readings file.")
    var file: String
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw CommandFailure("\(file): cannot be read (\(error.localizedDescription))")
        }
        let store = try await StoreLocation(storeOption.path).openExisting()
        let report: StoreParkingOccupancy.ImportReport
        do { report = try await StoreParkingOccupancy.importReadings(text, into: store, by: .admin) } catch let e as ScenarioError {
            throw CommandFailure(presenting: e, in: file)
        }
        try printJSONDocument(report)
    }
}

/// `citytwin parking coverage [--json]`: the 70 % indicator (`/parking/coverage`), whole inventory and per division.
struct ParkingCoverageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Smart-parking coverage: the share of public berths with live detection (Wuhan indicator 29, target 70 %), per administrative division.")

    @Flag(help: "Print /parking/coverage's JSON instead of a table.")
    var json = false
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        let store = try await StoreLocation(storeOption.path).openExisting()
        let doc = try await SmartParkingCoverage.json(try await StoreParkingLot.load(from: store, by: .admin), from: store, by: .admin)
        if json { return try printJSONDocument(doc) }
        func row(_ label: String, _ o: JSONValue) {
            let share = (o["share"]?.doubleValue ?? 0) * 100
            print(label.padding(toLength: 34, withPad: " ", startingAt: 0)
                  + String(format: "%6lld %8lld %7.1f %%  %@", o["public_berths"]?.integerValue ?? 0, o["detected_berths"]?.integerValue ?? 0, share,
                           o["meets_target"]?.boolValue == true ? "meets 70 %" : "below 70 %"))
        }
        print("division                          public detected   share")
        row("all lots", doc)
        for d in doc["divisions"]?.arrayValue ?? [] {
            row("\(d["level"]?.stringValue ?? "") \(d["name"]?.stringValue ?? "") \(d["code"]?.stringValue ?? "")", d)
        }
    }
}

/// `citytwin parking export-sumo --out DIR [--drivers N] [--seed S]`: the guided-vs-unguided day as SUMO scenarios.
struct ParkingExportSumoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-sumo",
        abstract: "Writes the guided-vs-unguided parking day (the trips of `parking simulate`) as two SUMO scenarios on the district's roads.",
        discussion: """
        Files in --out: nodes.nod.xml, edges.edg.xml (SUMO plain XML of the roads layer), network.net.xml (netconvert),
        routes.rou.xml (each trip to the lot nearest its destination, with a parking stop for its stay),
        unguided.add.xml and guided.add.xml (parkingArea per lot; a rerouter with parkingAreaReroute for every lot on each
        parking and origin edge, visible="false" or "true"), unguided.sumocfg and guided.sumocfg. Run each with
        `sumo -c DIR/guided.sumocfg --tripinfo-output g.xml --stop-output gs.xml`. netconvert is looked up on PATH,
        in $SUMO_HOME/bin, then in .venv/bin.
        """)

    @Option(help: "The directory to write (created if missing).")
    var out: String
    @Option(help: "Trips in the day (default: sized so the lots peak near 90 % occupancy, as parking simulate).")
    var drivers: Int?
    @Option(help: "Seed of the demand (the same as parking simulate's for the same trips).")
    var seed: Int = 17
    @Option(name: .customLong("capacity-scale"), help: "Scale every lot's berths (and so the default demand), as parking simulate --capacity-scale.")
    var capacityScale: Double = 1
    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        if let n = drivers, n < 1 { throw ValidationError("--drivers: must be at least 1 (got \(n))") }
        guard seed >= 0 else { throw ValidationError("--seed: must not be negative") }
        let store = try await StoreLocation(storeOption.path).openExisting()
        let parking = try await DistrictParking.load(from: store, by: .admin)
        let scenario = try parking.scenario(destinations: try await ParkingSimulationProcess.destinations(from: store, by: .admin),
                                            drivers: drivers, seed: UInt64(seed), capacityScale: capacityScale)
        var roads: [Feature] = []
        for try await f in store.stream(layer: "roads", FeatureQuery(limit: 5000), by: .admin) { roads.append(f) }
        let export = try ParkingSumoExport(scenario: scenario, roads: roads, metric: parking.roads.metric)
        let output = try OutputDirectory(out)
        let directory = output.url
        let write = output.write
        try write(export.nodesXML(), "nodes.nod.xml")
        try write(export.edgesXML(), "edges.edg.xml")
        try write(export.routesXML(), "routes.rou.xml")
        for (name, visible) in [("unguided", false), ("guided", true)] {
            try write(export.additionalXML(visible: visible), "\(name).add.xml")
            try write(export.configXML(additional: "\(name).add.xml"), "\(name).sumocfg")
        }
        guard let netconvert = SignalExportSumoCommand.tool("netconvert") else {
            throw CommandFailure("netconvert not found on PATH or in .venv/bin (install eclipse-sumo: Scripts/setup.sh); the plain XML files are in \(out)")
        }
        try await SignalExportSumoCommand.netconvert(netconvert, ["--node-files", directory.appendingPathComponent("nodes.nod.xml").path,
                                                            "--edge-files", directory.appendingPathComponent("edges.edg.xml").path,
                                                            "--no-internal-links", "true", "-o", directory.appendingPathComponent("network.net.xml").path])
        print("SUMO parking scenarios (\(export.trips.count) trips, \(export.parkingAreas.count) parking areas, \(export.edges.count) edges) in \(out): "
              + "sumo -c \(out)/unguided.sumocfg, sumo -c \(out)/guided.sumocfg")
    }
}
