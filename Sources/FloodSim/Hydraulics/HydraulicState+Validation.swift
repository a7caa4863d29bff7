import Foundation

// Network validation and link preparation (SWMM link_validate, conduit_validate).
extension HydraulicState {
    mutating func validate(nodes: [HydraulicNode], links: [HydraulicLink], roughness: [Double]) throws {
        let dw = method == .dynamicWave
        for j in 0..<linkCount {
            switch linkKind[j] {
            case .conduit:
                if dw && isDummy[j] && nodeKind[node1[j]] == .storage {
                    throw HydraulicsError(.invalidValue, "conduit \(j) '\(links[j].id)': a storage unit cannot drain through a DUMMY link")
                }
                if xsect[j].form == .filledCircular {
                    // SWMM raises the offsets by the filled depth.
                    let filled = {
                        if case .conduit(let c) = links[j].kind { return c.crossSection.geometry2 } else { return 0.0 }
                    }()
                    offset1[j] += filled; offset2[j] += filled
                }
                var s = conduitSlope(j)
                slope[j] = s
                if dw && s < 0 && !isDummy[j] {
                    swap(&node1[j], &node2[j])
                    swap(&offset1[j], &offset2[j])
                    swap(&cLossInlet[j], &cLossOutlet[j])
                    slope[j] = -s
                    s = -s
                    direction[j] = -1
                    q0[j] = -q0[j]
                }
                var n = roughness[j]
                if dw && isForceMain[j] {
                    // SWMM's equivalent Manning n comes from the section's own H-W C or D-W roughness
                    // (geometry2), not from the conduit's Manning n.
                    let factor = {
                        if case .conduit(let c) = links[j].kind { return c.crossSection.geometry2 } else { return 0.0 }
                    }()
                    n = forceMainEquivalentN(j, roughness: factor, slope: s)
                }
                var lengthFactor = 1.0
                if dw && options.lengtheningStep > 0 && !isDummy[j] {
                    lengthFactor = lengthFactorFor(j, roughness: n)
                }
                if lengthFactor != 1 {
                    modLength[j] = lengthFactor * length[j]
                    s /= lengthFactor
                    n /= lengthFactor.squareRoot()
                }
                roughFactor[j] = gravity * n * n
                beta[j] = isDummy[j] ? 0 : abs(s).squareRoot() / n
                qFull[j] = xsect[j].sFull * beta[j]
                qMax[j] = xsect[j].sMax * beta[j]
                let x = xsect[j]
                if x.form == .circular || x.form == .filledCircular {
                    aMax[j] = SectionGeometry.circlePeakArea * x.aFull
                } else {
                    aMax[j] = x.isOpen || isDummy[j] ? x.aFull : x.area(x.depthOfMaxSectionFactor)
                }
            case .pump:
                if let p = pump[j] {
                    if p.curveKind == .ideal { qFull[j] = 0 } else { qFull[j] = p.curve.y.max() ?? 0 }
                    setting[j] = p.initiallyOn ? 1 : 0
                    targetSetting[j] = setting[j]
                    if p.startupDepth > 0 && p.startupDepth <= p.shutoffDepth {
                        throw HydraulicsError(.invalidValue, "pump \(j) '\(links[j].id)': startup depth must exceed shutoff depth")
                    }
                }
            case .orifice:
                if orifice[j] != nil {
                    orificeLength[j] = max(200 * 0.3048, 2 * options.routingStep * (gravity * xsect[j].yFull).squareRoot())
                    setOrificeCoefficients(j, opening: xsect[j].yFull)
                }
            case .weir, .outlet:
                break
            }
            // Regulator crests below the downstream invert are raised under dynamic wave.
            if linkKind[j] == .orifice || linkKind[j] == .weir || linkKind[j] == .outlet {
                if invert[node1[j]] + offset1[j] < invert[node2[j]] && dw {
                    offset1[j] = invert[node2[j]] - invert[node1[j]]
                    offset2[j] = offset1[j]
                }
            }
            // Node full depths reach at least the link crown (not for pumps and bottom orifices).
            if linkKind[j] == .pump { continue }
            if linkKind[j] == .orifice, orifice[j]?.orientation == .bottom { continue }
            let n1 = node1[j]
            if nodeKind[n1] != .storage || surDepth[n1] > 0 {
                fullDepth[n1] = max(fullDepth[n1], offset1[j] + xsect[j].yFull)
            }
            let n2 = node2[j]
            if (nodeKind[n2] != .storage || surDepth[n2] > 0) && linkKind[j] == .conduit {
                fullDepth[n2] = max(fullDepth[n2], offset2[j] + xsect[j].yFull)
            }
        }
        for i in 0..<nodeCount where newDepth[i] > fullDepth[i] + surDepth[i] && nodeKind[i] != .outfall {
            throw HydraulicsError(.invalidValue, "node \(i) '\(nodes[i].id)': initial depth exceeds max depth + surcharge depth")
        }
        // Degree: number of links leaving each node; negative for nodes with no inflow link.
        var inCount = Array(repeating: 0, count: nodeCount)
        for j in 0..<linkCount {
            degree[node1[j]] += 1
            inCount[node2[j]] += 1
        }
        if dw {
            for i in 0..<nodeCount where inCount[i] == 0 { degree[i] = -degree[i] }
        } else {
            sortedLinks = topologicalOrder(inCount: inCount)
        }
    }

