import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import SignalSim
import TwinStore

/// The inputs the signal processes share (timing bounds, a time-of-day period, whether to write
/// the plans) and the one way their answers become JSON.
public enum SignalProcessInputs {
    typealias In = ProcessInputs

    static let periodParameter = ProcessParameter(
        title: "Period", description: "A time of day HH:MM-HH:MM (local time): the plan is timed from the busiest hour of the counts in it. Without it, the day is segmented into periods (AM peak, off-peak, PM peak, night) from the latest day of counts that has ended (a day a live feed is still counting waits until it is over), its intervals in which every approach was counted.",
        schema: ["type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]-[0-2][0-9]:[0-5][0-9]$"], minOccurs: 0)

    static let writeParameter = ProcessParameter(
        title: "Write the plans", description: "true: the plans are written as new versions of signal_plans features (proposals: approved_by stays empty), which needs a token of the plans' owner (公安局) or the admin; false (default): the plans are only answered.",
        schema: ["type": "boolean", "default": false], minOccurs: 0)

    /// The timing bounds, each optional, named as the CLI's options are.
    static func settings(_ r: ProcessInputReader) throws -> SignalTimingSettings {
        let base = SignalTimingSettings()
        let minimumCycle = try r.number("minimumCycle", title: "Minimum cycle", description: "Shortest cycle a controller may run (s, default 30).",
                                        in: 10...300, default: base.minimumCycle)
        let maximumCycle = try r.number("maximumCycle", title: "Maximum cycle", description: "Longest cycle a controller may run (s, default 180).",
                                        in: 10...300, default: base.maximumCycle)
        let minimumGreen = try r.number("minimumGreen", title: "Minimum green", description: "Shortest displayed vehicle green of any stage (s, default 10).",
                                        in: 0...120, default: base.minimumGreen)
        let walkingSpeed = try r.number("walkingSpeed", title: "Walking speed",
                                        description: "Design walking speed for pedestrian minimum greens (m/s, default 1.0; lower near schools and hospitals).",
                                        in: 0.3...2, default: base.walkingSpeed)
        let analysisPeriod = try r.number("analysisPeriod", title: "Analysis period",
                                          description: "HCM's analysis period T of the incremental delay and the overflow queue (h, default 0.25 for flows counted as 15-minute rates; 1 for an hour of steady flow). The greens do not depend on it.",
                                          in: SignalTimingSettings.analysisPeriods, default: base.analysisPeriod)
        guard r.isDescribing || maximumCycle >= minimumCycle else {
            throw ProcessInputError("maximumCycle", "must not be below minimumCycle (\(maximumCycle) < \(minimumCycle))")
        }
        return SignalTimingSettings(minimumCycle: minimumCycle, maximumCycle: maximumCycle, minimumGreen: minimumGreen,
                                    walkingSpeed: walkingSpeed, analysisPeriod: analysisPeriod)
    }

    /// The period input (`periodParameter`), read.
    static func period(_ r: ProcessInputReader) throws -> (start: Int, end: Int)? {
        guard let value = r.value("period", periodParameter) else { return nil }
        return try period(["period": value])
    }

    /// `HH:MM-HH:MM` as minutes after midnight, end exclusive; `24:00` ends the day.
    public static func period(_ inputs: [String: JSONValue], _ name: String = "period") throws -> (start: Int, end: Int)? {
        guard let text = try In.string(inputs, name) else { return nil }
        guard let range = TimeOfDayPeriod.range(text) else {
            throw ProcessInputError(name, "must be a time of day HH:MM-HH:MM with the start before the end, e.g. 07:00-09:00 (got '\(text)')")
        }
        return range
    }

    /// A signal document given inline as input `name` (an intersection or a corridor, as the CLI's
    /// `--input` reads them), or nil when it is not given (or, `orID`, when it is a stored one's id);
    /// what is wrong names its JSON path.
    static func document<T: Decodable>(_ type: T.Type, _ value: JSONValue?, _ name: String, orID: Bool) throws -> T? {
        guard let value else { return nil }
        if orID, value.stringValue != nil { return nil }
        guard value.objectValue != nil else { throw ProcessInputError(name, orID ? "must be an id or a JSON object" : "must be a JSON object (stored ones are named by id in intersections)") }
        return try blaming(name) { try SignalDocument.decode(T.self, from: JSONOutput.data(value)) }
    }

    /// Runs `body` on a document the caller gave as input `name`: a kernel error about it is an
    /// input error naming `name` and the document's field (not an analysis failure of the district).
    static func blaming<T>(_ name: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as SignalTimingError {
            throw ProcessInputError(name, e.description)
        }
    }

    static func blaming<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let e as SignalTimingError {
            throw ProcessInputError(name, e.description)
        }
    }

    /// The refusal of input that names stored features (`what`, input `name`) when run without a store.
    static func storeNeeded(_ name: String, _ what: String) -> ProcessInputError {
        ProcessInputError(name, "\(what) are read from a store: give one, or the document inline")
    }

    /// The intersection `id`, or an input error naming `name`.
    static func intersection(_ id: String, _ name: String, store: any FeatureStore, caller: Caller) async throws -> SignalizedIntersection {
        do {
            guard let found = try await SignalizedIntersection.load(id: id, from: store, by: caller) else {
                throw ProcessInputError(name, "no signalised intersection '\(id)' in \(SignalizedIntersection.layer)")
            }
            return found
        } catch let e as SignalTimingError {
            throw ScenarioError(.invalidDistrict, "the intersection cannot be timed: \(e)")
        }
    }

    /// Runs `body`, turning kernel and analysis errors into answers that name their field: a
    /// kernel error about the district's data is an analysis failure naming the layer's property.
    public static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await In.mapped(body)
        } catch let e as SignalTimingError {
            throw ScenarioError(.invalidDistrict, "signal timing: \(e)")
        }
    }

    /// An encodable report (the kernel's JSON documents) as a process output value.
    static func json(_ value: some Encodable) throws -> JSONValue {
        try JSONOutput.value(value)
    }

    /// A period as the outputs give it.
    static func json(_ period: TimeOfDayPeriod) -> JSONValue {
        ["name": .string(period.name), "start": .string(TimeOfDayPeriod.clock(period.start)),
         "end": .string(TimeOfDayPeriod.clock(period.end)), "design_hour_start": .string(TimeOfDayPeriod.clock(period.designHourStart))]
    }
}
