import Foundation

/// Each LID kind's layer fluxes (see `LIDFluxes`).
extension LIDFluxes {
    /// Volumes, evaporation and soil percolation of a surface–soil–storage column (bio-retention,
    /// rain garden, green roof).
    private mutating func soilColumn(_ x: LIDLevels) {
        let soil = c.soil
        surfaceVolume = x.surface * c.surface.voidFraction
        soilVolume = x.soil * soil.thickness
        storageVolume = x.storage * c.storage.voidFraction
        evaporation(surface: surfaceVolume, pave: 0, soil: soilVolume - soil.wiltingPoint * soil.thickness, storage: storageVolume, pervious: 1)
        if x.soil >= soil.porosity { storageEvap = 0 }
        limitedSoilPercolation(x.soil)
    }

    /// Bio-retention cell and rain garden: surface → soil → storage (→ underdrain, native soil).
    mutating func bioCell(_ x: LIDLevels) -> LIDLevels {
        let soil = c.soil, st = c.storage
        let theta = x.soil, depth = x.storage
        soilColumn(x)
        storageExfil = storageExfiltration()
        storageDrain = c.drain.coefficient > 0 ? drainRate(storage: depth, soil: theta, pave: 0, surface: x.surface) : 0
        if st.thickness == 0 {
            storageEvap = 0
            let rate = min(soilPerc, storageExfil)
            soilPerc = rate; storageExfil = rate
            surfaceInfil = min(surfaceInfil, (soil.porosity - theta) * soil.thickness / dt + soilPerc + soilEvap)
        } else if theta >= soil.porosity && depth >= st.thickness {
            var rate = storageExfil + storageDrain
            if soilPerc < rate {
                rate = soilPerc
                if rate > storageExfil { storageDrain = rate - storageExfil } else { storageExfil = rate; storageDrain = 0 }
            } else {
                soilPerc = rate
            }
            surfaceInfil = min(surfaceInfil, rate)
        } else {
            storageExfil = getLimited(storageExfil, soilPerc - storageEvap + depth * st.voidFraction / dt)
            limitDrain(storageDepth: depth, inflowWhenFull: soilPerc)
            soilPerc = min(soilPerc, storageExfil + storageDrain + storageEvap + (st.thickness - depth) * st.voidFraction / dt)
            surfaceInfil = min(surfaceInfil, (soil.porosity - theta) * soil.thickness / dt + soilPerc + soilEvap)
        }
        surfaceOutflow = surfaceOutflowRate(x.surface)
        return LIDLevels(surface: (surfaceInflow - surfaceEvap - surfaceInfil - surfaceOutflow) / c.surface.voidFraction,
                         soil: (surfaceInfil - soilEvap - soilPerc) / soil.thickness,
                         storage: st.thickness == 0 ? 0 : (soilPerc - storageEvap - storageExfil - storageDrain) / st.voidFraction)
    }

    /// Green roof: surface → soil → drainage mat (which drains along the roof).
    mutating func greenRoof(_ x: LIDLevels) -> LIDLevels {
        let soil = c.soil, st = c.storage
        let theta = x.soil, depth = x.storage
        soilColumn(x)
        storageExfil = 0
        let matAlpha = c.drainageMatAlpha
        storageDrain = matAlpha > 0 ? matAlpha * pow(depth, 5.0 / 3.0) * width / area * c.drainageMat.voidFraction : soilPerc
        if theta >= soil.porosity && depth >= st.thickness {
            let rate = min(soilPerc, storageDrain)
            soilPerc = rate; storageDrain = rate
            surfaceInfil = min(surfaceInfil, rate)
        } else {
            var cap = depth * st.voidFraction / dt - storageEvap
            if depth >= st.thickness { cap += soilPerc }
            storageDrain = min(storageDrain, max(cap, 0))
            soilPerc = min(soilPerc, (st.thickness - depth) * st.voidFraction / dt + storageDrain + storageEvap)
            surfaceInfil = min(surfaceInfil, (soil.porosity - theta) * soil.thickness / dt + soilPerc + soilEvap)
        }
        surfaceOutflow = surfaceOutflowRate(x.surface)
        return LIDLevels(surface: (surfaceInflow - surfaceEvap - surfaceInfil - surfaceOutflow) / c.surface.voidFraction,
                         soil: (surfaceInfil - soilEvap - soilPerc) / soil.thickness,
                         storage: (soilPerc - storageEvap - storageDrain) / st.voidFraction)
    }

