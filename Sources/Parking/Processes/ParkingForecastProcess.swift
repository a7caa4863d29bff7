import Foundation
import GeoCore
import ParkingSim
import ProcessRuntime
import TwinStore

/// `parking-forecast`: every lot's availability now and ahead (the `parking_availability` view): free
/// spaces, occupancy, trend, freshness, and predicted free spaces at +15/+30/+60/+120 min from its own
/// history. A lot without live detection, or whose latest reading is older than `freshnessSeconds`,
/// shows `state` `no-detection` or `stale` with every free-space figure null: unknown, never free.
public struct ParkingForecastProcess: TypedProcess {
    public let id = "parking-forecast"
    public let version = "1.0.0"
    public let title = "Parking availability and forecast"
    public let description = "Each parking lot's free spaces, occupancy, trend and freshness now, and its predicted free spaces at +15, +30, +60 and +120 minutes from its own occupancy history; stale or undetected lots are unknown, never free."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "lots": ProcessParameter(title: "Availability", description: "Per lot: state (live, stale, no-detection), free, occupancy, trend_per_hour, observed_at, age_s, predicted_free_15/30/60/120.",
                                     schema: ["type": "array"]),
            "coverage": ProcessParameter(title: "Smart-parking coverage", description: "Share of public berths with live detection (Wuhan indicator 29, target 70 %): public_berths, detected_berths, share, meets_target, and the same per administrative division (divisions).",
                                         schema: ["type": "object"]),
            "at": ProcessParameter(title: "Time", description: "The local time the availability is for.", schema: ["type": "string"]),
            "freshness_s": ProcessParameter(title: "Freshness limit", description: "A reading older than this (s) at `at` shows as unknown.", schema: ["type": "number"]),
            "fresh_after": ProcessParameter(title: "Freshness cut-off", description: "at minus freshness_s (local time, +08:00): a lot whose latest reading was observed before it is unknown.", schema: ["type": "string"]),
            "readings": ProcessParameter(title: "Readings", description: "What reading the history did: kept, clipped_above_capacity (clipped to full and flagged), rejected_negative, rejected_unknown_lot, unknown_lots.",
                                         schema: ["type": "object"]),
        ]
    }

    public struct Input: ProcessInput {
        var at: Double?
        var freshness: Double

        public init(from r: ProcessInputReader) throws {
            at = try r.localTime(description: """
                Local time YYYY-MM-DDTHH:MM:SS the availability is for; default: now (the server's clock), as \
                parking_availability judges it.
                """)
            freshness = try r.freshnessSeconds()
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: [StoreParkingLot.layer], optionalReads: [StoreParkingOccupancy.layer])
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let (at, freshness) = (input.at, input.freshness)
        return try await ProcessInputs.mapped {
            let lots = try await StoreParkingLot.load(from: store, by: caller)
            let availability = try await ParkingAvailability.load(lots: lots, from: store, at: at, freshness: freshness, by: caller)
            return ["at": .string(LocalClock.format(availability.at).replacingOccurrences(of: " ", with: "T")),
                    "freshness_s": .number(availability.freshness), "fresh_after": .string(ParkingLiveView.iso(availability.freshAfter)),
                    "lots": .array(availability.json()), "readings": availability.readingsJSON,
                    "coverage": try await SmartParkingCoverage.json(lots, from: store, by: caller)]
        }
    }
}

/// The parking processes' shared fields as a `ProcessInput` reads them.
extension ProcessInputReader {
    /// `at`: a local time YYYY-MM-DDTHH:MM:SS, `nil` (now) when not given.
    func localTime(description: String) throws -> Double? {
        guard let text = try optionalString("at", title: "Time", description: description) else { return nil }
        guard let t = LocalClock.parse(text) else { throw ProcessInputError("at", "must be a local time YYYY-MM-DDTHH:MM:SS, got \(text)") }
        return t
    }

    /// `freshnessSeconds`: how old a reading may be and still count (default 1200 s).
    func freshnessSeconds() throws -> Double {
        try number("freshnessSeconds", title: "Freshness limit", description: "A reading older than this (s) shows as unknown.",
                   in: 1e-3...1e9, default: ParkingAvailability.defaultFreshness)
    }
}

extension ParkingAvailability {
    /// One object per lot, as `parking-forecast` answers: the live view's properties and the reading's age.
    func json() -> [JSONValue] {
        lots.indices.map { i in
            var o = ParkingLiveView.properties(self, lot: i)
            o["age_s"] = forecasts[i].observedAt.map { ProcessInputs.number(at - $0, decimals: 1) } ?? .null
            return .object(o)
        }
    }

    /// What reading the history did, as `parking-forecast` reports it.
    var readingsJSON: JSONValue {
        ["kept": .integer(Int64(cleaning.kept)), "clipped_above_capacity": .integer(Int64(cleaning.aboveCapacity)),
         "rejected_negative": .integer(Int64(cleaning.rejectedNegative)), "rejected_unknown_lot": .integer(Int64(cleaning.rejectedUnknownLot)),
         "unknown_lots": .array(cleaning.unknownLots.map(JSONValue.string)), "duplicates": .integer(Int64(cleaning.duplicates)),
         "policy": "a count above capacity is clipped to full and flagged (reading_flag above-capacity); a negative count or an unknown lot id is left out"]
    }
}

extension SmartParkingCoverage {
    var json: JSONValue {
        ["public_berths": .integer(Int64(publicBerths)), "detected_berths": .integer(Int64(detectedBerths)),
         "share": ProcessInputs.number(share, decimals: 10000), "target": .number(target), "meets_target": .bool(meetsTarget)]
    }
}

extension SmartParkingCoverage {
    /// The whole inventory's coverage with one row per administrative division holding lots.
    public static func json(_ lots: [StoreParkingLot], from store: any FeatureStore, by caller: Caller) async throws -> JSONValue {
        var o = SmartParkingCoverage(lots).json.objectValue ?? [:]
        o["divisions"] = .array(try await DivisionParkingCoverage.assess(lots, from: store, by: caller).map { d in
            var row = d.coverage.json.objectValue ?? [:]
            row["code"] = .string(d.code)
            row["name"] = .string(d.name)
            row["level"] = d.level.map(JSONValue.string) ?? .null
            row["lots"] = .integer(Int64(d.lots.count))
            return .object(row)
        })
        return .object(o)
    }
}
