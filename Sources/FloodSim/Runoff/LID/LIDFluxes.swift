import Foundation

/// The flows between a LID unit's layers at given water levels, SWMM 5.2's `lidproc.c` flux
/// routines written over in SI (m, m/s): each kind's rates, each limited by the water a layer has
/// and the room the next one leaves (Reference Manual Vol. III, ch. 6). `rates(_:)` returns each
/// layer's net rate of change and leaves the flows in the fields for the water balance.
struct LIDFluxes {
    let c: LIDControl
    /// A unit's outflow width (m) and area (m²).
    let width: Double, area: Double
    let dt: Double
    let evapRate: Double
    let maxNativeInfil: Double
    let dryTime: Double
    let oldDrainFlow: Double
    /// Water the unit has taken in so far, m (storage clogging).
    let treatedInflow: Double
    /// Pavement permeability after clogging, m/s.
    var paveConductivity: Double

    var surfaceInflow = 0.0, surfaceInfil = 0.0, surfaceEvap = 0.0, surfaceOutflow = 0.0, surfaceVolume = 0.0
    var paveEvap = 0.0, pavePerc = 0.0, paveVolume = 0.0
    var soilEvap = 0.0, soilPerc = 0.0, soilVolume = 0.0
    var storageInflow = 0.0, storageExfil = 0.0, storageEvap = 0.0, storageDrain = 0.0, storageVolume = 0.0

    init(control: LIDControl, width: Double, area: Double, dt: Double, evaporation: Double, maxNativeInfiltration: Double,
         dryTime: Double, oldDrainFlow: Double, treatedInflow: Double) {
        c = control; self.width = width; self.area = area; self.dt = dt; evapRate = evaporation
        maxNativeInfil = maxNativeInfiltration; self.dryTime = dryTime; self.oldDrainFlow = oldDrainFlow
        self.treatedInflow = treatedInflow; paveConductivity = control.pavement.conductivity
    }

    mutating func rates(_ x: LIDLevels) -> LIDLevels {
        switch c.kind {
        case .bioRetention, .rainGarden: return bioCell(x)
        case .greenRoof: return greenRoof(x)
        case .infiltrationTrench: return trench(x)
        case .permeablePavement: return pavement(x)
        case .rainBarrel: return barrel(x)
        case .rooftopDisconnection: return roof(x)
        case .vegetativeSwale: return swale(x)
        }
    }

    // MARK: shared pieces

    /// Manning outflow over the berm, m/s (not for swales or barrels).
    func surfaceOutflowRate(_ depth: Double) -> Double {
        let above = depth - c.surface.thickness
        guard above >= 0 else { return 0 }
        return min(c.surfaceAlpha * pow(above, 5.0 / 3.0) * width / area, above / dt)
    }

    /// Percolation through the soil: the unsaturated conductivity above field capacity.
    func soilPercolation(_ theta: Double) -> Double {
        guard theta > c.soil.fieldCapacity else { return 0 }
        return c.soil.conductivity * exp(-(c.soil.porosity - theta) * c.soil.conductivitySlope)
    }

    /// Seepage out of the storage layer into native soil, reduced by clogging.
    func storageExfiltration() -> Double {
        guard c.storage.conductivity != 0, maxNativeInfil != 0 else { return 0 }
        var clog = 0.0
        if c.storage.clogDepth > 0 { clog = min(treatedInflow / c.storage.clogDepth, 1) }
        return min(c.storage.conductivity * (1 - clog), maxNativeInfil)
    }

    /// Underdrain flow, m/s: q = C·hⁿ in the model's units, the head being the storage water plus
    /// the saturated layers above it once the storage is full, less the drain offset.
    func drainRate(storage: Double, soil theta: Double, pave: Double, surface: Double) -> Double {
        var head = storage
        let pt = c.pavement.thickness, st = c.soil.thickness
        if storage >= c.storage.thickness {
            if st > 0 {
                if theta > c.soil.fieldCapacity {
                    head += (theta - c.soil.fieldCapacity) / (c.soil.porosity - c.soil.fieldCapacity) * st
                    if theta >= c.soil.porosity {
                        if pt > 0 { head += pave; if pave >= pt { head += surface } } else { head += surface }
                    }
                }
            } else if pt > 0 {
                head += pave
                if pave >= pt { head += surface }
            }
        }
        if oldDrainFlow == 0, head <= c.drain.openHead { return 0 }
        if oldDrainFlow > 0, head <= c.drain.closeHead { return 0 }
        head -= c.drain.offset
        guard head > 3.048e-11 else { return 0 }
        return c.drain.coefficient * pow(head / c.drain.depthUnit, c.drain.exponent) * c.drain.rateUnit
    }

    /// Evaporation from the surface, then (when nothing infiltrates) from the pavement, soil and
    /// storage in turn, the subsurface share scaled by the pervious fraction of the surface.
    mutating func evaporation(surface: Double, pave: Double, soil: Double, storage: Double, pervious: Double) {
        surfaceEvap = max(0, min(evapRate, surface / dt))
        var left = max(0, evapRate - surfaceEvap) * pervious
        if surfaceInfil > 0 {
            paveEvap = 0; soilEvap = 0; storageEvap = 0
        } else {
            paveEvap = min(left, pave / dt)
            left = max(0, left - paveEvap)
            soilEvap = min(left, soil / dt)
            left = max(0, left - soilEvap)
            storageEvap = min(left, storage / dt)
        }
    }

    /// Soil percolation limited by the water above field capacity.
    mutating func limitedSoilPercolation(_ theta: Double) {
        soilPerc = getLimited(soilPercolation(theta), max(0, (theta - c.soil.fieldCapacity) * c.soil.thickness) / dt - soilEvap)
    }

    func getLimited(_ v: Double, _ cap: Double) -> Double { max(min(v, cap), 0) }

    /// Drain flow limited by the water above the drain offset (plus what comes in when full).
    mutating func limitDrain(storageDepth: Double, inflowWhenFull: Double) {
        guard storageDrain > 0 else { return }
        var cap = -storageExfil - storageEvap
        if storageDepth >= c.storage.thickness { cap += inflowWhenFull }
        if c.drain.offset <= storageDepth { cap += (storageDepth - c.drain.offset) * c.storage.voidFraction / dt }
        storageDrain = min(storageDrain, max(cap, 0))
    }
}
