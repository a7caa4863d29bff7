import Foundation

/// A storage unit's seepage state (SWMM 5.2's exfiltration object, `exfil.c`): the areas it
/// seeps through, found once from the unit's shape, and a modified Green–Ampt soil for the bottom
/// and one for the banks (`LIDGreenAmpt`, SWMM's `grnampt` object), SI: m, m², m/s, s.
struct StorageExfiltration: Sendable, Hashable {
    /// Area of the unit's bottom, m²: it seeps at the bottom soil's rate under the full depth.
    let bottomArea: Double
    /// Depth where the banks start to widen (a tabular curve's flat start), metres.
    let bankMinDepth: Double
    /// Depth and area where a tabular curve stops widening, metres and m² (unbounded otherwise).
    let bankMaxDepth: Double, bankMaxArea: Double
    /// Saturated conductivity, m/s, when the rate is constant (no initial deficit).
    let constantRate: Double?
    var bottom: LIDGreenAmpt, bank: LIDGreenAmpt

    /// What SWMM takes as unbounded bank depth and area (its BIG).
    static let unbounded = 1e10

    /// The exfiltration of a unit of `shape` over `soil` (exfil_initState); nil for a shape SWMM
    /// gives no seepage areas.
    init(shape: StorageUnit.Shape, soil: StorageSeepage) {
        constantRate = soil.initialDeficit == 0 ? soil.conductivity : nil
        bottom = LIDGreenAmpt(suction: soil.suction, conductivity: soil.conductivity, maxDeficit: soil.initialDeficit)
        bank = bottom
        switch shape {
        case .tabular(let curve):
            // The bottom is the area at depth 0; the banks seep between the depth where the area
            // starts to grow and the one where it stops (SWMM walks the curve's points).
            bottomArea = HydraulicState.lookupExtended(curve, 0)
            var minDepth = 0.0, maxDepth = 0.0, maxArea = 0.0
            if var last = curve.y.first {
                for k in curve.x.indices.dropFirst() {
                    let d = curve.x[k], a = curve.y[k]
                    if a < last { break }
                    if a > last {
                        maxArea = a; maxDepth = d
                    } else if maxArea == 0 {
                        minDepth = d
                    } else {
                        break
                    }
                    last = a
                }
            }
            bankMinDepth = minDepth; bankMaxDepth = maxDepth; bankMaxArea = maxArea
        case .functional(let a, let b, let c):
            bottomArea = (c + (b == 0 ? a : 0)) * soil.bottomAreaFactor
            bankMinDepth = 0; bankMaxDepth = Self.unbounded; bankMaxArea = Self.unbounded
        case .polynomial(let a0, _, _):
            bottomArea = a0 * soil.bottomAreaFactor
            bankMinDepth = 0; bankMaxDepth = Self.unbounded; bankMaxArea = Self.unbounded
        }
    }

    /// The seepage rate (m³/s) over a step of `dt` seconds from water `depth` metres deep whose
    /// surface is `area` m² (exfil_getLoss): the bottom at the bottom soil's rate under the full
    /// depth, the banks' extra area at the bank soil's rate under half the depth on them.
    mutating func rate(dt: Double, depth: Double, area: Double) -> Double {
        var q = (constantRate ?? bottom.rate(dt: dt, supply: 0, depth: depth)) * bottomArea
        guard depth > bankMinDepth else { return q }
        let bankArea = min(area, bankMaxArea) - bottomArea
        guard bankArea > 0 else { return q }
        if let k = constantRate { return q + bankArea * k }
        let head = depth > bankMaxDepth ? depth - bankMaxDepth + (bankMaxDepth - bankMinDepth) / 2 : (depth - bankMinDepth) / 2
        q += bankArea * bank.rate(dt: dt, supply: 0, depth: head)
        return q
    }
}

extension HydraulicState {
    /// The potential evaporation rate (m/s) at `time` seconds from the start, as SWMM's setEvap: the
    /// time series' step, else the month's rate when twelve are given, else the constant one; plus
    /// the month's adjustment; never below 0 (SWMM's storage and conduits evaporate only above 0).
    /// (Static: as a method its callers, mutating ones included, handed it a copy of the whole state.)
    static func evaporationRate(_ options: RoutingOptions, at time: Double) -> Double {
        let monthly = options.monthlyEvaporationRates, adjustments = options.evaporationAdjustments
        let month = monthly.count == 12 || adjustments.count == 12 ? options.start.advanced(by: time).month : 1
        var rate: Double
        if let schedule = options.evaporationSchedule { rate = schedule.value(at: time) }
        else if monthly.count == 12 { rate = monthly[month - 1] }
        else { rate = options.evaporationRate }
        if adjustments.count == 12 { rate += adjustments[month - 1] }
        return max(0, rate)
    }

    /// Each storage unit's evaporation and seepage over the coming step of `dt` seconds from its
    /// state now, as SWMM's storage_getLosses at the start of a routing step: evaporation over
    /// the water surface at the step's rate × Fevap, seepage through the bottom and banks, both
    /// scaled down together to what the unit holds. Sets `losses` (m³/s, taken out of the node
    /// as outflow) and `evaporationLoss`/`seepageLoss` (m³ over the step).
    mutating func updateStorageLosses(dt: Double, time: Double) {
        // The conduits' evaporation over the step reads the same rate (set here, in place: read
        // through the routing object's property, the state was copied whole to call a method).
        if hasConduitLosses { evaporationNow = Self.evaporationRate(options, at: time) }
        guard hasStorageLosses else { return }
        let potential = Self.evaporationRate(options, at: time)
        for i in 0..<nodeCount {
            guard let unit = storage[i] else { continue }
            var evap = potential * unit.evaporationFactor
            var seep = 0.0
            if evap > 0 || exfiltration[i] != nil {
                let depth = newDepth[i]
                let area = storageArea(i, depth)
                evap = newVolume[i] > SWMMConstant.fudgeVolume ? area * evap : 0
                if exfiltration[i] != nil { seep = exfiltration[i]!.rate(dt: dt, depth: depth, area: area) }
                let total = (evap + seep) * dt
                if total > newVolume[i] {
                    let ratio = newVolume[i] / total
                    evap *= ratio; seep *= ratio
                }
            }
            evaporationLoss[i] = evap * dt
            seepageLoss[i] = seep * dt
            losses[i] = evap + seep
        }
    }
}
