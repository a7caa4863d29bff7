import Foundation

// Initial state, node and link geometry and outfall stages of the hydraulic state.
extension HydraulicState {
    // MARK: - Initial state (node_initState, flowrout_init)

    mutating func initialiseState() {
        for i in 0..<nodeCount {
            fullVolume[i] = 0
            if nodeKind[i] == .storage { fullVolume[i] = storageVolume(i, fullDepth[i]) }
        }
        // Type 1 pumps give their inlet node a wet-well volume.
        for j in 0..<linkCount where linkKind[j] == .pump {
            if let p = pump[j], p.curveKind == .type1, nodeKind[node1[j]] != .storage {
                fullVolume[node1[j]] = max(fullVolume[node1[j]], p.curve.x.last ?? 0)
            }
        }
        for i in 0..<nodeCount {
            oldVolume[i] = nodeVolume(i, oldDepth[i])
            newVolume[i] = oldVolume[i]
        }
        for j in 0..<linkCount {
            oldFlow[j] = q0[j]; newFlow[j] = q0[j]
            if linkKind[j] == .conduit {
                linkNewDepth[j] = normalDepth(j, abs(q0[j]) / barrels[j])
                linkOldDepth[j] = linkNewDepth[j]
            }
        }
        if method == .dynamicWave {
            for j in 0..<linkCount {
                let n1 = node1[j], n2 = node2[j]
                crownElev[n1] = max(crownElev[n1], invert[n1] + offset1[j] + xsect[j].yFull)
                crownElev[n2] = max(crownElev[n2], invert[n2] + offset2[j] + xsect[j].yFull)
            }
            // Node depths from connected link depths where no initial depth is given.
            var sum = Array(repeating: 0.0, count: nodeCount), count = Array(repeating: 0.0, count: nodeCount)
            for j in 0..<linkCount {
                let y = linkNewDepth[j] > SWMMConstant.fudge ? linkNewDepth[j] + offset1[j] : 0
                sum[node1[j]] += y; count[node1[j]] += 1
                sum[node2[j]] += y; count[node2[j]] += 1
            }
            for i in 0..<nodeCount where nodeKind[i] != .outfall && nodeKind[i] != .storage && oldDepth[i] <= 0 && count[i] > 0 {
                newDepth[i] = sum[i] / count[i]
            }
            for j in 0..<linkCount { setOutfallDepth(j, time: 0) }
            for j in 0..<linkCount where linkKind[j] == .conduit && q0[j] == 0 {
                let y1 = min(max(newDepth[node1[j]] - offset1[j], 0), xsect[j].yFull)
                let y2 = min(max(newDepth[node2[j]] - offset2[j], 0), xsect[j].yFull)
                linkNewDepth[j] = max(0.5 * (y1 + y2), SWMMConstant.fudge)
            }
        }
        settleInitialState()
    }

    /// Node volumes, node inflow and outflow, and conduit areas and volumes from the initial
    /// depths and flows (SWMM's initNodes/initLinks; also after a hot start replaced them).
    mutating func settleInitialState() {
        for i in 0..<nodeCount {
            // A node starts receiving its lateral inflow (none unless a hot start gave one).
            inflow[i] = newLatFlow[i]; outflow[i] = 0
            if options.allowPonding && pondedArea[i] > 0 && newDepth[i] > fullDepth[i] {
                newVolume[i] = fullVolume[i] + (newDepth[i] - fullDepth[i]) * pondedArea[i]
            } else {
                newVolume[i] = nodeVolume(i, newDepth[i])
            }
            oldDepth[i] = newDepth[i]
            oldVolume[i] = newVolume[i]
        }
        for j in 0..<linkCount {
            if newFlow[j] >= 0 {
                outflow[node1[j]] += newFlow[j]; inflow[node2[j]] += newFlow[j]
            } else {
                inflow[node1[j]] -= newFlow[j]; outflow[node2[j]] -= newFlow[j]
            }
            if linkKind[j] == .conduit {
                ends[j].q1 = newFlow[j] / barrels[j]; ends[j].q2 = ends[j].q1
                ends[j].a1 = xsect[j].area(linkNewDepth[j]); ends[j].a2 = ends[j].a1
                linkNewVolume[j] = ends[j].a1 * length[j] * barrels[j]
                linkOldVolume[j] = linkNewVolume[j]
                linkOldDepth[j] = linkNewDepth[j]
            }
            // Steady flow starts every link dry of flow (its nodes keep the initial flows' balance),
            // as SWMM's initLinks.
            if method == .steady { newFlow[j] = 0 }
        }
    }

    // MARK: - Node geometry

