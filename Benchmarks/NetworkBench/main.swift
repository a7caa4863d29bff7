// network-bench: the Swift side of Benchmarks/network/run.sh (routing against pgRouting).
//
//   network-bench DIR [SIDE=225] [ISO_ROUNDS=1]
//
// Generates a deterministic jittered grid city of SIDE × SIDE intersections (SIDE = 225 gives
// 100,800 road pieces, ~27 km square, EPSG:4547 metres) with expressways, arterials, one-way
// minor streets and 50 "shelters"; writes it for the peer as DIR/edges.csv and DIR/points.csv
// (pgRouting's edge table and pgr_withPoints points); then times, on one thread:
//   * preprocessing (network split + contraction hierarchy, driving profile);
//   * nearest-N: the 3 fastest of 50 shelters from an incident, with route geometries;
//   * one-to-many: travel times from one point to 1,000 points;
//   * a 15-minute service area: reachability (partial roads) alone, and with its polygon (raster
//     construction; `isochrone15_polygon_ms` is the whole query, reach included).
// Prints one JSON object with mean milliseconds per query and answer checksums the runner
// compares with pgRouting's.
import Foundation
import GeoCore
import NetworkAnalysis

func gridCity(side: Int, rng: inout SplitMix64) -> [RoadLine] {
    let spacing = 120.0, x0 = 480_000.0, y0 = 3_370_000.0
    var p = [Position](repeating: Position(x: 0, y: 0), count: side * side)
    for i in 0..<side { for j in 0..<side {
        p[i * side + j] = Position(x: x0 + Double(i) * spacing + (rng.unit() - 0.5) * 40,
                                   y: y0 + Double(j) * spacing + (rng.unit() - 0.5) * 40)
    } }
    var lines: [RoadLine] = []
    for axis in 0..<2 {
        for a in 0..<side {
            let (cls, speed): (String, Double) = a % 25 == 0 ? ("快速路", 80) : a % 5 == 0 ? ("主干路", 50) : ("支路", 30)
            let oneway = cls == "支路" && a % 5 == 2
            var b = 0
            while b < side - 1 {
                let end = min(side - 1, b + 10)
                var c = (b...end).map { k in axis == 0 ? p[a * side + k] : p[k * side + a] }
                if oneway && a % 10 == 2 { c.reverse() }
                lines.append(RoadLine(id: "R\(lines.count + 1)", coordinates: c, speedKmh: speed, oneway: oneway, roadClass: cls))
                b = end
            }
        }
    }
    return lines
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let t = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9
}

/// CPU seconds this thread spent in `body` (the machine is shared: wall time alone overstates).
func cpuSeconds(_ body: () throws -> Void) rethrows -> Double {
    var a = timespec(), b = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a)
    try body()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b)
    return Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9
}

