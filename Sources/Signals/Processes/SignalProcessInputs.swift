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

    /// The timing bounds, each optional, named as the CLI's options are.
    static let settingsParameters: [String: ProcessParameter] = [
        "minimumCycle": ProcessParameter(title: "Minimum cycle", description: "Shortest cycle a controller may run (s, default 30).",
                                         schema: ["type": "number", "minimum": 10, "maximum": 300, "default": 30], minOccurs: 0),
        "maximumCycle": ProcessParameter(title: "Maximum cycle", description: "Longest cycle a controller may run (s, default 180).",
                                         schema: ["type": "number", "minimum": 10, "maximum": 300, "default": 180], minOccurs: 0),
        "minimumGreen": ProcessParameter(title: "Minimum green", description: "Shortest displayed vehicle green of any stage (s, default 10).",
                                         schema: ["type": "number", "minimum": 0, "maximum": 120, "default": 10], minOccurs: 0),
        "walkingSpeed": ProcessParameter(title: "Walking speed", description: "Design walking speed for pedestrian minimum greens (m/s, default 1.0; lower near schools and hospitals).",
                                         schema: ["type": "number", "minimum": 0.3, "maximum": 2, "default": 1.0], minOccurs: 0),
        "analysisPeriod": ProcessParameter(title: "Analysis period", description: "HCM's analysis period T of the incremental delay and the overflow queue (h, default 0.25 for flows counted as 15-minute rates; 1 for an hour of steady flow). The greens do not depend on it.",
                                           schema: ["type": "number", "minimum": .number(SignalTimingSettings.analysisPeriods.lowerBound),
                                                    "maximum": .number(SignalTimingSettings.analysisPeriods.upperBound), "default": 0.25], minOccurs: 0),
    ]

    static let periodParameter = ProcessParameter(
        title: "Period", description: "A time of day HH:MM-HH:MM (local time): the plan is timed from the busiest hour of the counts in it. Without it, the day is segmented into periods (AM peak, off-peak, PM peak, night) from the latest day of counts that has ended (a day a live feed is still counting waits until it is over), its intervals in which every approach was counted.",
        schema: ["type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]-[0-2][0-9]:[0-5][0-9]$"], minOccurs: 0)

    static let writeParameter = ProcessParameter(
        title: "Write the plans", description: "true: the plans are written as new versions of signal_plans features (proposals: approved_by stays empty), which needs a token of the plans' owner (公安局) or the admin; false (default): the plans are only answered.",
        schema: ["type": "boolean", "default": false], minOccurs: 0)

    static func settings(_ inputs: [String: JSONValue]) throws -> SignalTimingSettings {
        let base = SignalTimingSettings()
        let minimumCycle = try In.number(inputs, "minimumCycle", default: base.minimumCycle, in: 10...300) ?? base.minimumCycle
        let maximumCycle = try In.number(inputs, "maximumCycle", default: base.maximumCycle, in: 10...300) ?? base.maximumCycle
        guard maximumCycle >= minimumCycle else {
            throw ProcessInputError("maximumCycle", "must not be below minimumCycle (\(maximumCycle) < \(minimumCycle))")
        }
        return SignalTimingSettings(
            minimumCycle: minimumCycle, maximumCycle: maximumCycle,
            minimumGreen: try In.number(inputs, "minimumGreen", default: base.minimumGreen, in: 0...120) ?? base.minimumGreen,
            walkingSpeed: try In.number(inputs, "walkingSpeed", default: base.walkingSpeed, in: 0.3...2) ?? base.walkingSpeed,
            analysisPeriod: try In.number(inputs, "analysisPeriod", default: base.analysisPeriod, in: SignalTimingSettings.analysisPeriods) ?? base.analysisPeriod)
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
    static func document<T: Decodable>(_ type: T.Type, _ inputs: [String: JSONValue], _ name: String, orID: Bool) throws -> T? {
        guard let value = In.unwrap(inputs[name]) else { return nil }
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