    /// Stored volume at depth d (m³): storage units integrate their area curve; other nodes hold no
    /// volume of their own (SWMM's junction volume is carried by the minimum surface area only in
    /// the mass balance).
    @inline(__always)
    func nodeVolume(_ i: Int, _ d: Double) -> Double {
        if nodeKind[i] == .storage {
            // The static form: an instance method called from a mutating one copies the whole state.
            guard let s = storage[i] else { return 0 }
            return HydraulicState.storageVolume(s, fullDepth: fullDepth[i], fullVolume: fullVolume[i], d)
        }
        if fullDepth[i] > 0 { return fullVolume[i] * (d / fullDepth[i]) }
        return 0
    }

    /// Surface area of node i at depth d (m²): a storage unit's area curve, 0 for other nodes.
    @inline(__always)
    func storageArea(_ i: Int, _ d: Double) -> Double {
        // The static form, as `nodeVolume`: with the switch here, inlined into a mutating method's
        // node loop, each call copied the whole state.
        guard let s = storage[i] else { return 0 }
        return HydraulicState.storageArea(s, d)
    }

    /// Surface area of storage unit `s` at depth d (m²).
    static func storageArea(_ s: StorageUnit, _ d: Double) -> Double {
        switch s.shape {
        case .functional(let a, let b, let c):
            return c + a * pow(max(d, 0), b)
        case .tabular(let curve):
            return HydraulicState.lookupExtended(curve, d)
        case .polynomial(let a0, let a1, let a2):
            let y = max(d, 0)
            return a0 + y * (a1 + y * a2)
        }
    }

    func storageVolume(_ i: Int, _ d: Double) -> Double {
        guard let s = storage[i] else { return 0 }
        return HydraulicState.storageVolume(s, fullDepth: fullDepth[i], fullVolume: fullVolume[i], d)
    }

    /// Stored volume of storage unit `s` at depth d (m³), given its full depth and volume (0 while
    /// the full volume is not yet known).
    static func storageVolume(_ s: StorageUnit, fullDepth: Double, fullVolume: Double, _ d: Double) -> Double {
        guard d > 0 else { return 0 }
        if d >= fullDepth && fullVolume > 0 { return fullVolume }
        switch s.shape {
        case .functional(let a, let b, let c):
            return c * d + a / (b + 1) * pow(d, b + 1)
        case .polynomial(let a0, let a1, let a2):
            return d * (a0 + d * (a1 / 2 + d * a2 / 3))
        case .tabular(let curve):
            // End-area integration of the area curve from depth 0 to d.
            let xs = curve.x, ys = curve.y
            guard !xs.isEmpty else { return 0 }
            var v = 0.0
            var xPrev = 0.0, yPrev = HydraulicState.lookupExtended(curve, 0)
            for k in 0..<xs.count where xs[k] > 0 {
                if xs[k] >= d { break }
                v += 0.5 * (yPrev + ys[k]) * (xs[k] - xPrev)
                xPrev = xs[k]; yPrev = ys[k]
            }
            let yd = HydraulicState.lookupExtended(curve, d)
            v += 0.5 * (yPrev + yd) * (d - xPrev)
            return v
        }
    }

    /// Depth of a storage unit holding volume v (bisection on the volume curve).
    func storageDepth(_ i: Int, _ v: Double) -> Double {
        if v <= 0 { return 0 }
        if fullVolume[i] > 0 && v >= fullVolume[i] { return fullDepth[i] }
        var lo = 0.0, hi = fullDepth[i]
        for _ in 0..<50 {
            let mid = 0.5 * (lo + hi)
            if storageVolume(i, mid) < v { lo = mid } else { hi = mid }
        }
        return 0.5 * (lo + hi)
    }

    /// Linear interpolation with extrapolation from the end segments (SWMM table_lookupEx).
    static func lookupExtended(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n == 0 { return 0 }
        if n == 1 { return c.y[0] }
        var k = 1
        while k < n - 1 && x > c.x[k] { k += 1 }
        let x0 = c.x[k - 1], x1 = c.x[k]
        let dx = x1 - x0
        if dx == 0 { return c.y[k] }
        if x < x0 && k == 1 {
            // Below the first point SWMM extrapolates linearly, but not below 0.
            let y = c.y[0] + (x - x0) * (c.y[1] - c.y[0]) / dx
            return max(y, 0)
        }
        return c.y[k - 1] + (x - x0) * (c.y[k] - c.y[k - 1]) / dx
    }

    /// Linear interpolation holding end values (SWMM table_lookup).
    static func lookup(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n == 0 { return 0 }
        if x <= c.x[0] { return c.y[0] }
        if x >= c.x[n - 1] { return c.y[n - 1] }
        var k = 1
        while x > c.x[k] { k += 1 }
        let x0 = c.x[k - 1], x1 = c.x[k]
        return x1 > x0 ? c.y[k - 1] + (x - x0) * (c.y[k] - c.y[k - 1]) / (x1 - x0) : c.y[k]
    }

    /// Slope of the curve segment containing x.
    static func slopeAt(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n < 2 { return 0 }
        var k = 1
        while k < n - 1 && x > c.x[k] { k += 1 }
        let dx = c.x[k] - c.x[k - 1]
        return dx > 0 ? (c.y[k] - c.y[k - 1]) / dx : 0
    }

