import Foundation
import GeoCore

/// Mutable working state while the sample district is generated. Stages work in local metres
/// (x east, y north from the district's south-west corner); `lonLat` places them in EPSG:4547
/// (adds the origin) and `reproject()` turns every geometry into EPSG:4490 in one PROJ batch.
final class DistrictDraft {
    var rng: SplitMix64
    /// Draws for layers added after the district's first release (signal timing data), so that
    /// adding them left every earlier layer as it was.
    var signalRNG: SplitMix64
    /// Draws for the parking guidance layers (occupancy history, berths, signs), added after signal timing.
    var parkingRNG: SplitMix64
    /// Draws for the fire-rescue layers (消防救援一张图), added after parking guidance.
    var fireRNG: SplitMix64
    let scale: Double
    /// District centre: 114.80°E 30.84°N (邾城) = E 576 531.8676 m, N 3 413 509.3414 m in EPSG:4547
    /// (PROJ 9.1.1: `echo "30.84 114.80" | cs2cs EPSG:4490 EPSG:4547`).
    static let centreGrid = Position(x: 576_531.8676, y: 3_413_509.3414)
    let terrain: DistrictTerrain
    /// District extent in metres and DEM cell size.
    let extent = 5000.0
    let cellSize = 10.0
    /// EPSG:4547 position of the local origin (the district's south-west corner).
    let origin: Position

    // Street grid: intersections at (gridX0 + col·spacing, gridY0 + row·spacing).
    let gridX0 = 800.0, gridY0 = 800.0, spacing = 200.0
    let columns: Int
    let rows: Int

    var layers: [String: [Feature]] = [:]

    // Shared results of earlier stages.
    var roads: [RoadSegment] = []
    var blocks: [Block] = []
    var communities: [Community] = []
    var buildings: [BuildingDraft] = []
    /// Ids of features that later stages attach sensors to.
    var drainageSensorTargets: [String] = []
    var waterSensorTargets: [String] = []
    var gaugeDevices: [(gauge: String, device: String, x: Double, y: Double, level: Double)] = []
    /// Signalised intersections by grid position, for the corridor.
    var signals: [(id: String, c: Int, r: Int)] = []

    init(seed: UInt64, scale: Double, tile: DistrictTile = .single) {
        self.scale = min(1, max(0.05, scale.isFinite ? scale : 1))
        rng = SplitMix64(seed: seed)
        signalRNG = SplitMix64(seed: seed ^ 0x5349_474E_414C_5331)
        parkingRNG = SplitMix64(seed: seed ^ 0x5041_524B_494E_4731)
        fireRNG = SplitMix64(seed: seed ^ 0x4649_5245_5245_5343)
        terrain = DistrictTerrain(rng: &rng)
        // Tile (0, 0) is the sample district; the others lie a district's width east and north per step.
        origin = Position(x: Self.centreGrid.x - extent / 2 + Double(tile.column) * extent,
                          y: Self.centreGrid.y - extent / 2 + Double(tile.row) * extent)
        let f = self.scale.squareRoot()
        columns = max(3, Int((16 * f).rounded())) + 1
        rows = max(3, Int((18 * f).rounded())) + 1
    }

    // MARK: coordinates

    func x(col: Int) -> Double { gridX0 + Double(col) * spacing }
    func y(row: Int) -> Double { gridY0 + Double(row) * spacing }

    /// Ground elevation in metres at local (x, y).
    func ground(_ x: Double, _ y: Double) -> Double { terrain.elevation(x: x, y: y) }

    /// The EPSG:4547 position (metres) of local metres; `reproject()` later turns it into EPSG:4490.
    func lonLat(_ x: Double, _ y: Double, z: Double? = nil) -> Position {
        Position(x: origin.x + x, y: origin.y + y, z: z.map(round3))
    }

