import Foundation
import GeoCore
import ParkingSim
import TwinStore

/// `parking-forecast`: every lot's availability now and ahead (the `parking_availability` view): free
/// spaces, occupancy, trend, freshness, and predicted free spaces at +15/+30/+60/+120 min from its own
/// history. A lot without live detection, or whose latest reading is older than `freshnessSeconds`,
/// shows `state` `no-detection` or `stale` with every free-space figure null: unknown, never free.
public struct ParkingForecastProcess: OGCProcess {
    public let id = "parking-forecast"
    public let version = "1.0.0"
    public let title = "Parking availability and forecast"
    public let description = "Each parking lot's free spaces, occupancy, trend and freshness now, and its predicted free spaces at +15, +30, +60 and +120 minutes from its own occupancy history; stale or undetected lots are unknown, never free."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    public init() {}

    public var inputs: [String: ProcessParameter] {
        [
            "at": ProcessParameter(title: "Time", description: "Local time YYYY-MM-DDTHH:MM:SS the availability is for; default: the latest reading.",
                                   schema: ["type": "string"], minOccurs: 0),
            "freshnessSeconds": ProcessParameter(title: "Freshness limit", description: "A reading older than this (s) shows as unknown.",
                                                 schema: ["type": "number", "exclusiveMinimum": 0, "default": 1200], minOccurs: 0),
        ]
    }

    public var outputs: [String: ProcessParameter] {
        [
            "lots": ProcessParameter(title: "Availability", description: "Per lot: state (live, stale, no-detection), free, occupancy, trend_per_hour, observed_at, age_s, predicted_free_15/30/60/120.",
                                     schema: ["type": "array"]),
            "coverage": ProcessParameter(title: "Smart-parking coverage", description: "Share of public berths with live detection (target 70 %).",
                                         schema: ["type": "object"]),
            "at": ProcessParameter(title: "Time", description: "The local time the availability is for.", schema: ["type": "string"]),
        ]
    }

    static func time(_ inputs: [String: JSONValue], _ name: String = "at") throws -> Double? {
        guard let text = try ProcessInputs.string(inputs, name) else { return nil }
        guard let t = LocalClock.parse(text) else { throw ProcessInputError(name, "must be a local time YYYY-MM-DDTHH:MM:SS, got \(text)") }
        return t
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: [StoreParkingLot.layer], optionalReads: [StoreParkingOccupancy.layer])
    }

    public func validate(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller) async throws {
        _ = try Self.time(inputs)
        _ = try ProcessInputs.number(inputs, "freshnessSeconds", in: 1e-3...1e9)
    }

    public func execute(_ inputs: [String: JSONValue], store: any FeatureStore, caller: Caller,
                        progress: JobProgress) async throws -> JSONValue {
        let at = try Self.time(inputs)
        let freshness = try ProcessInputs.number(inputs, "freshnessSeconds", default: ParkingAvailability.defaultFreshness, in: 1e-3...1e9)!
        return try await ProcessInputs.mapped {
            let lots = try await StoreParkingLot.load(from: store, by: caller)
            let availability = try await ParkingAvailability.load(lots: lots, from: store, at: at, freshness: freshness, by: caller)
            return ["at": .string(LocalClock.format(availability.at).replacingOccurrences(of: " ", with: "T")),
                    "lots": .array(availability.json()), "coverage": SmartParkingCoverage(lots).json]
        }
    }
}

extension ParkingAvailability {
    /// One object per lot, as `parking-forecast` answers.
    func json() -> [JSONValue] {
        zip(lots, forecasts).map { lot, f in
            let n = { (v: Double?, d: Double) in ProcessInputs.number(v, decimals: d) }
            let live = !f.stale && f.rate != nil
            let state = !lot.smart && f.rate == nil ? "no-detection" : (live ? "live" : "stale")
            var o: [String: JSONValue] = [
                "lot": .string(lot.id), "name": lot.name.map(JSONValue.string) ?? .null, "capacity": .integer(Int64(lot.capacity)),
                "state": .string(state),
                "occupancy": live ? n(f.rate, 1000) : .null,
                "free": live ? .integer(Int64((Double(lot.capacity) * (1 - f.rate!)).rounded())) : .null,
                "trend_per_hour": live ? n(f.trendPerHour, 1000) : .null,
                "observed_at": f.observedAt.map { .string(LocalClock.format($0).replacingOccurrences(of: " ", with: "T")) } ?? .null,
                "age_s": f.observedAt.map { n(at - $0, 1) } ?? .null,
            ]
            for (h, p) in zip(Self.horizons, f.predicted) {
                o["predicted_free_\(Int(h / 60))"] = p.map { .integer(Int64((Double(lot.capacity) * (1 - $0)).rounded())) } ?? .null
            }
            return .object(o)
        }
    }
}

extension SmartParkingCoverage {
    var json: JSONValue {
        ["public_berths": .integer(Int64(publicBerths)), "detected_berths": .integer(Int64(detectedBerths)),
         "share": ProcessInputs.number(share, decimals: 10000), "target": .number(target), "meets_target": .bool(meetsTarget)]
    }
}
