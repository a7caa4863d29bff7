import ArgumentParser
import CityModel
import Emergency
import Foundation
import GeoCore
import Scenarios

/// `citytwin network hazard`: what a hazard polygon or flood result holds and cuts off (the
/// `hazard-overlay` process run on a local store as the admin), printed as JSON.
struct HazardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hazard",
        abstract: "Resources, roads, buildings, addresses and people inside a hazard area; closed roads; cut-off resources; a route around it (JSON).")

    @Option(help: "A GeoJSON file holding the hazard Polygon or MultiPolygon (CRS84), or give --layer.")
    var area: String?
    @Option(help: "A polygon layer, e.g. a flood run's flood_<scenario>_<n>_depth, or give --area or --run.")
    var layer: String?
    @Option(help: "A flood run (citytwin flood-runs list): its depth ≥ 0.15 m. Without --area, --layer and --run: the current published run.")
    var run: String?
    @Option(help: "Property of --layer to filter on.")
    var property: String?
    @Option(help: "Keep --layer polygons whose --property is at least this (e.g. 0.15 m).")
    var minimum: Double?
    @Option(help: "Point to measure resource reach from, as LON,LAT.")
    var origin: String?
    @Option(help: "Route start as LON,LAT (with --to).")
    var from: String?
    @Option(help: "Route end as LON,LAT (with --from).")
    var to: String?
    @Option(help: "driving or walking.")
    var profile: RoutingProfile = .driving
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @Flag(help: "Repair an invalid (self-intersecting) --area with GEOS make-valid instead of refusing it.")
    var repair = false
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    func run() async throws {
        var inputs: [String: JSONValue] = ["profile": .string(profile.rawValue), "maximumSnapMetres": .number(maxSnapMetres),
                                           "repair": .bool(repair)]
        if let area { inputs["area"] = try areaInput(area, option: "--area") }
        if let layer { inputs["hazardLayer"] = .string(layer) }
        if let run { inputs["run"] = .string(run) }
        if let property { inputs["property"] = .string(property) }
        if let minimum { inputs["minimum"] = .number(minimum) }
        if let origin { inputs["origin"] = try lonLatInput(origin, option: "--origin") }
        switch (from, to) {
        case let (a?, b?): inputs["route"] = ["from": try lonLatInput(a, option: "--from"), "to": try lonLatInput(b, option: "--to")]
        case (nil, nil): break
        default: throw ValidationError("--from and --to go together")
        }
        try printJSONDocument(try await ProcessRunner(store: store).run("hazard-overlay", inputs))
    }
}
