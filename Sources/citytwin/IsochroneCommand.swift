import ArgumentParser
import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import Scenarios

/// `citytwin network isochrone`: service areas around a point for several time breaks.
struct IsochroneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isochrone",
        abstract: "Service areas (isochrones) around a point for several time breaks (GeoJSON polygons, EPSG:4490).")

    @Option(help: "Centre as LON,LAT (CGCS2000 degrees).")
    var at: String
    @Option(help: "Breaks in minutes, comma-separated.")
    var minutes: String = "5,10,15"
    @Option(help: "driving or walking.")
    var profile: String = "driving"
    @Option(help: "Half-width of the area around reached roads, metres.")
    var buffer: Double = 25
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @Option(help: "The store: a SpatiaLite file path, spatialite:PATH or postgresql://….")
    var store: String = DistrictLoader.defaultStorePath

    func run() async throws {
        let centre = try parseLonLat(at, option: "--at")
        let breaks = try minutes.split(separator: ",").map { text -> Double in
            guard let m = Double(text.trimmingCharacters(in: .whitespaces)), m.isFinite, m >= 0 else {
                throw ValidationError("--minutes must be comma-separated non-negative numbers, got \(minutes)")
            }
            return m * 60
        }
        guard !breaks.isEmpty else { throw ValidationError("--minutes needs at least one break") }
        guard buffer.isFinite, buffer > 0 else { throw ValidationError("--buffer must be > 0 metres") }
        try checkMaximumSnap(maxSnapMetres)
        let roads = try await loadRoadGraph(store: store, profile: profile)
        let origin = try roadAccess(roads, centre, option: "--at", maximumMetres: maxSnapMetres)
        let areas = try roads.graph.serviceAreas(from: origin, breaks: breaks, bufferMetres: buffer)
        let features = try areas.map { a in
            Feature(id: nil, geometry: try roads.toStorage.transform(a.area), properties: [
                "minutes": .number(a.seconds / 60), "seconds": .number(a.seconds), "profile": .string(roads.graph.profile.name),
                "reached_nodes": .integer(Int64(a.reachedNodes)), "reached_metres": .number((a.reachedMetres * 10).rounded() / 10),
                "snap_metres": .number((origin.distance * 10).rounded() / 10),
            ])
        }
        printGeoJSON(.featureCollection(FeatureCollection(features)))
    }
}
