import CSurfaceSweeps
import Foundation
import GeoCore

/// The buffers and row-band sweeps of the local inertial scheme (flood.md §4). Internal: the
/// public face is `SurfaceFlow`, which owns one kernel and does the bookkeeping.
///
/// Layout (row-major, row 0 at the north edge):
/// - cell arrays `w·hgt`: bed `z`, depth `h`, Manning n² `n2`, rain weight, loss rate (m/s),
///   outflow limiter, maximum depth and its time;
/// - x faces `hgt·(w+1)`: face `k` of a row lies west of cell `k` (0 = west edge, `w` = east edge),
///   q positive eastward;
/// - y faces `(hgt+1)·w`: face row `j` lies north of cell row `j` (0 = north edge, `hgt` = south
///   edge), q positive southward (towards higher rows).
///
/// Precision: depth `h` is Double, so the continuity account stays exact to rounding; every
/// other array is Float, which halves memory traffic and lets one AVX register hold eight faces.
/// Bed elevations come from a Float grid, so storing them as Float loses nothing. Water levels
/// z + h and their differences are formed in Double (a Float level 30 m up has 2 µm steps,
/// enough to stir a lake at rest); the face depth and slope are then rounded to Float for the
/// momentum update. Each face's limited discharge is one Float value that both its cells
/// convert to Double, so what leaves one cell is exactly what enters the other.
///
/// A step is three sweeps over row bands, each band on its own thread: momentum (new q on every
/// face from the old q and the depths), limiter (the share of its outflow each cell can supply),
/// continuity (new depths, with each face's flow scaled by its donor cell's limiter so no cell
/// goes below zero). Every cell's arithmetic is the same whatever the banding, so results do
/// not depend on the thread count. All buffers are allocated once; a step allocates nothing.
///
/// The row loops themselves are C (CSurfaceSweeps), eight faces or cells at a time: the package
/// is built for baseline x86-64, where a four-lane Double select costs several SSE2
/// instructions, and Swift cannot compile one routine for two instruction sets. The C target
/// compiles each loop for the baseline and for AVX2, and `isa` picks the best the CPU has once.
/// All variants and their scalar twin do the same IEEE operations in the same order without
/// FMA, so a run gives the same bits on any x86-64, with or without AVX2 (SurfaceSweepTests).
final class SurfaceKernel: @unchecked Sendable {
    let width: Int
    let height: Int
    let dx: Double
    let bands: [Range<Int>]

    let z: UnsafeMutablePointer<Float>
    let h: UnsafeMutablePointer<Double>
    let n2: UnsafeMutablePointer<Float>
    let rainWeight: UnsafeMutablePointer<Float>
    /// Loss rate in m/s.
    let loss: UnsafeMutablePointer<Float>
    let blocked: UnsafeMutablePointer<Bool>
    /// Cells a fixed level holds at its stage (`SurfaceBoundary.FixedLevel`): an open edge lets
    /// nothing out of them (see `edgeOutflow`).
    let heldAtStage: UnsafeMutablePointer<Bool>
    /// Bed elevation given to blocked cells: any face touching one has face depth
    /// max(η) − max(z) = 10³⁰ − 10³⁰ = 0, so it is dry and carries nothing, without a face mask.
    static let blockedElevation: Float = 1e30
    /// Limiter per cell, padded by `width + 1` cells of 1 on each side so the continuity sweep can
    /// read the neighbours of edge cells without a branch.
    let limitStorage: UnsafeMutablePointer<Float>
    let limit: UnsafeMutablePointer<Float>
    /// Greatest depth (m) and the time it was reached (s): Float, as the result grids are.
    let maxDepth: UnsafeMutablePointer<Float>
    let timeOfMax: UnsafeMutablePointer<Float>
    /// Discharge of the last step after limiting: the momentum sweep's "previous" q.
    let qxOld: UnsafeMutablePointer<Float>
    /// Discharge from the momentum sweep, before limiting.
    let qxNew: UnsafeMutablePointer<Float>
    let qyOld: UnsafeMutablePointer<Float>
    let qyNew: UnsafeMutablePointer<Float>
    /// Per band partial sums, written only by the band's thread.
    let bandLoss: UnsafeMutablePointer<Double>
    let bandOutflow: UnsafeMutablePointer<Double>
    let bandMaxDepth: UnsafeMutablePointer<Double>
    /// Per band: the greatest flow velocity |q|/h_f on a wet face in the last momentum sweep (m/s).
    let bandMaxSpeed: UnsafeMutablePointer<Double>

    let westOpen: Bool, eastOpen: Bool, northOpen: Bool, southOpen: Bool
    /// Which compilation of the row sweeps runs: AVX2 where the CPU has it. The tests set the
    /// others to check that every variant gives the same bits.
    var isa = ct_surface_best_isa()

