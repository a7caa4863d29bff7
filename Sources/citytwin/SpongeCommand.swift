import ArgumentParser
import Foundation
import GeoCore
import Sponge
import SWMMFormat
import TwinStore

/// `citytwin sponge …`: sponge-city (海绵城市) measures by GB/T 51345-2018 from a rainfall record.
struct SpongeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sponge",
        abstract: "Sponge-city measures by GB/T 51345-2018: design rainfall from a daily record, capture rates of a SWMM model.",
        subcommands: [SpongeDesignRainfallCommand.self, SpongeEvaluateCommand.self])
}

/// The options that read a rainfall record, shared by the sponge commands: a CSV file, or a rain
/// gauge's SensorThings Datastream in a store over a window.
struct RainfallRecordOptions: ParsableArguments {
    @Option(name: .customLong("daily-rainfall"), help: "CSV of rainfall: a header, then one row per day (or per reading, summed into days).")
    var file: String?

    @Option(name: .customLong("date-column"), help: "The column of the day (YYYY-MM-DD) or the reading's time (RFC 3339).")
    var dateColumn = DailyRainfall.Columns.defaultDate

    @Option(name: .customLong("depth-column"), help: "The column of the depth that fell, mm.")
    var depthColumn = DailyRainfall.Columns.defaultDepth

    @Option(name: .customLong("snow-column"), help: "A column whose cell marks snow (snow, true, yes, 1, 雪); snow days are left out.")
    var snowColumn: String?

    @Option(help: "Instead of a CSV: a rain gauge's SensorThings Datastream @iot.id (unit mm or mm/h) in --store.")
    var datastream: Int64?

    @Option(help: "With --datastream: the window's start, RFC 3339 date-time or YYYY-MM-DD (the city's day).")
    var from: String?

    @Option(help: "With --datastream: the window's end (exclusive), RFC 3339 date-time or YYYY-MM-DD.")
    var to: String?

    @OptionGroup var storeOption: StoreOption

    func validate() throws {
        guard (file == nil) != (datastream == nil) else { throw ValidationError("give one rainfall record: --daily-rainfall FILE.csv or --datastream ID") }
        if datastream != nil, from == nil || to == nil { throw ValidationError("--datastream needs --from and --to") }
    }

    /// What the record is called in messages.
    var source: String { file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "datastream \(datastream ?? 0)" }

    /// The record: the CSV read by the one CSV reader, or the Datastream's readings summed into days.
    func record() async throws -> DailyRainfall {
        let zone = try CityTime.zone()
        if let id = datastream {
            func instant(_ text: String, _ option: String) throws -> Int64 {
                if let t = SensingTime.instant(text) { return t }
                if let (y, m, d) = RFC3339.fullDate(Substring(text)) {
                    let midnight = Double(CivilCalendar.days(year: y, month: m, day: d) * 86_400)
                    let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight))
                    return Int64(midnight - Double(offset)) * 1_000_000
                }
                throw ValidationError("--\(option) must be an RFC 3339 date-time or YYYY-MM-DD, got '\(text)'")
            }
            let start = try instant(from ?? "", "from"), end = try instant(to ?? "", "to")
            let store = try await StoreLocation(storeOption.path).openExisting()
            guard let sensing = store as? any SensingStore else { throw CommandFailure("this store keeps no SensorThings data") }
            do { return try await DailyRainfall(datastream: id, from: start, to: end, sensing: sensing, zone: zone) } catch {
                throw CommandFailure(presenting: error)
            }
        }
        let path = file ?? ""
        let text: String
        do { text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8) } catch {
            throw CommandFailure("\(path): cannot be read as UTF-8 text (\(error.localizedDescription))")
        }
        do {
            return try DailyRainfall(csv: text, columns: .init(date: dateColumn, depth: depthColumn, snow: snowColumn), zone: zone, source: source)
        } catch {
            throw CommandFailure(presenting: error)
        }
    }
}

