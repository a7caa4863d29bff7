import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ParkingSim
import ProcessRuntime
import TwinStore

/// `parking-simulation`: a day of drivers on the district's road graph, run unguided (drive to the lot
/// nearest the destination, then the next nearest, learning occupancy on arrival) and guided (follow the generalised-cost
/// ranking with capacity feedback) on the same trips; search time, extra vehicle-km, walk, rejected
/// arrivals and occupancy spread side by side. Destinations are buildings weighted by floor area.
public struct ParkingSimulationProcess: TypedProcess {
    public let id = "parking-simulation"
    public let version = "1.0.0"
    public let title = "Guided vs unguided parking"
    public let description = "Simulates a day of drivers looking for parking on the district's own road graph, unguided and guided on the same trips, and compares search time, extra vehicle-km, walking distance, rejected arrivals and the spread of occupancy across lots."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "unguided": ProcessParameter(title: "Unguided", description: "drivers, parked, rejected, mean_search_s (mean_cruise_s driving beyond the direct drive to the lot used, plus the expected in-lot search), extra_vehicle_km, mean_walk_m, full_lot_arrivals, occupancy_spread, peak_occupancy, share_lot_time_above_90.", schema: ["type": "object"]),
            "guided": ProcessParameter(title: "Guided", description: "The same for guided drivers.", schema: ["type": "object"]),
            "change": ProcessParameter(title: "Change", description: "search_time, cruise_time, extra_vehicle_km (each relative) from unguided to guided.", schema: ["type": "object"]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: [StoreParkingLot.layer, "roads", "buildings"])
    }

    public struct Input: ProcessInput {
        var drivers: Int?
        var seed: UInt64
        var capacityScale: Double

        public init(from r: ProcessInputReader) throws {
            drivers = try r.integer("drivers", title: "Drivers",
                                    description: "Trips in the day; default: sized so the lots together peak near 90 % occupancy.",
                                    in: 1...200_000)
            seed = UInt64(try r.integer("seed", title: "Seed", description: "Seed of the demand (same seed, same trips).",
                                        in: 0...Int(Int32.max), default: 17))
            capacityScale = try r.number("capacityScale", title: "Capacity scale",
                                         description: """
                                             Scales every lot's berths (at least 1) and so the default demand: 0.2 runs a fifth of \
                                             the trips at the same occupancy.
                                             """,
                                         in: 0.001...10, default: 1)
        }
    }

    public func run(_ r: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        return try await ProcessInputs.mapped {
            let parking = try await DistrictParking.load(from: store, by: caller)
            let destinations = try await Self.destinations(from: store, by: caller)
            try await progress.report(10)
            let results = try parking.simulate(destinations: destinations, drivers: r.drivers, seed: r.seed, capacityScale: r.capacityScale)
            try await progress.report(100)
            let encoder = JSONOutput.encoder(.plain)
            // Figures to 4 decimals: sums of many travel times differ in the last bits between a fresh
            // and a cached road graph, and an answer should not.
            func json(_ s: ParkingSimulationSummary) throws -> JSONValue {
                let v = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(s))
                return .object((v.objectValue ?? [:]).mapValues { $0.integerValue == nil && $0.doubleValue != nil
                    ? ProcessInputs.number($0.doubleValue, decimals: 10000) : $0 })
            }
            let u = results.first { $0.strategy == .unguided }!, g = results.first { $0.strategy == .guided }!
            func relative(_ a: Double, _ b: Double) -> JSONValue { a > 0 ? ProcessInputs.number((b - a) / a, decimals: 10000) : .null }
            return ["unguided": try json(u), "guided": try json(g),
                    "change": ["search_time": relative(u.meanSearchSeconds, g.meanSearchSeconds),
                               "cruise_time": relative(u.meanCruiseSeconds, g.meanCruiseSeconds),
                               "extra_vehicle_km": relative(u.extraVehicleKm, g.extraVehicleKm)]]
        }
    }

    /// The day's destinations: every fourth building (deterministic), weighted by floor area;
    /// commercial and public buildings draw more visitors per m².
    public static func destinations(from store: any FeatureStore, by caller: Caller) async throws -> [(position: Position, weight: Double)] {
        var destinations: [(position: Position, weight: Double)] = []
        var k = 0
        for try await b in store.stream(layer: "buildings", FeatureQuery(properties: ["footprint_m2", "floors", "use"], limit: 5000), by: caller) {
            k += 1
            guard k % 4 == 0, let c = EmergencyResource.point(of: b.geometry) else { continue }
            let area = (b.properties["footprint_m2"]?.doubleValue ?? 500) * Double(b.properties["floors"]?.integerValue ?? 1)
            let use = b.properties["use"]?.stringValue ?? ""
            let draw = use.contains("商") ? 6.0 : (use.contains("公") || use.contains("教") || use.contains("医") ? 3.0 : 1.0)
            destinations.append((c, area * draw))
        }
        return destinations
    }
}
