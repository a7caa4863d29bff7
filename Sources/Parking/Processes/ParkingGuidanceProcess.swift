import Foundation
import GeoCore
import NetworkAnalysis
import ParkingSim
import ProcessRuntime
import TwinStore

/// `parking-guidance`: for an origin and a destination, the district's lots ranked by generalised cost
/// (drive on the road graph, walk to the destination, expected search/queue time from the occupancy
/// predicted at the arrival time, price), with the capacity feedback for `drivers` guided at once.
///
/// Inputs: `from`, `to` (GeoJSON Point or [lon, lat]); `heading` (optional: the direction of travel at
/// `from`, degrees clockwise from north, as a guidance screen's `heading_deg`: the drive starts along
/// the road that way); `occupancy` (optional readings
/// `[{"lot", "occupied", "age_s"}]`: a reading older than `freshnessSeconds`, default 1200, counts as
/// unknown, never as free; an occupancy above capacity is clipped and counted; a negative one or an
/// unknown lot id is refused naming the entry); `drivers` (1…500, default 1); `maximumSnapMetres`.
/// Lots without a fresh reading are ranked as near full and marked `availability_unknown`. Without
/// `occupancy` the readings are the store's, judged fresh or stale at `at` (default: now, by the server's
/// clock) by the rule the live view and the signs use (``ParkingAvailability/instant(_:clock:history:)``).
/// Outputs `lots` (ranked, each with the `observed_at` of the reading it was ranked by), `coverage` (the
/// 70 % indicator), `readings` (the instant judged at, the freshness cut-off, readings clipped, stale).
public struct ParkingGuidanceProcess: TypedProcess {
    public let id = "parking-guidance"
    public let version = "1.0.0"
    public let title = "Parking guidance"
    public let description = "Ranks the district's parking lots for a trip by generalised cost: drive time on the road graph, walk to the destination, expected search/queue time from the occupancy predicted at arrival, and price; with capacity feedback so one screen does not send everyone to the same lot."
    public let jobControlOptions: [JobControlOption] = [.syncExecute]

