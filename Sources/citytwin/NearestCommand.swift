import ArgumentParser
import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import Scenarios
import TwinStore

/// `citytwin network nearest`: the N resources of a layer fastest to reach from an incident.
struct NearestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest",
        abstract: "Nearest-N emergency resources by travel time from an incident (GeoJSON FeatureCollection of routes).")

    @Option(help: "Incident as LON,LAT (CGCS2000 degrees).")
    var from: String
    @Option(help: "Resource layer, e.g. shelters or fire_stations.")
    var layer: String
    @Option(help: "How many resources to return.")
    var count: Int = 3
    @Option(name: .customLong("where"), help: "Simple filter PROPERTY OP VALUE with OP one of >= <= > < = != (e.g. capacity>=800).")
    var condition: String?
    @Option(help: "driving or walking.")
    var profile: String = "driving"
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @Option(help: "The store: a SpatiaLite file path, spatialite:PATH or postgresql://….")
    var store: String = DistrictLoader.defaultStorePath

    func run() async throws {
        guard count > 0 else { throw ValidationError("--count must be at least 1") }
        let origin = try parseLonLat(from, option: "--from")
        try checkMaximumSnap(maxSnapMetres)
        let filter = try condition.map(PropertyCondition.init)
        let roads = try await loadRoadGraph(store: store, profile: profile)
        let featureStore = try await StoreLocation(store).openExisting()
        var resources: [Feature] = []
        var lonLats: [Position] = []
        for try await f in featureStore.stream(layer: layer, FeatureQuery(limit: 2000), by: .admin) {
            guard filter?.matches(f.properties) ?? true, let e = f.geometry?.envelope else { continue }
            resources.append(f)
            lonLats.append(Position(x: (e.minX + e.maxX) / 2, y: (e.minY + e.maxY) / 2))
        }
        let start = try roadAccess(roads, origin, option: "--from", maximumMetres: maxSnapMetres)
        // Resources off the network are left out, each named on standard error with the reason.
        var targets: [RoadAccess] = [], kept: [Int] = []
        for (i, access) in try roads.access(lonLats: lonLats).enumerated() {
            let name = resources[i].id.map { "\($0)" } ?? "feature \(i)"
            guard let access else { throw CommandFailure("the road network is empty") }
            guard access.distance <= maxSnapMetres else {
                FileHandle.standardError.write(Data("\(layer)/\(name) left out: \(Int(access.distance.rounded())) m from the nearest road, beyond --max-snap-metres \(maxSnapMetres)\n".utf8))
                continue
            }
            targets.append(access)
            kept.append(i)
        }
        let best = roads.graph.nearest(from: start, targets: targets, count: count)
        var features: [Feature] = []
        for (rank, hit) in best.enumerated() {
            let resource = resources[kept[hit.index]]
            var properties = resource.properties
            if let route = hit.route { properties.merge(routeProperties(route, profile: roads.graph.profile)) { $1 } }
            properties["rank"] = .integer(Int64(rank + 1))
            properties["resource_id"] = resource.id.map { .string("\($0)") } ?? .null
            properties["access_metres"] = .number((targets[hit.index].distance * 10).rounded() / 10)
            properties["incident_snap_metres"] = .number((start.distance * 10).rounded() / 10)
            let geometry = try hit.route.map { Geometry.lineString(LineString(try roads.storage($0.coordinates))) }
            features.append(Feature(id: resource.id, geometry: geometry, properties: properties))
        }
        printGeoJSON(.featureCollection(FeatureCollection(features)))
    }
}

/// `PROPERTY OP VALUE`: the one simple attribute filter of the network commands.
struct PropertyCondition {
    var property: String
    var op: String
    var value: String

    init(_ text: String) throws {
        for op in [">=", "<=", "!=", ">", "<", "="] {
            if let r = text.range(of: op) {
                property = text[..<r.lowerBound].trimmingCharacters(in: .whitespaces)
                value = text[r.upperBound...].trimmingCharacters(in: .whitespaces)
                self.op = op
                guard !property.isEmpty, !value.isEmpty else { break }
                return
            }
        }
        throw ValidationError("--where must be PROPERTY OP VALUE with OP one of >= <= > < = != (e.g. capacity>=800), got \(text)")
    }

    func matches(_ properties: [String: JSONValue]) -> Bool {
        let actual: String?, number: Double?
        switch properties[property] {
        case .integer(let i)?: actual = String(i); number = Double(i)
        case .number(let d)?: actual = String(d); number = d
        case .string(let s)?: actual = s; number = Double(s)
        case .bool(let b)?: actual = String(b); number = nil
        default: return false
        }
        if let n = number, let v = Double(value) {
            switch op {
            case ">=": return n >= v
            case "<=": return n <= v
            case ">": return n > v
            case "<": return n < v
            case "=": return n == v
            default: return n != v
            }
        }
        switch op {
        case "=": return actual == value
        case "!=": return actual != value
        case ">=": return actual.map { $0 >= value } ?? false
        case "<=": return actual.map { $0 <= value } ?? false
        case ">": return actual.map { $0 > value } ?? false
        default: return actual.map { $0 < value } ?? false
        }
    }
}