/// `citytwin sponge design-rainfall --daily-rainfall FILE.csv --rate 0.75 [--json]`.
struct SpongeDesignRainfallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "design-rainfall",
        abstract: "The design rainfall depth for an annual runoff volume capture rate, and the rate–depth curve (GB/T 51345-2018).",
        discussion: """
            From a daily rainfall record (30 years or more by the standard; a shorter record is analysed and said so):
            days of at most 2 mm and days of snow are left out, and a depth d captures Σmin(Pᵢ, d)/ΣPᵢ of the rest.
            """)

    @OptionGroup var rainfall: RainfallRecordOptions

    @Option(help: "The target annual runoff volume capture rate, 0 < rate < 1 (e.g. 0.75 for 75 %).")
    var rate: Double

    @Flag(help: "Print one JSON document.")
    var json = false

    func validate() throws {
        guard rate > 0, rate < 1 else { throw ValidationError("--rate must be between 0 and 1 (exclusive), got \(rate)") }
    }

    func run() async throws {
        let record = try await rainfall.record()
        let answer: DesignRainfall
        do { answer = try DesignRainfall(record: record, rate: rate, source: rainfall.source) } catch {
            throw CommandFailure(presenting: error)
        }
        if json {
            print(try JSONOutput.text(answer, .pretty))
            return
        }
        let r = answer.record
        print("record: \(r.firstDate) to \(r.lastDate), \(r.years) years, \(r.recordedDays) days (\(r.missingDays) missing)")
        print("counted: \(answer.countedDays) days above 2 mm, \(String(format: "%.1f", answer.countedMillimetres)) mm; left out: \(answer.dropped.dryDays) dry, \(answer.dropped.lightDays) of at most 2 mm, \(answer.dropped.snowDays) of snow")
        print(String(format: "design rainfall for %.0f %%: %.1f mm", rate * 100, answer.designRainfallMillimetres))
        for p in answer.curve { print(String(format: "  %.0f %%  %6.1f mm", p.rate * 100, p.depthMillimetres)) }
        for w in answer.warnings { print("note: \(w)") }
    }
}

/// `citytwin sponge evaluate --model MODEL.inp --daily-rainfall FILE.csv [--json]`.
struct SpongeEvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "The annual runoff volume capture rate of a SWMM model's subcatchments, drainage zones and whole, by continuous runoff simulation over a rainfall record.",
        discussion: """
            Every rain gage of the model reads the record (a 24 h VOLUME series in the model's units); SWMM's runoff is
            simulated over it with the model's evaporation and infiltration between events; pipes are not routed.
            A drainage zone is a subcatchment's [TAGS] Subcatch tag, else the outfall its runoff reaches.
            A model with [LID_USAGE] is run twice, with and without its LID controls (SWMM 5.2's LID simulation): the main
            figures are without LID unless --with-lid is given, the other run is "lidComparison", and each LID's water
            balance over the record (SWMM's LID Performance Summary, mm) is "lidPerformance".
            """)

    @Option(help: "The SWMM 5 input file (.inp).")
    var model: String

    @OptionGroup var rainfall: RainfallRecordOptions

    @Flag(name: .customLong("with-lid"), help: "Make the run with the model's LID controls the main figures (the run without them is the comparison).")
    var withLID = false

    @Flag(help: "Print one JSON document.")
    var json = false

    func run() async throws {
        let url = URL(fileURLWithPath: model)
        let swmm: SWMMModel
        do { swmm = try SWMMModel(contentsOf: url) } catch {
            throw CommandFailure(presenting: error, in: url.lastPathComponent)
        }
        let record = try await rainfall.record()
        let bar = ProgressBar("simulating \(url.lastPathComponent) over the record")
        let answer: SpongeEvaluation
        do {
            answer = try SpongeEvaluation(model: swmm, record: record, withLID: withLID, baseDirectory: url.deletingLastPathComponent()) { bar.update($0) }
        } catch {
            throw CommandFailure(presenting: error, in: url.lastPathComponent)
        }
        bar.finish(.stage("done", fraction: 1))
        if json {
            print(try JSONOutput.text(answer, .pretty))
            return
        }
        let r = answer.record
        print("record: \(r.firstDate) to \(r.lastDate), \(r.years) years; capture \(answer.lid) LID")
        print(String(format: "model: %.1f %% (rain %.0f m³, runoff %.0f m³; continuity error %.3f %%)", answer.model.captureRate * 100,
                     answer.model.rainfallCubicMetres, answer.model.runoffCubicMetres, answer.continuity.errorPercent))
        for z in answer.zones { print(String(format: "  zone %@: %.1f %% over %d subcatchments", z.name, z.captureRate * 100, z.subcatchments)) }
        for s in answer.subcatchments { print(String(format: "  %@ (%@): %.1f %%", s.name, s.zone, s.captureRate * 100)) }
        if let other = answer.lidComparison {
            print(String(format: "%@ LID: model %.1f %%", other.lid, other.model.captureRate * 100))
            for z in other.zones { print(String(format: "  zone %@: %.1f %%", z.name, z.captureRate * 100)) }
        }
        for p in answer.lidPerformance {
            print(String(format: "  LID %@ in %@: inflow %.1f mm, evaporation %.1f, infiltration %.1f, surface outflow %.1f, drain %.1f mm",
                         p.control, p.subcatchment, p.inflowMillimetres, p.evaporationMillimetres, p.infiltrationMillimetres,
                         p.surfaceOutflowMillimetres, p.drainOutflowMillimetres))
        }
        for w in answer.warnings { print("note: \(w)") }
    }
}
