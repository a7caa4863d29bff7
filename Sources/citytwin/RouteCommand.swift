import ArgumentParser
import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import Scenarios

/// `citytwin network route`: the fastest route between two points as a GeoJSON Feature.
struct RouteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Fastest route between two points on the road network (GeoJSON Feature, EPSG:4490 lon/lat).")

    @Option(help: "Origin as LON,LAT (CGCS2000 degrees).")
    var from: String
    @Option(help: "Destination as LON,LAT (CGCS2000 degrees).")
    var to: String
    @Option(help: "driving (design speeds, one-way honoured) or walking (5 km/h).")
    var profile: String = "driving"
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    func run() async throws {
        let a = try parseLonLat(from, option: "--from"), b = try parseLonLat(to, option: "--to")
        try checkMaximumSnap(maxSnapMetres)
        let roads = try await loadRoadGraph(store: store, profile: profile)
        let start = try roadAccess(roads, a, option: "--from", maximumMetres: maxSnapMetres)
        let end = try roadAccess(roads, b, option: "--to", maximumMetres: maxSnapMetres)
        guard let route = roads.graph.route(from: start, to: end) else {
            throw CommandFailure("no route: the destination cannot be reached from the origin on the \(profile) network")
        }
        var properties = routeProperties(route, profile: roads.graph.profile)
        properties["from_snap_metres"] = .number((start.distance * 10).rounded() / 10)
        properties["to_snap_metres"] = .number((end.distance * 10).rounded() / 10)
        let feature = Feature(id: nil, geometry: .lineString(LineString(try roads.storage(route.coordinates))),
                              properties: properties)
        printGeoJSON(.feature(feature))
    }
}

/// Properties every routed answer carries.
func routeProperties(_ route: Route, profile: TravelProfile) -> [String: JSONValue] {
    ["seconds": .number((route.seconds * 10).rounded() / 10), "minutes": .number((route.minutes * 100).rounded() / 100),
     "metres": .number((route.metres * 10).rounded() / 10), "profile": .string(profile.name)]
}

/// Parses `LON,LAT` in degrees.
func parseLonLat(_ text: String, option: String) throws -> Position {
    let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 2, let lon = parts[0], let lat = parts[1], lon.isFinite, lat.isFinite,
          abs(lon) <= 180, abs(lat) <= 90 else {
        throw ValidationError("\(option) must be LON,LAT in degrees, got \(text)")
    }
    return Position(x: lon, y: lat)
}

/// `--max-snap-metres` checked: a finite number of metres ≥ 0.
func checkMaximumSnap(_ metres: Double) throws {
    guard metres.isFinite, metres >= 0 else { throw ValidationError("--max-snap-metres must be a number of metres ≥ 0, got \(metres)") }
}

/// Where a lon/lat point meets the roads (ties included, see `RoadAccess`), or a failure naming
/// the option and the distance when the nearest road is farther than `maximumMetres`.
func roadAccess(_ roads: StoreRoadGraph, _ lonLat: Position, option: String, maximumMetres: Double) throws -> RoadAccess {
    do {
        return try roads.access(lonLat: lonLat, field: option, maximumMetres: maximumMetres)
    } catch let e as ScenarioError {
        let hint = e.code == .tooFarFromRoads ? " (raise the limit with --max-snap-metres)" : ""
        throw CommandFailure("\(option): \(e.message)\(hint)")
    }
}

/// Opens the store and builds its road graph for a profile name.
func loadRoadGraph(store: String, profile: String) async throws -> StoreRoadGraph {
    guard let travel = TravelProfile.named(profile) else {
        throw ValidationError("--profile must be driving or walking, got \(profile)")
    }
    let featureStore = try await StoreLocation(store).openExisting()
    let roads = try await StoreRoadGraph.load(from: featureStore, profile: travel)
    guard !roads.graph.network.pieces.isEmpty else { throw CommandFailure("the store's roads layer is empty") }
    return roads
}

/// Writes GeoJSON (7 decimals: ~1 cm in degrees) to standard output.
func printGeoJSON(_ object: GeoJSONObject) {
    var data = GeoJSON.encode(object, options: GeoJSONWriteOptions(precision: 7))
    data.append(0x0A)
    FileHandle.standardOutput.write(data)
}