    /// EPSG:4490 lon/lat of local metres, for the few coordinates stored in properties.
    func geographic(_ x: Double, _ y: Double) throws -> Position {
        round9(try CoordinateTransformer.shared(from: .districtMetric, to: .cgcs2000)
            .transform(lonLat(x, y)))
    }

    /// Transforms every feature geometry from EPSG:4547 to EPSG:4490 (one batch through GeoCore's
    /// cached PROJ transformer), rounding degrees to 1e-9° (about 0.1 mm).
    func reproject() throws {
        let transformer = try CoordinateTransformer.shared(from: .districtMetric, to: .cgcs2000)
        let keys = layers.keys.sorted()
        var all: [Position] = []
        for key in keys { for f in layers[key] ?? [] { f.geometry?.forEachPosition { all.append($0) } } }
        try transformer.transform(&all)
        var i = 0
        for key in keys {
            layers[key] = layers[key]?.map { f in
                var g = f
                g.geometry = f.geometry?.mapPositions { _ in
                    defer { i += 1 }
                    return round9(all[i])
                }
                return g
            }
        }
    }

    func point(_ x: Double, _ y: Double, z: Double? = nil) -> Geometry { .point(Point(lonLat(x, y, z: z))) }

    func line(_ pts: [(Double, Double)]) -> Geometry { .lineString(LineString(pts.map { lonLat($0.0, $0.1) })) }

    /// A closed polygon from local corners (counter-clockwise).
    func polygon(_ pts: [(Double, Double)]) -> Geometry {
        var ring = pts.map { lonLat($0.0, $0.1) }
        if let first = ring.first { ring.append(first) }
        return .polygon(Polygon(exterior: ring))
    }

    func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Geometry {
        polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    }

    func ellipse(cx: Double, cy: Double, rx: Double, ry: Double, segments: Int = 48) -> [(Double, Double)] {
        (0..<segments).map { i in
            let t = Double(i) / Double(segments) * 2 * .pi
            return (cx + rx * cos(t), cy + ry * sin(t))
        }
    }

    func add(_ layer: String, _ feature: Feature) { layers[layer, default: []].append(feature) }

    /// The DEM: 10 m cells, north-up, EPSG:4547, cell centres sampled from the terrain function.
    func elevationGrid() throws -> Grid {
        let n = Int(extent / cellSize)
        var values = [Float](repeating: 0, count: n * n)
        for r in 0..<n {
            let y = extent - (Double(r) + 0.5) * cellSize
            for c in 0..<n {
                values[r * n + c] = Float(ground((Double(c) + 0.5) * cellSize, y))
            }
        }
        return try Grid(width: n, height: n,
                        geoTransform: .northUp(west: origin.x, north: origin.y + extent, cellWidth: cellSize, cellHeight: cellSize),
                        values: values)
    }
}

// MARK: small value helpers

func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
func round2(_ v: Double) -> Double { (v * 100).rounded() / 100 }
func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
func round9(_ p: Position) -> Position { Position(x: (p.x * 1e9).rounded() / 1e9, y: (p.y * 1e9).rounded() / 1e9, z: p.z) }

/// `n` as a decimal string left-padded with zeros to `width` digits.
func padded(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

/// Chinese numerals for 1…99 (一, 十, 十一, 二十三).
func chineseNumeral(_ n: Int) -> String {
    let digits = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"]
    if n < 10 { return digits[n] }
    let tens = n / 10, ones = n % 10
    return (tens == 1 ? "" : digits[tens]) + "十" + (ones == 0 ? "" : digits[ones])
}

/// An ISO 8601 date string from components.
func isoDate(_ y: Int, _ m: Int, _ d: Int) -> String { "\(y)-\(padded(m, 2))-\(padded(d, 2))" }

func length(_ pts: [(Double, Double)]) -> Double {
    zip(pts, pts.dropFirst()).reduce(0) { $0 + hypot($1.1.0 - $1.0.0, $1.1.1 - $1.0.1) }
}