    // Parameters of the current step, set before the sweeps.
    var dt = 0.0
    var timeAfterStep = 0.0
    var rainDepth = 0.0
    let theta: Double
    let gravity: Double
    let dryDepth: Double

    init(domain: SurfaceDomain, rainWeights: Grid?, settings: SurfaceFlowSettings) {
        width = domain.width
        height = domain.height
        dx = domain.cellSize
        theta = settings.theta
        gravity = settings.gravity
        dryDepth = settings.dryDepth
        let rowCount = domain.height
        let bandCount = Swift.max(1, Swift.min(settings.threads, rowCount))
        bands = (0..<bandCount).map { b in (b * rowCount / bandCount)..<((b + 1) * rowCount / bandCount) }

        let n = width * height
        func buffer<T: BinaryFloatingPoint>(_ count: Int, _ value: T = 0) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: count)
            p.initialize(repeating: value, count: count)
            return p
        }
        z = buffer(n); h = buffer(n); n2 = buffer(n); rainWeight = buffer(n); loss = buffer(n)
        maxDepth = buffer(n); timeOfMax = buffer(n)
        blocked = .allocate(capacity: n)
        blocked.initialize(repeating: false, count: n)
        heldAtStage = .allocate(capacity: n)
        heldAtStage.initialize(repeating: false, count: n)
        for level in domain.boundary.fixedLevels {
            for cell in level.cells { heldAtStage[cell.row * width + cell.column] = true }
        }
        limitStorage = buffer(n + 2 * (width + 1), 1)
        limit = limitStorage + (width + 1)
        let nx = height * (width + 1), ny = (height + 1) * width
        qxOld = buffer(nx); qxNew = buffer(nx)
        qyOld = buffer(ny); qyNew = buffer(ny)
        bandLoss = buffer(bandCount)
        bandOutflow = buffer(bandCount); bandMaxDepth = buffer(bandCount); bandMaxSpeed = buffer(bandCount)

        westOpen = domain.boundary.west == .open
        eastOpen = domain.boundary.east == .open
        northOpen = domain.boundary.north == .open
        southOpen = domain.boundary.south == .open

        for i in 0..<n {
            let isBlocked = domain.isBlocked(index: i)
            blocked[i] = isBlocked
            z[i] = isBlocked ? SurfaceKernel.blockedElevation : domain.elevation.values[i]
            let manning = domain.manningN(index: i)
            n2[i] = Float(manning * manning)
            if isBlocked {
                rainWeight[i] = 0
            } else if let rainWeights {
                let v = rainWeights.values[i]
                rainWeight[i] = rainWeights.isValid(v) ? v : 0
            } else {
                rainWeight[i] = 1
            }
            loss[i] = isBlocked ? 0 : Float(domain.lossRate(index: i))
        }
    }

    deinit {
        for p in [z, n2, rainWeight, loss, maxDepth, timeOfMax, limitStorage, qxOld, qxNew, qyOld, qyNew] {
            p.deallocate()
        }
        for p in [h, bandLoss, bandOutflow, bandMaxDepth, bandMaxSpeed] { p.deallocate() }
        blocked.deallocate()
        heldAtStage.deallocate()
    }

    /// Runs `sweep` once per band: on the calling thread for one band, else concurrently.
    @inline(__always)
    func forEachBand(_ sweep: (Int, Range<Int>) -> Void) {
        if bands.count == 1 {
            sweep(0, bands[0])
        } else {
            let bands = self.bands
            withoutActuallyEscaping(sweep) { sweep in
                let box = SweepBox(sweep)
                DispatchQueue.concurrentPerform(iterations: bands.count) { b in box.sweep(b, bands[b]) }
            }
        }
    }

    /// One step of length `dt` ending at `timeAfterStep`, with `rainDepth` metres of rain
    /// (before cell weights). Sparse terms (sources, inflows, fixed levels) are the caller's.
    func step(dt: Double, timeAfterStep: Double, rainDepth: Double) {
        self.dt = dt
        self.timeAfterStep = timeAfterStep
        self.rainDepth = rainDepth
        forEachBand { b, rows in self.momentum(band: b, rows: rows) }
        forEachBand { _, rows in self.limiter(rows: rows) }
        forEachBand { b, rows in self.continuity(band: b, rows: rows) }
    }
}

/// Carries a non-escaping sweep into `concurrentPerform`'s `@Sendable` closure; each band
/// touches only its own rows and per-band slots, which is what makes this sound.
private struct SweepBox: @unchecked Sendable {
    let sweep: (Int, Range<Int>) -> Void
    init(_ sweep: @escaping (Int, Range<Int>) -> Void) { self.sweep = sweep }
}
