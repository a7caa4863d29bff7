import Foundation

// The momentum sweep of the local inertial scheme (flood.md §4.2).
extension SurfaceKernel {
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
}
