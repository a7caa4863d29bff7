import FloodSim
import Foundation
import GeoCore
import ProcessRuntime

/// A flood run's results over time, kept beside its depth layer (`ResultRasters`) so clients
/// fetch them through URLs, never server paths:
///
/// - one depth grid per output step (`<stem>_depth_t<seconds>.asc`, ESRI ASCII, EPSG:4547, m),
///   which the map tiles of the depth layer draw (`?datetime=` picks the step);
/// - the cells of permanent water (`<stem>_depth_permanent_water.asc`, 1 = river, lake or
///   reservoir), which the map tiles leave undrawn (the depth grids themselves keep every cell);
/// - `timesteps.json`: this index (the steps' date-times, seconds and grid names, the series);
/// - hydrographs at the network nodes (`<stem>_node_depths.csv|json`: depth above the invert, m);
/// - depth over time on every road (`<stem>_road_depths.csv|json`: the deepest water sampled
///   along the road every half cell, m).
public struct FloodTimeSteps: Sendable, Codable, Equatable {
    /// One output step.
    public struct Step: Sendable, Codable, Equatable {
        /// RFC 3339 instant of the step (the storm's start + `seconds`).
        public var datetime: String
        /// Simulated seconds since the storm's start.
        public var seconds: Double
        /// The depth grid's file name (`/collections/{layer}/rasters/{raster}`).
        public var raster: String
    }

    /// What the steps' times are (issue 77 §6): a design storm's times count from its T+0, which
    /// is no moment of the real city; an observed (nowcast) run's are wall-clock times.
    public enum Clock: String, Sendable, Codable, Equatable {
        /// A design storm: read as T+minutes from the storm's start (设计暴雨，非实况).
        case storm
        /// Observed rain (a nowcast): the steps are real times.
        case wall
    }

    /// The depth layer the grids belong to.
    public var layer: String
    /// The storm's start (RFC 3339): for a design storm only the origin of T+ (when it was run).
    public var start: String
    /// What the times are; nil in an index written before it was kept, read as `storm` (a time
    /// never passes for a real one unless the run says so).
    public var clock: Clock?
    public var steps: [Step]
    /// API paths of the series files by name (`nodeDepthsCSV`, `nodeDepthsJSON`, `roadDepthsCSV`, `roadDepthsJSON`).
    public var series: [String: String]
    /// The grid of permanent water (1) beside the steps, nil for a run written before it was kept.
    public var permanentWater: String?

    /// The name of the index file beside the grids.
    public static let indexName = "timesteps.json"

    /// The step in force at `instant`: the last step at or before it, or nil before the storm's
    /// first step or after the last one (outside the run).
    public func step(at instant: Date) -> Step? {
        guard let start = ScenarioInstant.instant(start) else { return nil }
        let t = instant.timeIntervalSince(start)
        guard let last = steps.last, t >= 0, t <= last.seconds + 1e-6 else { return nil }
        return steps.last { $0.seconds <= t + 1e-6 } ?? steps.first
    }

    /// The run's time interval: the storm's start to the last step.
    public var interval: (start: String, end: String)? {
        guard let s = ScenarioInstant.instant(start), let last = steps.last else { return nil }
        return (start, ScenarioInstant.text(s.addingTimeInterval(last.seconds)))
    }

    /// Reads the index of `layer`, or nil when the layer kept no steps.
    public static func read(layer: String, rasters: ResultRasters) -> FloodTimeSteps? {
        guard let url = rasters.file(layer: layer, name: indexName), let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try? JSONDecoder().decode(FloodTimeSteps.self, from: data)
    }