    /// Infiltration trench: surface → gravel storage (→ underdrain, native soil).
    mutating func trench(_ x: LIDLevels) -> LIDLevels {
        let st = c.storage, depth = x.storage
        surfaceVolume = x.surface * c.surface.voidFraction
        soilVolume = 0
        storageVolume = depth * st.voidFraction
        evaporation(surface: surfaceVolume, pave: 0, soil: 0, storage: storageVolume, pervious: 1)
        if x.surface > 0 { storageEvap = 0 }
        storageInflow = surfaceInflow + surfaceVolume / dt
        storageExfil = storageExfiltration()
        storageDrain = c.drain.coefficient > 0 ? drainRate(storage: depth, soil: 0, pave: 0, surface: x.surface) : 0
        storageExfil = getLimited(storageExfil, storageInflow - storageEvap + depth * st.voidFraction / dt)
        limitDrain(storageDepth: depth, inflowWhenFull: storageInflow)
        storageInflow = min(storageInflow, (st.thickness - depth) * st.voidFraction / dt + storageExfil + storageEvap + storageDrain)
        surfaceInfil = storageInflow
        surfaceOutflow = surfaceOutflowRate(x.surface)
        return LIDLevels(surface: (surfaceInflow - surfaceEvap - storageInflow - surfaceOutflow) / c.surface.voidFraction,
                         soil: 0, storage: (storageInflow - storageEvap - storageExfil - storageDrain) / st.voidFraction)
    }

    /// Rain barrel: storage with an underdrain that opens `drain.delay` after the rain.
    mutating func barrel(_ x: LIDLevels) -> LIDLevels {
        let depth = x.storage
        surfaceVolume = 0; soilVolume = 0; storageVolume = depth
        surfaceInfil = 0; surfaceOutflow = 0; storageDrain = 0
        if c.drain.delay == 0 || dryTime >= c.drain.delay {
            let head = depth - c.drain.offset
            if head > 0 { storageDrain = min(drainRate(storage: depth, soil: 0, pave: 0, surface: 0), head / dt) }
        }
        storageInflow = min(surfaceInflow, (c.storage.thickness - depth) / dt + storageDrain)
        surfaceInfil = storageInflow
        return LIDLevels(surface: surfaceInflow - storageInflow, soil: 0, storage: storageInflow - storageDrain)
    }

    /// Rooftop disconnection: the roof's runoff, up to the drain's capacity, goes to the gutter drain.
    mutating func roof(_ x: LIDLevels) -> LIDLevels {
        let depth = x.surface
        evaporation(surface: depth, pave: 0, soil: 0, storage: 0, pervious: 1)
        surfaceVolume = depth
        surfaceInfil = 0
        // Without roughness SWMM takes no Manning outflow (and spills nothing here: the overflow
        // it computes is discarded, as in SWMM).
        if c.surfaceAlpha > 0 { surfaceOutflow = surfaceOutflowRate(depth) }
        storageDrain = min(c.drain.coefficient * c.drain.rateUnit, surfaceOutflow)
        surfaceOutflow -= storageDrain
        return LIDLevels(surface: surfaceInflow - surfaceEvap - storageDrain - surfaceOutflow)
    }

    /// Vegetative swale: a trapezoidal channel whose ponded water flows out by Manning's equation.
    mutating func swale(_ x: LIDLevels) -> LIDLevels {
        let s = c.surface
        let depth = min(x.surface, s.thickness)
        var slope = s.sideSlope
        // SWMM's 0.5 ft minimum widths.
        let topWidth = max(width, 0.1524)
        var bottom = topWidth - 2 * slope * s.thickness
        if bottom < 0.1524 { bottom = 0.1524; slope = 0.5 * (topWidth - 0.1524) / s.thickness }
        let length = area / topWidth
        let surfaceArea = length * (bottom + 2 * slope * depth)
        let flowArea = depth * (bottom + slope * depth) * s.voidFraction
        let volume = length * flowArea
        let inflow = surfaceInflow * area
        let evap = min(evapRate * surfaceArea, volume / dt)
        let exfil = surfaceInfil * surfaceArea
        var outflow = 0.0
        if depth > 3.048e-11, flowArea >= 3.048e-11 {
            let radius = flowArea / (bottom + 2 * depth * (1 + slope * slope).squareRoot())
            outflow = c.surfaceAlpha * flowArea * pow(radius, 2.0 / 3.0)
        }
        var change = inflow - evap - exfil - outflow
        if depth == s.thickness && change > 0 { outflow += change; change = 0 }
        surfaceEvap = evap / area
        storageExfil = exfil / area
        surfaceOutflow = outflow / area
        surfaceVolume = volume / area
        soilVolume = 0; storageVolume = 0
        return LIDLevels(surface: change / surfaceArea)
    }
}