    /// Stepwise lookup as SWMM 5.2's table_intervalLookup (pump curves TYPE1 and TYPE2): the y of
    /// the first point whose x exceeds `x` — so the first y below the first point and the last y
    /// at or beyond the last point.
    static func intervalLookup(_ c: Curve, _ x: Double) -> Double {
        let n = c.x.count
        if n == 0 { return 0 }
        for k in 0..<n where x < c.x[k] { return c.y[k] }
        return c.y[n - 1]
    }

    // MARK: - Link geometry helpers

    /// Normal depth of flow q (per barrel) in conduit j, metres.
    @inline(__always)
    func normalDepth(_ j: Int, _ q: Double) -> Double {
        guard linkKind[j] == .conduit, !isDummy[j] else { return 0 }
        var q = abs(q)
        if q > qMax[j] { q = qMax[j] }
        if q <= 0 || beta[j] <= 0 { return 0 }
        let x = xsect[j]
        return x.depth(ofArea: x.area(ofSectionFactor: q / beta[j]))
    }

    /// Critical depth of flow q (per barrel) in conduit j, metres.
    @inline(__always)
    func criticalDepth(_ j: Int, _ q: Double) -> Double {
        guard linkKind[j] == .conduit, !isDummy[j] else { return 0 }
        return xsect[j].criticalDepth(abs(q), gravity: gravity)
    }

    /// Froude number for velocity v at depth y in section x, whose flow area at y, `area`, the
    /// momentum step has at hand (SWMM's getFroude looks it up again). Static: a method called
    /// from a mutating one copies the whole state.
    static func froudeNumber(_ x: SectionGeometry, _ v: Double, _ y: Double, area: Double, gravity: Double, usesSlot: Bool) -> Double {
        if y <= SWMMConstant.fudge { return 0 }
        if !x.isOpen && x.yFull - y <= SWMMConstant.fudge { return 0 }
        // With the slot an open channel's depth may exceed its full depth; SWMM's width and
        // area keep growing there for prismatic shapes (where the slot's area does not).
        let w = usesSlot ? x.widthAboveFull(y) : x.width(y)
        guard w > 0 else { return 0 }
        let hd = (usesSlot ? x.areaAboveFull(y) : area) / w
        return abs(v) / (gravity * hd).squareRoot()
    }

    /// True if reverse flow (sign of q) is blocked by a flap gate on the link or on an outfall.
    @inline(__always)
    func flapGateCloses(_ j: Int, _ q: Double) -> Bool {
        if hasFlapGate[j] && q * direction[j] < 0 { return true }
        var n = -1
        if q < 0 { n = node2[j] }
        if q > 0 { n = node1[j] }
        if n >= 0, nodeKind[n] == .outfall, outfall[n]?.flapGate == true { return true }
        return false
    }

    // MARK: - Outfalls

    /// Sets the depth of an outfall at either end of link j from the link's flow (link_setOutfallDepth).
    mutating func setOutfallDepth(_ j: Int, time: Double) {
        let n: Int, z: Double
        if nodeKind[node2[j]] == .outfall { n = node2[j]; z = offset2[j] }
        else if nodeKind[node1[j]] == .outfall { n = node1[j]; z = offset1[j] }
        else { return }
        guard let boundary = outfall[n] else { return }
        // Normal and critical depth of the link's flow (0 for regulators), computed only where
        // the boundary uses them: a raised free or normal outfall is dry whatever the flow.
        let q = linkKind[j] == .conduit ? abs(newFlow[j] / barrels[j]) : 0
        let stage: Double
        switch boundary.stage {
        case .free:
            newDepth[n] = z > 0 ? 0 : min(normalDepth(j, q), criticalDepth(j, q))
            return
        case .normal:
            newDepth[n] = z > 0 ? 0 : normalDepth(j, q)
            return
        case .fixed(let s):
            stage = s
        case .tidal(let curve):
            let clock = options.start.advanced(by: time)
            let first = curve.x.first ?? 0
            stage = HydraulicState.lookup(curve, first + clock.secondOfDay / 3600)
        case .timeSeries(let series):
            var s = series
            s.holdsLastValue = true
            stage = s.value(at: time)
        }
        // The outfall stands at the stage unless min(critical, normal depth) + invert + z rises
        // above it; when the critical depth alone does not, neither does the minimum (rounding is
        // monotone), and the normal depth (a search on natural channels) is not needed.
        let yCrit = criticalDepth(j, q)
        if yCrit + invert[n] + z <= stage {
            newDepth[n] = stage - invert[n]
        } else {
            let yc = min(yCrit, normalDepth(j, q)) + invert[n] + z
            if yc <= stage { newDepth[n] = stage - invert[n] } else { newDepth[n] = yc - invert[n] }
        }
        if newDepth[n] < 0 { newDepth[n] = 0 }
    }
}