    /// Writes the grids, series and index of `snapshots` beside `<stem>_depth`.
    static func write(_ snapshots: [FloodSnapshot], stem: String, start: Date, clock: Clock, rasters: ResultRasters,
                      network: HydraulicNetwork, roads: [(id: String, geometry: Geometry, name: String)],
                      permanentWater: Grid? = nil) throws -> FloodTimeSteps {
        let layer = stem + "_depth"
        // Stale steps of an earlier run (another output interval) must not mix with this run's.
        for name in rasters.names(layer: layer) where name.hasPrefix(layer + "_t") {
            if let url = rasters.file(layer: layer, name: name) { try? FileManager.default.removeItem(at: url) }
        }
        var steps: [Step] = []
        for snapshot in snapshots {
            let name = "\(layer)_t\(String(format: "%06d", Int(snapshot.time.rounded()))).asc"
            try rasters.write(snapshot.depth, layer: layer, name: name, precision: 3)
            steps.append(Step(datetime: ScenarioInstant.text(start.addingTimeInterval(snapshot.time.rounded())), seconds: snapshot.time.rounded(),
                              raster: name))
        }
        func r3(_ v: Float) -> Double { (Double(v) * 1000).rounded() / 1000 }
        // Hydrographs at the nodes.
        let nodeIDs = network.nodes.map(\.id)
        var nodeCSV = "node_id,datetime,seconds,depth_m\n"
        var nodeSeries: [String: JSONValue] = [:]
        for (i, id) in nodeIDs.enumerated() {
            var values: [JSONValue] = []
            for (k, snapshot) in snapshots.enumerated() {
                let d = r3(Swift.max(0, snapshot.nodeDepths[i]))
                nodeCSV += "\(csvField(id)),\(steps[k].datetime),\(Int(steps[k].seconds)),\(d)\n"
                values.append(.number(d))
            }
            nodeSeries[id] = .array(values)
        }
        // Depth over time on the roads: the cells sampled along each road, then their deepest water per step.
        var roadCSV = "road_id,datetime,seconds,max_depth_m\n"
        var roadSeries: [String: JSONValue] = [:]
        if let grid = snapshots.first?.depth {
            let half = grid.geoTransform.pixelWidth / 2
            for road in roads {
                var cells = Set<Int>()
                var parts: [[Position]] = []
                switch road.geometry {
                case .lineString(let l): parts = [l.positions]
                case .multiLineString(let m): parts = m.lineStrings.map(\.positions)
                default: continue
                }
                for line in parts {
                    for (a, b) in zip(line, line.dropFirst()) {
                        let n = Swift.max(1, Int((hypot(b.x - a.x, b.y - a.y) / half).rounded(.up)))
                        for j in 0...n {
                            let t = Double(j) / Double(n)
                            if let (c, r) = grid.cell(containing: Position(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)) {
                                cells.insert(r * grid.width + c)
                            }
                        }
                    }
                }
                var values: [JSONValue] = []
                for (k, snapshot) in snapshots.enumerated() {
                    let depths = snapshot.depth.values
                    let d = r3(cells.reduce(Float(0)) { Swift.max($0, depths[$1]) })
                    roadCSV += "\(csvField(road.id)),\(steps[k].datetime),\(Int(steps[k].seconds)),\(d)\n"
                    values.append(.number(d))
                }
                roadSeries[road.id] = .array(values)
            }
        }
        let times: JSONValue = .array(steps.map { .string($0.datetime) })
        let encoder = JSONOutput.encoder(.resultFile)
        var series: [String: String] = [:]
        series["nodeDepthsCSV"] = try rasters.write(Data(nodeCSV.utf8), layer: layer, name: "\(stem)_node_depths.csv")
        series["nodeDepthsJSON"] = try rasters.write(encoder.encode(JSONValue.object(["datetimes": times, "unit": "m", "depth_m": .object(nodeSeries)])),
                                                     layer: layer, name: "\(stem)_node_depths.json")
        series["roadDepthsCSV"] = try rasters.write(Data(roadCSV.utf8), layer: layer, name: "\(stem)_road_depths.csv")
        series["roadDepthsJSON"] = try rasters.write(encoder.encode(JSONValue.object(["datetimes": times, "unit": "m", "max_depth_m": .object(roadSeries)])),
                                                     layer: layer, name: "\(stem)_road_depths.json")
        var waterName: String?
        if let permanentWater {
            waterName = "\(layer)_permanent_water.asc"
            try rasters.write(permanentWater, layer: layer, name: waterName!, precision: 0)
        }
        let index = FloodTimeSteps(layer: layer, start: ScenarioInstant.text(start), clock: clock, steps: steps, series: series,
                                   permanentWater: waterName)
        try rasters.write(encoder.encode(index), layer: layer, name: indexName)
        return index
    }

    /// A node's or road's id as a CSV field (`CSVField`: ids are text, read from the store's layers).
    private static func csvField(_ s: String) -> String { CSVField.text(s) }
}
