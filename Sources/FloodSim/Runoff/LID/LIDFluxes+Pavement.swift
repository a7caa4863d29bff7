import Foundation

extension LIDFluxes {
    /// Permeable pavement: surface → pavement → optional soil → storage (→ underdrain, native soil).
    /// Evaporation below the surface and the pavement's void space count only its pervious share.
    mutating func pavement(_ x: LIDLevels) -> LIDLevels {
        let pervious = 1 - c.pavement.imperviousFraction
        let paveVoid = c.pavement.voidFraction * pervious
        let pt = c.pavement.thickness, soil = c.soil, st = c.storage
        let theta = x.soil, depth = x.storage, pave = x.pavement
        surfaceVolume = x.surface * c.surface.voidFraction
        paveVolume = pave * paveVoid
        soilVolume = theta * soil.thickness
        storageVolume = depth * st.voidFraction
        evaporation(surface: surfaceVolume, pave: paveVolume, soil: soilVolume - soil.wiltingPoint * soil.thickness,
                    storage: storageVolume, pervious: pervious)
        if pave >= pt || (soil.thickness > 0 && theta >= soil.porosity) { storageEvap = 0 }
        surfaceInfil = surfaceInflow + surfaceVolume / dt
        pavePerc = paveConductivity * pervious
        surfaceInfil = min(surfaceInfil, pavePerc)
        pavePerc = min(pavePerc, max(paveVolume / dt + surfaceInfil - paveEvap, 0))
        if soil.thickness > 0 { limitedSoilPercolation(theta) } else { soilPerc = pavePerc }
        storageExfil = storageExfiltration()
        storageDrain = c.drain.coefficient > 0 ? drainRate(storage: depth, soil: theta, pave: pave, surface: x.surface) : 0
        let storageFull = depth >= st.thickness, soilFull = soil.thickness > 0 && theta >= soil.porosity, paveFull = pave >= pt
        if soil.thickness == 0 && storageFull && paveFull {
            let cap = storageEvap + storageDrain + storageExfil
            if pavePerc > cap {
                pavePerc = cap
            } else {
                storageExfil = min(storageExfil, pavePerc)
                storageDrain = pavePerc - storageExfil
            }
            soilPerc = pavePerc
            surfaceInfil = min(surfaceInfil, pavePerc)
        } else if soil.thickness > 0 && storageFull && soilFull && paveFull {
            var rate = storageExfil + storageDrain
            rate = soilPerc < rate ? soilPerc : min(rate, pavePerc)
            if rate > storageExfil { storageDrain = rate - storageExfil } else { storageExfil = rate; storageDrain = 0 }
            soilPerc = rate; pavePerc = rate
            surfaceInfil = min(surfaceInfil, pavePerc)
        } else if soil.thickness > 0 && storageFull && soilFull {
            let cap = storageDrain + storageExfil
            if soilPerc > cap {
                soilPerc = cap
            } else {
                storageExfil = min(storageExfil, soilPerc)
                storageDrain = soilPerc - storageExfil
            }
            pavePerc = min(pavePerc, soilPerc)
            surfaceInfil = min(surfaceInfil, (pt - pave) * paveVoid / dt + pavePerc + paveEvap)
        } else if soil.thickness > 0 && paveFull && soilFull {
            pavePerc = min(pavePerc, soilPerc)
            soilPerc = pavePerc
            surfaceInfil = min(surfaceInfil, pavePerc)
            storageExfil = min(storageExfil, max(storageVolume / dt + soilPerc - storageEvap, 0))
        } else {
            storageExfil = min(storageExfil, max(0, soilPerc - storageEvap + storageVolume / dt))
            limitDrain(storageDepth: depth, inflowWhenFull: soilPerc)
            var cap = max((st.thickness - depth) * st.voidFraction / dt + storageEvap + storageDrain + storageExfil, 0)
            if soil.thickness > 0 {
                soilPerc = min(soilPerc, cap)
                cap = (soil.porosity - theta) * soil.thickness / dt + soilPerc
            }
            pavePerc = min(pavePerc, cap)
            surfaceInfil = min(surfaceInfil, (pt - pave) * paveVoid / dt + pavePerc + paveEvap)
        }
        surfaceOutflow = surfaceOutflowRate(x.surface)
        var rates = LIDLevels(surface: surfaceInflow - surfaceEvap - surfaceInfil - surfaceOutflow,
                              pavement: (surfaceInfil - paveEvap - pavePerc) / paveVoid)
        let storageInflow: Double
        if soil.thickness > 0 {
            rates.soil = (pavePerc - soilEvap - soilPerc) / soil.thickness
            storageInflow = soilPerc
        } else {
            storageInflow = pavePerc
            soilPerc = 0
        }
        rates.storage = (storageInflow - storageEvap - storageExfil - storageDrain) / st.voidFraction
        return rates
    }
}