    /// Seconds after which a reading no longer says anything about a lot.
    public static let defaultFreshness = ParkingAvailability.defaultFreshness

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "lots": ProcessParameter(title: "Ranked lots", description: "Best first: lot, name, cost and its parts (s), predicted_free, share, availability_unknown, predicted_full, drive_m, walk_m.",
                                     schema: ["type": "array"]),
            "coverage": ProcessParameter(title: "Smart-parking coverage", description: "Share of public berths with live detection (Wuhan indicator 29, target 70 %).",
                                         schema: ["type": "object"]),
            "readings": ProcessParameter(title: "Readings used", description: "at (the local time availability is judged at), freshness_s and fresh_after (the cut-off: a reading observed before it is unknown), fresh, stale (shown as unknown), clipped (above capacity), unknown_availability lots.",
                                         schema: ["type": "object"]),
        ]
    }

    public struct Input: ProcessInput {
        var from: Position
        var heading: Double?
        var to: Position
        var readings: [(lot: String, occupied: Int, age: Double, index: Int)]
        var freshness: Double
        var drivers: Int
        var maximumSnapMetres: Double
        var given: Bool
        var at: Double?

        public init(from r: ProcessInputReader) throws {
            let list = r.value("occupancy", title: "Occupancy readings",
                               description: """
                                   Latest readings [{lot, occupied, age_s}] carried to the arrival time; lots without a fresh one \
                                   are unknown. Without this input the occupancy at arrival is forecast from parking_occupancy.
                                   """,
                               schema: ["type": "array", "items": ["type": "object", "required": ["lot", "occupied"]]])
            readings = try list.map(Self.readings) ?? []
            given = list != nil
            from = try r.point("from", title: "Origin", description: "Where the driver is: GeoJSON Point or [longitude, latitude].")
            heading = try r.number("heading", title: "Heading",
                                   description: """
                                       Direction of travel at the origin (degrees clockwise from north, as a guidance screen's \
                                       heading_deg): the drive starts along the road that way, no U-turn. Default: either way.
                                       """,
                                   in: 0...360)
            to = try r.point("to", title: "Destination", description: "Where the driver is going: GeoJSON Point or [longitude, latitude].")
            freshness = try r.freshnessSeconds()
            drivers = try r.integer("drivers", title: "Drivers guided at once",
                                    description: "Drivers the ranking is shared by (a screen's approaching stream); the capacity feedback spreads them.",
                                    in: 1...500, default: 1)
            maximumSnapMetres = try r.maximumSnapMetres()
            at = try r.localTime(description: """
                Local time YYYY-MM-DDTHH:MM:SS of departure when the occupancy comes from the store's history (no occupancy \
                input); default: now (the server's clock), so readings older than freshnessSeconds are unknown, as in \
                parking_availability.
                """)
        }

        static func readings(_ list: JSONValue) throws -> [(lot: String, occupied: Int, age: Double, index: Int)] {
            guard let items = list.arrayValue else { throw ProcessInputError("occupancy", "must be an array of {lot, occupied, age_s}") }
            return try items.enumerated().map { i, item in
                guard let o = item.objectValue, let lot = o["lot"]?.stringValue else {
                    throw ProcessInputError("occupancy[\(i)].lot", "is required (a parking_lots id)")
                }
                guard let occ = o["occupied"]?.integerValue else { throw ProcessInputError("occupancy[\(i)].occupied", "must be an integer") }
                guard occ >= 0 else { throw ProcessInputError("occupancy[\(i)].occupied", "must not be negative (got \(occ))") }
                let age = o["age_s"]?.doubleValue ?? 0
                guard age.isFinite, age >= 0 else { throw ProcessInputError("occupancy[\(i)].age_s", "must be a number of seconds ≥ 0") }
                return (lot, Int(occ), age, i)
            }
        }
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: [StoreParkingLot.layer, "roads"], optionalReads: [StoreParkingOccupancy.layer])
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        return try await ProcessInputs.mapped {
            let parking = try await DistrictParking.load(from: store, by: caller)
            let byID = Dictionary(uniqueKeysWithValues: parking.lots.map { ($0.id, $0) })
            var occupied: [String: Double] = [:], observed: [String: Double] = [:]
            var stale = 0, clipped = 0
            let clock = ParkingLiveView.localTime()
            for reading in r.readings {
                guard let lot = byID[reading.lot] else {
                    throw ProcessInputError("occupancy[\(reading.index)].lot", "no parking lot '\(reading.lot)' in \(StoreParkingLot.layer)")
                }
                guard reading.age <= r.freshness else { stale += 1; continue }
                if reading.occupied > lot.capacity { clipped += 1 }
                occupied[lot.id] = Double(min(reading.occupied, lot.capacity))
                observed[lot.id] = (r.at ?? clock) - reading.age
            }
            // The occupancy at arrival: given readings are carried to the ETA as they are; otherwise each
            // lot's forecast from its history, read at the ETA (unknown when stale or undetected).
            let availability = r.given ? nil : try await ParkingAvailability.load(lots: parking.lots, from: store, at: r.at,
                                                                                  freshness: r.freshness, by: caller)
            let index = Dictionary(uniqueKeysWithValues: parking.lots.enumerated().map { ($1.id, $0) })
            if let availability {
                for (i, f) in availability.forecasts.enumerated() { observed[availability.lots[i].id] = f.observedAt }
            }
            let judgedAt = availability?.at ?? r.at ?? clock
            let answer = try parking.guide(from: r.from, heading: r.heading, to: r.to, drivers: r.drivers, maximumSnapMetres: r.maximumSnapMetres) { lot, eta in
                if let availability { return index[lot.id].flatMap { availability.predictedOccupied(lot: $0, after: eta) } }
                return occupied[lot.id]
            }
            let options = Dictionary(uniqueKeysWithValues: answer.options.map { ($0.lot, $0) })
            let lots: [JSONValue] = answer.ranked.enumerated().map { rank, l in
                func n(_ v: Double?, _ d: Double) -> JSONValue { ProcessInputs.number(v, decimals: d) }
                return [
                    "rank": .integer(Int64(rank + 1)), "lot": .string(l.lot), "name": byID[l.lot]?.name.map(JSONValue.string) ?? .null,
                    "cost_s": n(l.cost, 10), "drive_s": n(l.driveSeconds, 10), "walk_s": n(l.walkSeconds, 10),
                    "search_s": n(l.searchSeconds, 10), "price_s": n(l.priceSeconds, 10),
                    "drive_m": n(options[l.lot]?.driveMetres, 10), "walk_m": n(options[l.lot]?.walkMetres, 10),
                    "capacity": .integer(Int64(byID[l.lot]?.capacity ?? 0)),
                    "predicted_free": l.predictedFree.map { n(max($0, 0), 10) } ?? .null,
                    "share": n(l.share, 1000), "availability_unknown": .bool(l.availabilityUnknown), "predicted_full": .bool(l.predictedFull),
                    "observed_at": observed[l.lot].map { .string(ParkingLiveView.iso($0)) } ?? .null,
                ]
            }
            let coverage = SmartParkingCoverage(parking.lots)
            return [
                "lots": .array(lots),
                "unreachable": .array(answer.unreachable.map(JSONValue.string)),
                "coverage": coverage.json,
                "readings": ["source": .string(r.given ? "input" : "forecast"), "at": .string(ParkingLiveView.iso(judgedAt)),
                             "freshness_s": .number(r.freshness), "fresh_after": .string(ParkingLiveView.iso(judgedAt - r.freshness)),
                             "fresh": .integer(Int64(r.given ? occupied.count : answer.ranked.filter { !$0.availabilityUnknown }.count)), "stale": .integer(Int64(stale)), "clipped": .integer(Int64(clipped)),
                             "unknown_availability": .array(answer.ranked.filter(\.availabilityUnknown).map { .string($0.lot) })],
                "snap": ["from_metres": ProcessInputs.number(answer.originSnapMetres), "maximum_metres": .number(r.maximumSnapMetres)],
            ]
        }
    }
}