    private func conduitSlope(_ j: Int) -> Double {
        let e1 = offset1[j] + invert[node1[j]]
        let e2 = offset2[j] + invert[node2[j]]
        var delta = abs(e1 - e2)
        if delta < SWMMConstant.minDeltaZ { delta = SWMMConstant.minDeltaZ }
        var s = delta >= length[j] ? delta / length[j] : delta / (length[j] * length[j] - delta * delta).squareRoot()
        if options.minSlope > 0 && s < options.minSlope {
            s = options.minSlope
            if method != .dynamicWave { return s }
        }
        return e1 < e2 ? -s : s
    }

    private func lengthFactorFor(_ j: Int, roughness n: Double) -> Double {
        let x = xsect[j]
        var y = x.yFull
        if x.isOpen { y = x.aFull / max(x.width(x.yFull), 1e-12) }
        let vFull = x.sFull * abs(slope[j]).squareRoot() / n / x.aFull
        let tStep = min(options.routingStep, options.lengtheningStep)
        let ratio = ((gravity * y).squareRoot() + vFull) * tStep / length[j]
        return max(1, ratio)
    }

    /// Manning's n equivalent to a force main's full-flow friction (used when partly full), by
    /// SWMM 5.2's published relations, with the diameter in feet as they are stated (Manning's n
    /// is the same number in either unit system): Hazen-Williams n = 1.067/C·(D/S)^0.04;
    /// Darcy-Weisbach n = √(f/185)·D^(1/6), f for fully rough flow over the roughness `c`.
    private func forceMainEquivalentN(_ j: Int, roughness c: Double, slope s: Double) -> Double {
        let d = xsect[j].yFull, dFeet = d / 0.3048
        switch options.forceMainEquation {
        case .hazenWilliams:
            guard c > 0 else { return 0 }
            return 1.067 / c * pow(dFeet / max(abs(s), 1e-6), 0.04)
        case .darcyWeisbach:
            let t = log10(c / (3.7 * d) + 5.74 / pow(1e12, 0.9))
            let f = 0.25 / (t * t)
            return (f / 185).squareRoot() * pow(dFeet, 1.0 / 6.0)
        }
    }

    /// Friction slope of a full force main for velocity v (m/s) and hydraulic radius r (m).
    func forceMainFrictionSlope(_ j: Int, velocity v: Double, radius r: Double, roughness c: Double) -> Double {
        switch options.forceMainEquation {
        case .hazenWilliams:
            guard c > 0 else { return 0 }
            return pow(v / (0.849 * c * pow(r, 0.63)), 1.852)
        case .darcyWeisbach:
            let re = max(4 * r * v / SWMMConstant.viscosity, 10)
            let f: Double
            if re < 2000 { f = 64 / re } else {
                let t = log10(c / (14.8 * r) + 5.74 / pow(re, 0.9))
                f = 0.25 / (t * t)
            }
            return f * v * v / (2 * gravity * 4 * r)
        }
    }

    /// Links ordered so that every link comes after all links draining into its upstream node.
    private func topologicalOrder(inCount: [Int]) -> [Int] {
        var remaining = inCount
        var outgoing = Array(repeating: [Int](), count: nodeCount)
        for j in 0..<linkCount { outgoing[node1[j]].append(j) }
        var queue = (0..<nodeCount).filter { remaining[$0] == 0 }
        var order: [Int] = []
        var head = 0
        while head < queue.count {
            let n = queue[head]; head += 1
            for j in outgoing[n] {
                order.append(j)
                let m = node2[j]
                remaining[m] -= 1
                if remaining[m] == 0 { queue.append(m) }
            }
        }
        if order.count < linkCount {
            // Cycles: append the rest in input order.
            var seen = Array(repeating: false, count: linkCount)
            for j in order { seen[j] = true }
            for j in 0..<linkCount where !seen[j] { order.append(j) }
        }
        return order
    }
}
