// The Swift side of `Benchmarks/run.sh geocore`: the same inputs and the same timing rule
// (best of N wall-clock runs) as Benchmarks/peers/geocore_peers.py, printed as one JSON object.
import CGEOS
import Foundation
import GeoCore

let repeats = 5
guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: geocore-bench DATA_DIR\n".utf8))
    exit(2)
}
let data = URL(fileURLWithPath: CommandLine.arguments[1])

func readPairs(_ name: String) throws -> (xs: [Double], ys: [Double]) {
    let raw = try Data(contentsOf: data.appendingPathComponent(name))
    let n = raw.count / 16
    var xs = [Double](repeating: 0, count: n), ys = [Double](repeating: 0, count: n)
    raw.withUnsafeBytes { buf in
        for i in 0..<n {
            xs[i] = Double(bitPattern: UInt64(littleEndian: buf.loadUnaligned(fromByteOffset: i * 16, as: UInt64.self)))
            ys[i] = Double(bitPattern: UInt64(littleEndian: buf.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self)))
        }
    }
    return (xs, ys)
}

func best<T>(_ body: () throws -> T) rethrows -> (seconds: Double, result: T) {
    var bestTime = Double.infinity
    var last: T?
    for _ in 0..<repeats {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let r = try body()
        let dt = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        bestTime = min(bestTime, dt)
        last = r
    }
    return (bestTime, last!)
}

var results: [String: [String: Double]] = [:]

// 1. Batch transform CGCS2000 lon/lat -> Gauss-Krüger CM 114°E, 1 M points.
let lonlat = try readPairs("lonlat.f64")
let toGK = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: 4547))
let transformed = try best { () throws -> Double in
    var xs = lonlat.xs, ys = lonlat.ys
    try toGK.transform(xs: &xs, ys: &ys)
    return xs.reduce(0, +) + ys.reduce(0, +)
}
results["transform_4490_to_4547"] = ["seconds": transformed.seconds, "items": Double(lonlat.xs.count),
                                     "checksum": transformed.result]

// 2. Prepared point-in-polygon: a 2,000-vertex district boundary against 1 M points.
let district = try Geometry(wkt: String(contentsOf: data.appendingPathComponent("district.wkt"), encoding: .utf8))
let prepared = try PreparedGeometry(district)
let points = try readPairs("points.f64")
let containsXY = try best { () throws -> Int in
    var inside = 0
    for i in points.xs.indices where try prepared.contains(x: points.xs[i], y: points.ys[i]) { inside += 1 }
    return inside
}
results["prepared_contains_xy"] = ["seconds": containsXY.seconds, "items": Double(points.xs.count),
                                   "checksum": Double(containsXY.result)]

// 3. Buffer 10,000 building footprints and pipe lines by 5 m (8 quadrant segments): the batch
//    API (all cores, a GEOS context per worker thread) against shapely's vectorised buffer.
let toBuffer = try String(contentsOf: data.appendingPathComponent("buffer.wkt"), encoding: .utf8)
    .split(separator: "\n").map { try Geometry(wkt: String($0)) }
// Timed: the buffers only (as the peer's timing); the areas are the checksum, computed after.
let buffered = try best { () throws -> [Geometry] in try toBuffer.buffered(distance: 5) }
let bufferedArea = try buffered.result.reduce(0.0) { $0 + (try $1.area) }
results["buffer_5m_quad8"] = ["seconds": buffered.seconds, "items": Double(toBuffer.count), "checksum": bufferedArea]

// 3b. The same buffers one by one on one thread, and straight on GEOS (inputs already converted,
// results freed unread): the library's own time, so (3c) − (3b) is what the Swift layer costs.
let serial = try best { () throws -> [Geometry] in try toBuffer.map { try $0.buffer(distance: 5) } }
results["buffer_5m_quad8_one_thread"] = ["seconds": serial.seconds, "items": Double(toBuffer.count), "checksum": 0]
let natives = try toBuffer.map { try GEOSGeometry($0) }
let handle = GEOSContext.current.handle
let raw = best { () -> Double in
    var n = 0.0
    for g in natives {
        if let b = GEOSBuffer_r(handle, g.pointer, 5, 8) { n += 1; GEOSGeom_destroy_r(handle, b) }
    }
    return n
}
results["buffer_5m_quad8_geos_only"] = ["seconds": raw.seconds, "items": Double(natives.count), "checksum": raw.result]

var out: [String: Any] = results
out["_libraries"] = ["geos": LibraryVersions.geos, "proj": LibraryVersions.proj]
let json = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
