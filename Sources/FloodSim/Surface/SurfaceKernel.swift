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
/// other array is Float, which halves memory traffic and lets one SSE register hold four faces.
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
final class SurfaceKernel: @unchecked Sendable {
    typealias F4 = SIMD4<Float>
    typealias D4 = SIMD4<Double>

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

    /// Whether the sweeps run four faces or cells at a time. Debug builds go one at a time: the
    /// results are the same bits, and unspecialised SIMD code there is many times slower.
    #if DEBUG
    static let vectorised = false
    #else
    static let vectorised = true
    #endif

    // The sweeps index with wrapping arithmetic (`&+`, `&-`): indices stay within the padded
    // buffers by construction, and an overflow trap inside a loop stops LLVM vectorising it.
    // Every SIMD routine has a scalar twin doing the same IEEE operations in the same order, for
    // the last cells of a row and for debug builds; `max(x, 0)` is written (x + |x|)·½, which is
    // exact, because a Double SIMD select costs seven SSE2 instructions and `andpd` one.

    @inline(__always) static func load(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> F4 {
        UnsafeRawPointer(p + i).loadUnaligned(as: F4.self)
    }
    @inline(__always) static func load(_ p: UnsafeMutablePointer<Double>, _ i: Int) -> D4 {
        UnsafeRawPointer(p + i).loadUnaligned(as: D4.self)
    }
    @inline(__always) static func store(_ v: F4, _ p: UnsafeMutablePointer<Float>, _ i: Int) {
        UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: F4.self)
    }
    @inline(__always) static func store(_ v: D4, _ p: UnsafeMutablePointer<Double>, _ i: Int) {
        UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: D4.self)
    }
    @inline(__always) static func magnitude(_ x: D4) -> D4 {
        unsafeBitCast(unsafeBitCast(x, to: SIMD4<UInt64>.self) & 0x7FFF_FFFF_FFFF_FFFF, to: D4.self)
    }
    @inline(__always) static func positivePart(_ x: D4) -> D4 { (x + magnitude(x)) * 0.5 }
    @inline(__always) static func positivePart(_ x: Double) -> Double { (x + x.magnitude) * 0.5 }

    // MARK: Momentum

    /// `x^(-1/3)` for x > 0 without a libm call: a guess from the bits (the bit pattern divided
    /// by 3 with shifts and adds, ≤ 3.5 % off) refined by three Newton steps r·(4/3 − (x/3)·r³) to 2·10⁻⁷,
    /// Float rounding (written so, LLVM keeps every step on whole SSE registers). SSE2 has no 32-bit vector multiply, hence the shifts.
    @inline(__always)
    static func inverseCubeRoot(_ x: F4) -> F4 {
        let bits = unsafeBitCast(x, to: SIMD4<UInt32>.self)
        var third = (bits &>> 2) &+ (bits &>> 4)
        third = third &+ (third &>> 4)
        third = third &+ (third &>> 8)                      // ≈ bits / 3 (0.3333282)
        var r = unsafeBitCast(SIMD4<UInt32>(repeating: 0x54A2_1D2A) &- third, to: F4.self)
        let xThird = x * F4(repeating: 1.0 / 3.0), fourThirds = F4(repeating: 4.0 / 3.0)
        r = r * (fourThirds - xThird * (r * r * r))
        r = r * (fourThirds - xThird * (r * r * r))
        r = r * (fourThirds - xThird * (r * r * r))
        return r
    }

    @inline(__always)
    static func inverseCubeRoot(_ x: Float) -> Float {
        let bits = x.bitPattern
        var third = (bits &>> 2) &+ (bits &>> 4)
        third = third &+ (third &>> 4)
        third = third &+ (third &>> 8)
        var r = Float(bitPattern: 0x54A2_1D2A &- third)
        let xThird = x * Float(1.0 / 3.0), fourThirds = Float(4.0 / 3.0)
        r = r * (fourThirds - xThird * (r * r * r))
        r = r * (fourThirds - xThird * (r * r * r))
        r = r * (fourThirds - xThird * (r * r * r))
        return r
    }

    /// Constants of the momentum update for one step.
    struct MomentumStep {
        var gdt: Float, invDx: Float, theta: Float, halfRest: Float, dry: Float
    }

    /// The momentum update (flood.md §4.2) of four faces between cells a and b (b east or south of
    /// a): returns the new unit discharge (m²/s; 0 on dry or closed faces) and |q|/h_f (m/s).
    /// Face depth h_f = max(η) − max(z) is formed as (η_a − max z) + max(η_b − η_a, 0), which
    /// needs no Double select; next to a blocked cell (z = 10³⁰) both terms cancel exactly.
    @inline(__always)
    static func faceDischarge(za: F4, zb: F4, ha: D4, hb: D4, q0: F4, qBefore: F4, qAfter: F4,
                              n2a: F4, n2b: F4, _ k: MomentumStep) -> (q: F4, speed: F4) {
        let zmax = za.replacing(with: zb, where: zb .> za)
        let ea = D4(za) + ha, eb = D4(zb) + hb
        let rise = F4(eb - ea)
        let zero = F4(repeating: 0), dry = F4(repeating: k.dry), gdt = F4(repeating: k.gdt)
        let hf = F4(ea - D4(zmax)) + zero.replacing(with: rise, where: rise .> zero)
        let wet = hf .> dry
        let hs = dry.replacing(with: hf, where: wet)
        let qTheta = k.theta * q0 + k.halfRest * (qBefore + qAfter)
        let n2f = 0.5 * (n2a + n2b)
        let r = inverseCubeRoot(hs), r3 = r * r * r          // hs^(-1/3), 1/hs
        let magnitude = q0.replacing(with: -q0, where: q0 .< zero)
        let friction = gdt * n2f * magnitude * (r3 * r3 * r)   // g·Δt·n²·|q|/hs^(7/3)
        let q = (qTheta - gdt * hs * rise * k.invDx) / (1 + friction)
        let speed = q.replacing(with: -q, where: q .< zero) * r3
        return (zero.replacing(with: q, where: wet), zero.replacing(with: speed, where: wet))
    }

    @inline(__always)
    static func faceDischarge(za: Float, zb: Float, ha: Double, hb: Double, q0: Float, qBefore: Float,
                              qAfter: Float, n2a: Float, n2b: Float, _ k: MomentumStep) -> (q: Float, speed: Float) {
        let zmax = zb > za ? zb : za
        let ea = Double(za) + ha, eb = Double(zb) + hb
        let rise = Float(eb - ea)
        let hf = Float(ea - Double(zmax)) + (rise > 0 ? rise : 0)
        let wet = hf > k.dry
        let hs = wet ? hf : k.dry
        let qTheta = k.theta * q0 + k.halfRest * (qBefore + qAfter)
        let n2f = 0.5 * (n2a + n2b)
        let r = inverseCubeRoot(hs), r3 = r * r * r
        let magnitude = q0 < 0 ? -q0 : q0
        let friction = k.gdt * n2f * magnitude * (r3 * r3 * r)
        let q = (qTheta - k.gdt * hs * rise * k.invDx) / (1 + friction)
        let speed = (q < 0 ? -q : q) * r3
        return (wet ? q : 0, wet ? speed : 0)
    }

    /// The momentum update of `count` faces, face i lying between cells `za[i]` (west or north)
    /// and `zb[i]`: new discharge into `out[i]`; returns the greatest |q|/h_f. One routine for x
    /// and y faces (the callers offset the pointers), kept out of line so that LLVM sees one
    /// straight loop.
    @inline(never)
    static func sweepFaces(count: Int, za: UnsafeMutablePointer<Float>, zb: UnsafeMutablePointer<Float>,
                           ha: UnsafeMutablePointer<Double>, hb: UnsafeMutablePointer<Double>,
                           n2a: UnsafeMutablePointer<Float>, n2b: UnsafeMutablePointer<Float>,
                           q0: UnsafeMutablePointer<Float>, qBefore: UnsafeMutablePointer<Float>,
                           qAfter: UnsafeMutablePointer<Float>, out: UnsafeMutablePointer<Float>,
                           _ k: MomentumStep) -> Float {
        typealias K = SurfaceKernel
        var fastestV = F4(repeating: 0)
        var i = 0
        while K.vectorised, i &+ 4 <= count {
            let (q, speed) = K.faceDischarge(
                za: K.load(za, i), zb: K.load(zb, i), ha: K.load(ha, i), hb: K.load(hb, i),
                q0: K.load(q0, i), qBefore: K.load(qBefore, i), qAfter: K.load(qAfter, i),
                n2a: K.load(n2a, i), n2b: K.load(n2b, i), k)
            K.store(q, out, i)
            fastestV = fastestV.replacing(with: speed, where: speed .> fastestV)
            i &+= 4
        }
        var fastest = fastestV.max()
        while i < count {
            let (q, speed) = K.faceDischarge(
                za: za[i], zb: zb[i], ha: ha[i], hb: hb[i], q0: q0[i], qBefore: qBefore[i],
                qAfter: qAfter[i], n2a: n2a[i], n2b: n2b[i], k)
            out[i] = q
            fastest = speed > fastest ? speed : fastest
            i &+= 1
        }
        return fastest
    }

    /// New unit discharge on the faces of `rows` (x faces of those rows, y faces north of them,
    /// and the south edge for the last row), flood.md §4.2.
    func momentum(band: Int, rows: Range<Int>) {
        let w = width, hgt = height
        var fastest: Float = 0
        let k = MomentumStep(gdt: Float(gravity * dt), invDx: Float(1 / dx), theta: Float(theta),
                             halfRest: Float(0.5 * (1 - theta)), dry: Float(dryDepth))
        for r in rows {
            let zr = z + r * w, hr = h + r * w, nr = n2 + r * w
            let qo = qxOld + r * (w + 1), qn = qxNew + r * (w + 1)
            // x face f (1..<w) lies between cells f-1 and f.
            if w > 1 {
                fastest = Swift.max(fastest, SurfaceKernel.sweepFaces(
                    count: w - 1, za: zr, zb: zr + 1, ha: hr, hb: hr + 1, n2a: nr, n2b: nr + 1,
                    q0: qo + 1, qBefore: qo, qAfter: qo + 2, out: qn + 1, k))
            }
            qn[0] = westOpen ? Float(-edgeOutflow(cell: r * w, inner: w > 1 ? r * w + 1 : -1, q0: -Double(qo[0]))) : 0
            qn[w] = eastOpen ? Float(edgeOutflow(cell: r * w + w - 1, inner: w > 1 ? r * w + w - 2 : -1, q0: Double(qo[w]))) : 0

            // y faces north of row r (interior faces for r ≥ 1, the north edge for r = 0).
            if r == 0 {
                let qo = qyOld, qn = qyNew
                for c in 0..<w {
                    qn[c] = northOpen ? Float(-edgeOutflow(cell: c, inner: hgt > 1 ? w + c : -1, q0: -Double(qo[c]))) : 0
                }
            } else {
                let up = (r - 1) * w
                fastest = Swift.max(fastest, SurfaceKernel.sweepFaces(
                    count: w, za: z + up, zb: zr, ha: h + up, hb: hr, n2a: n2 + up, n2b: nr,
                    q0: qyOld + r * w, qBefore: qyOld + up, qAfter: qyOld + (r + 1) * w, out: qyNew + r * w, k))
            }
            if r == hgt - 1 {
                let qo = qyOld + hgt * w, qn = qyNew + hgt * w
                for c in 0..<w {
                    qn[c] = southOpen
                        ? Float(edgeOutflow(cell: r * w + c, inner: hgt > 1 ? (r - 1) * w + c : -1, q0: Double(qo[c]))) : 0
                }
            }
        }
        bandMaxSpeed[band] = Double(fastest)
    }

    /// Outward unit discharge (≥ 0, m²/s) through the open edge face of `cell`, whose inward
    /// neighbour is `inner` (-1 for none): the θ = 1 momentum update with the edge cell's depth
    /// as face depth and the steeper of the outward bed and water-surface slopes, never inward.
    /// `q0` is the previous outward discharge.
    ///
    /// A cell held at a stage lets nothing out through the edge: the water beyond the edge is the
    /// same river at the same stage, so there is no surface slope across the face, and the bed
    /// slope of a river held at a level says nothing about flow. (Draining it by the bed slope
    /// towards a levee cell inside, then refilling it to the stage, made a river cell on the
    /// south edge of the district's 100 m grid pour 637,000 m³/s through the edge: a boundary
    /// inflow and outflow of 573 million m³ in 15 minutes that cancelled in the balance.)
    @inline(__always)
    func edgeOutflow(cell: Int, inner: Int, q0: Double) -> Double {
        let he = h[cell]
        guard !blocked[cell], !heldAtStage[cell], he > dryDepth else { return 0 }
        var slope = 0.0
        let zc = Double(z[cell])
        if inner >= 0, !blocked[inner] {
            let zi = Double(z[inner])
            let bed = (zi - zc) / dx
            let surface = (zi + h[inner] - zc - he) / dx
            slope = Swift.max(0, bed, surface)
        }
        let gdt = gravity * dt
        let previous = Swift.max(0, q0)
        let r = Double(SurfaceKernel.inverseCubeRoot(Float(he)))
        let friction = gdt * Double(n2[cell]) * previous * r / (he * he)
        return (previous + gdt * he * slope) / (1 + friction)
    }

    // MARK: Limiter

    /// Limiters are scaled by 1 − 2⁻²⁰ so that Float rounding of the limiter and of q·limiter can
    /// never draw a cell below zero (which the clamp would turn into created water).
    static let limiterMargin: Float = 1 - 1.0 / 1_048_576

    /// For each cell of `rows`, the fraction of its computed outflow that its water can supply
    /// in this step (1 when it holds enough). Written `ratio < 1 ? ratio : 1`, so a cell with
    /// no outflow (ratio ∞ or 0/0 = NaN) gets 1.
    func limiter(rows: Range<Int>) {
        let w = width
        let scale = dt / dx
        let scaleV = D4(repeating: scale)
        let zero = F4(repeating: 0), one = F4(repeating: 1), margin = SurfaceKernel.limiterMargin
        typealias K = SurfaceKernel
        for r in rows {
            let hr = h + r * w, lr = limit + r * w
            let qx = qxNew + r * (w + 1), qn = qyNew + r * w, qs = qyNew + (r + 1) * w
            var c = 0
            while K.vectorised, c &+ 4 <= w {
                let west = -K.load(qx, c), east = K.load(qx, c &+ 1), north = -K.load(qn, c), south = K.load(qs, c)
                let out = (D4(zero.replacing(with: west, where: west .> zero)) + D4(zero.replacing(with: east, where: east .> zero)))
                    + (D4(zero.replacing(with: north, where: north .> zero)) + D4(zero.replacing(with: south, where: south .> zero)))
                let ratio = F4(K.load(hr, c) / (out * scaleV)) * margin
                K.store(one.replacing(with: ratio, where: ratio .< one), lr, c)
                c &+= 4
            }
            while c < w {
                let west = -qx[c], east = qx[c &+ 1], north = -qn[c], south = qs[c]
                let out = (Double(west > 0 ? west : 0) + Double(east > 0 ? east : 0))
                    + (Double(north > 0 ? north : 0) + Double(south > 0 ? south : 0))
                let ratio = Float(hr[c] / (out * scale)) * margin
                lr[c] = ratio < 1 ? ratio : 1
                c &+= 1
            }
        }
    }

    // MARK: Continuity

    /// New depths of the cells of `rows` (flood.md §4.3), rain and loss, maximum-depth tracking;
    /// writes each face's limited ("effective") discharge into the old-q buffers, which become
    /// the next step's previous discharge. Partial sums go to the band's slots.
    func continuity(band: Int, rows: Range<Int>) {
        let w = width, hgt = height
        let scale = dt / dx
        let rain = rainDepth, t1 = Float(timeAfterStep), dt = self.dt
        var lossSum = 0.0, outflow = 0.0, deepest: Float = 0
        var lossV = D4(repeating: 0), deepestV = F4(repeating: 0)
        let zero = F4(repeating: 0), scaleV = D4(repeating: scale), rainV = D4(repeating: rain)
        let dtV = D4(repeating: dt), t1V = F4(repeating: t1)
        typealias K = SurfaceKernel
        for r in rows {
            let hr = h + r * w, lr = limit + r * w
            let qx = qxNew + r * (w + 1), qn = qyNew + r * w, qs = qyNew + (r + 1) * w
            let ex = qxOld + r * (w + 1), es = qyOld + (r + 1) * w
            let rw = rainWeight + r * w, lo = loss + r * w
            let mx = maxDepth + r * w, tm = timeOfMax + r * w
            var c = 0
            while K.vectorised, c &+ 4 <= w {
                let qw = K.load(qx, c), qe = K.load(qx, c &+ 1), qnn = K.load(qn, c), qss = K.load(qs, c)
                let here = K.load(lr, c)
                let fw = here.replacing(with: K.load(lr, c &- 1), where: qw .> zero)
                let fe = K.load(lr, c &+ 1).replacing(with: here, where: qe .> zero)
                let fn = here.replacing(with: K.load(lr, c &- w), where: qnn .> zero)
                let fs = K.load(lr, c &+ w).replacing(with: here, where: qss .> zero)
                let effW = qw * fw, effE = qe * fe, effN = qnn * fn, effS = qss * fs
                let net = (D4(effW) - D4(effE)) + (D4(effN) - D4(effS))
                var d = K.load(hr, c) + net * scaleV + rainV * D4(K.load(rw, c))
                let available = K.positivePart(d)
                let want = D4(K.load(lo, c)) * dtV
                let lost = (want + available - K.magnitude(want - available)) * 0.5   // min(want, available)
                d = K.positivePart(d - lost)
                K.store(d, hr, c)
                lossV += lost
                let df = F4(d)
                let previous = K.load(mx, c)
                let deeper = df .> previous
                K.store(previous.replacing(with: df, where: deeper), mx, c)
                K.store(K.load(tm, c).replacing(with: t1V, where: deeper), tm, c)
                deepestV = deepestV.replacing(with: df, where: df .> deepestV)
                K.store(effE, ex, c &+ 1)
                K.store(effS, es, c)
                c &+= 4
            }
            while c < w {
                let qw = qx[c], qe = qx[c &+ 1], qnn = qn[c], qss = qs[c]
                let fw = qw > 0 ? lr[c &- 1] : lr[c]
                let fe = qe > 0 ? lr[c] : lr[c &+ 1]
                let fn = qnn > 0 ? lr[c &- w] : lr[c]
                let fs = qss > 0 ? lr[c] : lr[c &+ w]
                let effW = qw * fw, effE = qe * fe, effN = qnn * fn, effS = qss * fs
                let net = (Double(effW) - Double(effE)) + (Double(effN) - Double(effS))
                var d = hr[c] + net * scale + rain * Double(rw[c])
                let available = K.positivePart(d)
                let want = Double(lo[c]) * dt
                let lost = (want + available - (want - available).magnitude) * 0.5
                d = K.positivePart(d - lost)
                hr[c] = d
                lossSum += lost
                let df = Float(d)
                if df > mx[c] { mx[c] = df; tm[c] = t1 }
                deepest = df > deepest ? df : deepest
                ex[c &+ 1] = effE
                es[c] = effS
                c &+= 1
            }
            // Edge faces: the effective discharge and what left through open edges.
            let effWestEdge = qx[0] * lr[0]
            ex[0] = effWestEdge
            outflow += (Double(ex[w]) - Double(effWestEdge)) * dt * dx
            if r == 0 {
                for c in 0..<w {
                    let eff = qn[c] * lr[c]
                    qyOld[c] = eff
                    outflow -= Double(eff) * dt * dx
                }
            }
            if r == hgt - 1 {
                for c in 0..<w { outflow += Double(es[c]) * dt * dx }
            }
        }
        lossSum += (lossV[0] + lossV[1]) + (lossV[2] + lossV[3])
        bandLoss[band] = lossSum * dx * dx
        bandOutflow[band] = outflow
        bandMaxDepth[band] = Double(Swift.max(deepest, deepestV.max()))
    }
}

/// Carries a non-escaping sweep into `concurrentPerform`'s `@Sendable` closure; each band
/// touches only its own rows and per-band slots, which is what makes this sound.
private struct SweepBox: @unchecked Sendable {
    let sweep: (Int, Range<Int>) -> Void
    init(_ sweep: @escaping (Int, Range<Int>) -> Void) { self.sweep = sweep }
}