func runBenchmark() throws {
    let args = CommandLine.arguments
    let dir = URL(fileURLWithPath: args.count > 1 ? args[1] : "Benchmarks/.data/network")
    let side = args.count > 2 ? Int(args[2]) ?? 225 : 225
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    var rng = SplitMix64(seed: 20_260_521)
    let lines = gridCity(side: side, rng: &rng)

    var network0: RoadNetwork?
    let splitSeconds = try seconds { network0 = try RoadNetwork(lines: lines) }
    let network = network0!
    var graph0: RoadGraph?
    let chSeconds = seconds { graph0 = RoadGraph(network: network, profile: .driving) }
    let graph = graph0!
    let pieces = network.pieces
    let bounds = Envelope(of: network.nodes)!

    func randomPoint() -> EdgePosition {
        let q = Position(x: bounds.minX + rng.unit() * (bounds.maxX - bounds.minX),
                         y: bounds.minY + rng.unit() * (bounds.maxY - bounds.minY))
        return network.snap(q)!
    }
    let shelters = (0..<50).map { _ in randomPoint() }
    let nearestOrigins = (0..<40).map { _ in randomPoint() }
    let otmOrigins = (0..<10).map { _ in randomPoint() }
    let otmTargets = (0..<1000).map { _ in randomPoint() }
    // Isochrone origins near the middle, so 15 minutes stays inside the city.
    let isoOrigins = (0..<3).map { _ in
        network.snap(Position(x: bounds.minX + (0.4 + 0.2 * rng.unit()) * (bounds.maxX - bounds.minX),
                              y: bounds.minY + (0.4 + 0.2 * rng.unit()) * (bounds.maxY - bounds.minY)))!
    }

    // Peer inputs: pieces as pgRouting edges (id = piece + 1, vertices = node + 1; cost in seconds,
    // reverse_cost -1 when one-way), points as pgr_withPoints points (pid, edge_id, fraction).
    var edges = "id,source,target,cost,reverse_cost\n"
    for (i, p) in pieces.enumerated() {
        let line = network.lines[Int(p.line)]
        let fwd = p.length / (line.speedKmh / 3.6)
        let oneway = line.oneway
        edges += "\(i + 1),\(p.from + 1),\(p.to + 1),\(fwd),\(oneway ? -1 : fwd)\n"
    }
    try edges.write(to: dir.appendingPathComponent("edges.csv"), atomically: true, encoding: .utf8)
    var points = "pid,edge_id,fraction,kind\n"
    var pid = 0
    func emit(_ list: [EdgePosition], _ kind: String) {
        for e in list {
            pid += 1
            let len = pieces[e.piece].length
            points += "\(pid),\(e.piece + 1),\(len > 0 ? e.offset / len : 0),\(kind)\n"
        }
    }
    emit(shelters, "shelter"); emit(nearestOrigins, "nearest_origin"); emit(otmOrigins, "otm_origin")
    emit(otmTargets, "otm_target"); emit(isoOrigins, "iso_origin")
    try points.write(to: dir.appendingPathComponent("points.csv"), atomically: true, encoding: .utf8)

    // Nearest-N.
    var nearestAnswers: [[Double]] = []
    let nearestTime = seconds {
        for o in nearestOrigins {
            let best = graph.nearest(from: o, targets: shelters, count: 3)
            nearestAnswers.append(best.map(\.seconds))
        }
    } / Double(nearestOrigins.count)
    // One-to-many.
    var otmChecksum = 0.0
    let otmTime = seconds {
        for o in otmOrigins {
            otmChecksum += graph.travelTimes(from: o, to: otmTargets).reduce(0) { $0 + ($1 ?? 0) }
        }
    } / Double(otmOrigins.count)
    // Service areas: reachability only, then with the polygon (raster construction), both as the
    // mean over the isochrone origins and `isoRounds` rounds (a 3rd argument, for profiling).
    let isoRounds = args.count > 3 ? max(1, Int(args[3]) ?? 1) : 1
    var reachedNodes: [Int] = []
    var reachCPU = 0.0, polygonCPU = 0.0
    let reachTime = try seconds { reachCPU = try cpuSeconds {
        for round in 0..<isoRounds {
            for o in isoOrigins {
                let n = try graph.serviceAreas(from: o, breaks: [900], polygons: false)[0].reachedNodes
                if round == 0 { reachedNodes.append(n) }
            }
        }
    } } / Double(isoOrigins.count * isoRounds)
    var polygonVertices = 0
    let polygonTime = try seconds { polygonCPU = try cpuSeconds {
        for round in 0..<isoRounds {
            for o in isoOrigins {
                let a = try graph.serviceAreas(from: o, breaks: [900])[0]
                if round == 0 { a.area.forEachPosition { _ in polygonVertices += 1 } }
            }
        }
    } } / Double(isoOrigins.count * isoRounds)
    // Plain Dijkstra (what closures fall back to), for context: one-to-all from the same origins.
    let dijkstraTime = seconds {
        for o in otmOrigins { _ = graph.travelTimes(from: o, to: otmTargets, avoiding: RoadClosures(pieces: [Int.max])) }
    } / Double(otmOrigins.count)

    let report: [String: Any] = [
        "network": ["side": side, "lines": lines.count, "nodes": network.nodes.count, "pieces": pieces.count,
                    "arcs": graph.arcCount, "shortcuts": graph.hierarchy.shortcutCount],
        "preprocess_seconds": ["split": splitSeconds, "contraction": chSeconds],
        "nearest3_of_50_ms": nearestTime * 1000,
        "one_to_1000_ms": otmTime * 1000,
        "dijkstra_one_to_1000_ms": dijkstraTime * 1000,
        "isochrone15_reach_ms": reachTime * 1000,
        "isochrone15_polygon_ms": polygonTime * 1000,
        "isochrone15_reach_cpu_ms": reachCPU * 1000 / Double(isoOrigins.count * isoRounds),
        "isochrone15_polygon_cpu_ms": polygonCPU * 1000 / Double(isoOrigins.count * isoRounds),
        "isochrone15_reached_nodes": reachedNodes,
        "isochrone15_polygon_vertices": polygonVertices,
        "nearest3_answers": nearestAnswers,
        "one_to_1000_checksum": otmChecksum,
    ]
    let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

try runBenchmark()
