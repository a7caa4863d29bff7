import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// Where a sponge process's rainfall record comes from: values given inline (a list of days, or
/// CSV text read by the one CSV reader) or a rain gauge's SensorThings Datastream over a window.
/// Never a path on the server.
public enum RainfallRecordInput: Sendable {
    case inline(DailyRainfall)
    /// Microseconds since 1970 UTC, [from, to).
    case datastream(id: Int64, from: Int64, to: Int64)

    /// Whether reading it needs the store (a Datastream).
    public var readsStore: Bool { if case .datastream = self { true } else { false } }

    static let daysSchema: JSONValue = [
        "oneOf": [
            ["type": "array", "items": ["type": "object", "required": ["date", "precipitation"],
                                        "properties": ["date": ["type": "string", "format": "date"], "precipitation": ["type": "number", "minimum": 0],
                                                       "snow": ["type": "boolean"]]]],
            ["type": "string", "description": "CSV text: a header naming date and precipitation (and optionally snow), one row per day or per reading"],
        ],
    ]

    /// Reads `dailyRainfall` (inline) or `datastream` with `from` and `to`: exactly one of the two.
    public init(from r: ProcessInputReader) throws {
        // nil only while describing: a run without a record is refused by `read`.
        guard let record = try Self.read(r, required: true) else {
            self = .inline(DailyRainfall(days: []))
            return
        }
        self = record
    }

    /// As `init(from:)`; nil when neither is given and the record is not `required` (nil while describing).
    public static func read(_ r: ProcessInputReader, required: Bool) throws -> RainfallRecordInput? {
        let inline = r.value("dailyRainfall", ProcessParameter(
            title: "Daily rainfall",
            description: "The record inline: an array of days ({\"date\": \"YYYY-MM-DD\", \"precipitation\": mm, \"snow\": false}) in time order, or CSV text with a header naming date, precipitation and optionally snow (sub-daily readings are summed into the city's days). Give this or datastream.",
            schema: Self.daysSchema, minOccurs: 0))  // optional: a Datastream may give the record instead
        let stream = try r.integer("datastream", title: "Rain gauge Datastream",
                                   description: "A rain gauge's SensorThings Datastream @iot.id (unitOfMeasurement mm or mm/h) whose readings between from and to are summed into the city's days. Give this or dailyRainfall.",
                                   in: 1...9_007_199_254_740_991)  // ids up to 2⁵³ − 1, exact in JSON
        let from = try r.optionalString("from", title: "From", description: "With datastream: the window's start, RFC 3339 date-time.",
                                        schema: ["type": "string", "format": "date-time"])
        let to = try r.optionalString("to", title: "To", description: "With datastream: the window's end (exclusive), RFC 3339 date-time.",
                                      schema: ["type": "string", "format": "date-time"])
        guard !r.isDescribing else { return nil }
        switch (inline, stream) {
        case (nil, nil):
            guard required else { return nil }
            throw ProcessInputError("dailyRainfall", "give the rainfall record: dailyRainfall (inline) or datastream with from and to")
        case (.some, .some): throw ProcessInputError("datastream", "give one rainfall record: dailyRainfall or datastream, not both")
        case (let value?, nil):
            return .inline(try Self.days(value))
        case (nil, let id?):
            guard let fromText = from, let start = SensingTime.instant(fromText) else {
                throw ProcessInputError("from", "with datastream, from is an RFC 3339 date-time (the window's start)")
            }
            guard let toText = to, let end = SensingTime.instant(toText) else {
                throw ProcessInputError("to", "with datastream, to is an RFC 3339 date-time (the window's end)")
            }
            guard end > start else { throw ProcessInputError("to", "the window must end after it starts") }
            return .datastream(id: Int64(id), from: start, to: end)
        }
    }

    /// The inline record: CSV text through `DailyRainfall(csv:)`, or a list of days checked the same way.
    static func days(_ value: JSONValue) throws -> DailyRainfall {
        let zone = CityTime.current
        if let text = value.stringValue {
            do { return try DailyRainfall(csv: text, zone: zone, source: "dailyRainfall") } catch let e as SpongeInputError {
                throw ProcessInputError(e.input, e.reason)
            } catch let e as CSVSyntaxError {
                throw ProcessInputError("dailyRainfall", "\(e)")
            }
        }
        guard let list = value.arrayValue else {
            throw ProcessInputError("dailyRainfall", "an array of days ({date, precipitation, snow}) or CSV text")
        }
        var days: [DailyRainfall.Day] = []
        for (k, item) in list.enumerated() {
            let field = "dailyRainfall[\(k)]"
            guard let o = item.objectValue else { throw ProcessInputError(field, "a day is an object {date, precipitation, snow}") }
            guard let text = o["date"]?.stringValue, text.count == 10, let (day, _) = DailyRainfall.day(of: text, zone: zone) else {
                throw ProcessInputError("\(field).date", "a date YYYY-MM-DD, got \(o["date"].map { "\($0)" } ?? "nothing")")
            }
            guard let mm = o["precipitation"]?.doubleValue, mm.isFinite, mm >= 0 else {
                throw ProcessInputError("\(field).precipitation", "a depth in mm, 0 or more")
            }
            if let last = days.last, day <= last.day {
                throw ProcessInputError("\(field).date", "\(text) comes \(day == last.day ? "twice" : "after \(last.date)"): days must be in time order, each once")
            }
            days.append(DailyRainfall.Day(day: day, millimetres: mm, snow: o["snow"]?.boolValue ?? false))
        }
        guard !days.isEmpty else { throw ProcessInputError("dailyRainfall", "the record holds no day") }
        return DailyRainfall(days: days)
    }

    /// The layers a Datastream record reads (the SensorThings service's governing layer); none inline.
    public var reads: [String] { readsStore ? [SensingAlerts.governingLayer] : [] }

    /// The record.
    /// - Throws: `ProcessInputError` naming `datastream` (no such Datastream, not rain, no reading)
    ///   or a store without SensorThings.
    public func record(store: (any FeatureStore)?) async throws -> DailyRainfall {
        switch self {
        case .inline(let record): return record
        case .datastream(let id, let from, let to):
            guard let sensing = store as? any SensingStore else {
                throw ProcessInputError("datastream", "this store keeps no SensorThings observations")
            }
            do {
                return try await DailyRainfall(datastream: id, from: from, to: to, sensing: sensing, zone: CityTime.current)
            } catch let e as SpongeInputError {
                throw ProcessInputError("datastream", e.description)
            }
        }
    }
}
