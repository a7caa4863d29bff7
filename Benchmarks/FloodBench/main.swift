// flood-bench: the 2D surface kernel's throughput (cell-steps per second) on 1 and 2 threads,
// on the grid and scenario that Benchmarks/flood/surface_peers.py gives landlab and itzi:
// SIZE x SIZE cells of 2 m read from DIR/dem_SIZE.f32 (row-major float32, row 0 north), 0.05 m
// of water at the start, 50 mm/h of rain, Manning n 0.03, closed edges, fixed 0.5 s steps.
// With them, the machine's memory bandwidth (a STREAM-like copy of two 512 MiB arrays, one thread)
// and the share of it the kernel reaches at its estimated traffic per cell-step (issue 57: the
// kernel is memory-bandwidth bound on a city's grid).
//   flood-bench DIR [SIZE=1024] [STEPS=100]      prints one JSON line
import FloodSim
import Foundation
import GeoCore

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write("usage: flood-bench DIR [SIZE] [STEPS]\n".data(using: .utf8)!)
    exit(2)
}
let directory = arguments[1]
let size = arguments.count > 2 ? Int(arguments[2]) ?? 1024 : 1024
let steps = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100
let cellSize = 2.0, manningN = 0.03, rainMMh = 50.0, initialDepth: Float = 0.05, timeStep = 0.5

let path = "\(directory)/dem_\(size).f32"
guard let bytes = FileManager.default.contents(atPath: path), bytes.count == size * size * 4 else {
    FileHandle.standardError.write("flood-bench: \(path) missing or not \(size)x\(size) float32 (run surface_peers.py make-inputs)\n".data(using: .utf8)!)
    exit(2)
}
let values = bytes.withUnsafeBytes { raw in
    (0..<(size * size)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
}
let transform = GeoTransform.northUp(west: 0, north: Double(size) * cellSize, cellWidth: cellSize, cellHeight: cellSize)
let dem = try Grid(width: size, height: size, geoTransform: transform, values: values)
let depth = try Grid(width: size, height: size, geoTransform: transform, repeating: initialDepth)
let domain = try SurfaceDomain(elevation: dem, roughness: .uniform(manningN))

func measure(threads: Int) throws -> [String: Double] {
    let flow = try SurfaceFlow(domain: domain, rainfall: .constant(rainMMh),
                               settings: SurfaceFlowSettings(threads: threads), initialDepth: depth)
    flow.step(maxTimeStep: timeStep)  // warm-up, as the peers do
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<steps { flow.step(maxTimeStep: timeStep) }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    let balance = flow.volumeBalance
    return ["seconds": seconds, "steps": Double(steps), "cells": Double(size * size),
            "cell_steps_per_s": Double(size * size * steps) / seconds,
            "simulated_s": flow.time, "storage_m3": balance.storage,
            "continuity_error_pct": balance.relativeError * 100]
}

func loadAverage() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
          let first = text.split(separator: " ").first, let value = Double(first) else { return -1 }
    return value
}

/// Bytes one cell-step moves between memory and the cores, from SurfaceKernel's layout (each sweep
/// streams its arrays once; a row's neighbours come from cache): momentum reads z, h, n², the old
/// qx and qy and writes the new (32 B); the limiter reads h and the new q and writes the limit
/// (20 B); continuity reads the new q, the limit, h, rain weight, loss, maximum depth and its time
/// and writes h, the old q and the maxima (60 B).
let bytesPerCellStep = 112.0

/// The best of five copies of a 512 MiB array into another on one thread (STREAM's "copy"):
/// bytes read plus bytes written per second.
func copyBandwidth() -> Double {
    let count = 64 << 20   // Doubles: 512 MiB, far beyond any cache
    let source = UnsafeMutablePointer<Double>.allocate(capacity: count)
    let target = UnsafeMutablePointer<Double>.allocate(capacity: count)
    defer { source.deallocate(); target.deallocate() }
    source.initialize(repeating: 1, count: count)
    target.initialize(repeating: 0, count: count)
    var best = Double.infinity
    let clock = ContinuousClock()
    for _ in 0..<5 {
        let start = clock.now
        target.update(from: source, count: count)
        let elapsed = start.duration(to: clock.now)
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return 2 * Double(count * MemoryLayout<Double>.stride) / best
}

let loadBefore = loadAverage()
let bandwidth = copyBandwidth()
let one = try measure(threads: 1)
let two = try measure(threads: 2)
let report: [String: Any] = ["size": size, "one_thread": one, "two_threads": two,
                             "load_average_1min": loadBefore,
                             "memory": ["copy_bytes_per_s": bandwidth, "bytes_per_cell_step": bytesPerCellStep,
                                        "one_thread_share": one["cell_steps_per_s"]! * bytesPerCellStep / bandwidth]]
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
