import Foundation
import FloodSim
import GeoCore
import ProcessRuntime

/// The district's street surface for the 2D model: the DEM (EPSG:4547 metres, optionally
/// coarsened by block means), buildings blocking flow, Manning's n from land use, rain weights
/// that keep rain off subcatchments (their rain is routed as runoff), the river as
/// fixed-level cells at the scenario's stage, and the district's permanent water.
struct DistrictSurface {
    var domain: SurfaceDomain
    /// 0 on cells inside a subcatchment, 1 elsewhere (rain on grid only where not routed).
    var rainWeights: Grid
    /// 1 on cells of permanent water, 0 elsewhere: the river channels (the band of the river's
    /// width, at least the cells the model holds at the river's stage), lakes, reservoirs and
    /// land use 陆地水域. Water standing there is the normal water surface, not a flood: the
    /// depth classes and map tiles leave it out (the raw depth grids keep it).
    var permanentWater: Grid
    /// Coarsening factor applied to the DEM (1 = the DEM's own cells).
    var factor: Int

    /// Buildings block flow only on cells of at most this size (m); on coarser cells a footprint
    /// would block whole streets, so buildings are left open there (documented simplification).
    static let buildingBlockingCellSize = 15.0
    /// Manning's n on cells outside every land-use polygon (streets), s/m^(1/3).
    static let streetManningN = 0.016

    /// - Parameters:
    ///   - dem: the district DEM.
    ///   - factor: block size for coarsening (≥ 1); cells become `factor` × the DEM's.
    ///   - stage: river stage (m) for cells along rivers, or nil for none.
    ///   - stageRivers: names of the rivers held at `stage` (the scenario's `stage_receiving_waters`);
    ///     nil = every river. A river not named keeps its own water: a drainage channel into a lake is
    ///     not held at the Yangtze's stage.
    static func build(dem: Grid, factor: Int, layers: FloodDistrictLayers, stage: SurfaceTimeSeries?,
                      stageRivers: [String]? = nil) throws -> DistrictSurface {
        var elevation = try coarsened(dem, factor: max(1, factor))
        let w = elevation.width, h = elevation.height
        let size = abs(elevation.geoTransform.pixelWidth)
        func cells(in envelope: Envelope?, _ body: (Int, Int, Position) throws -> Void) rethrows {
            guard let e = envelope, let a = elevation.cell(containing: Position(x: e.minX, y: e.maxY)) ?? clampCell(elevation, e.minX, e.maxY),
                  let b = elevation.cell(containing: Position(x: e.maxX, y: e.minY)) ?? clampCell(elevation, e.maxX, e.minY) else { return }
            for r in min(a.row, b.row)...max(a.row, b.row) {
                for c in min(a.column, b.column)...max(a.column, b.column) {
                    try body(c, r, elevation.cellCenter(column: c, row: r))
                }
            }
        }
        var buildings: Grid?
        if size <= buildingBlockingCellSize {
            var mask = [Float](repeating: 0, count: w * h)
            for f in layers["buildings"] {
                guard let g = f.geometry else { continue }
                let prepared = try PreparedGeometry(g)
                try cells(in: g.envelope) { c, r, p in
                    if try prepared.contains(x: p.x, y: p.y) { mask[r * w + c] = 1 }
                }
            }
            buildings = try Grid(width: w, height: h, geoTransform: elevation.geoTransform, values: mask)
        }
        var manning = [Float](repeating: Float(streetManningN), count: w * h)
        for f in layers["land_use"] {
            guard let g = f.geometry, let n = f.number("manning_n"), n > 0 else { continue }
            let prepared = try PreparedGeometry(g)
            try cells(in: g.envelope) { c, r, p in
                if try prepared.contains(x: p.x, y: p.y) { manning[r * w + c] = Float(n) }
            }
        }
        var weights = [Float](repeating: 1, count: w * h)
        for f in layers["subcatchments"] {
            guard let g = f.geometry else { continue }
            let prepared = try PreparedGeometry(g)
            try cells(in: g.envelope) { c, r, p in
                if try prepared.contains(x: p.x, y: p.y) { weights[r * w + c] = 0 }
            }
        }
        var boundary = SurfaceBoundary(edges: .open)
        var water = [Float](repeating: 0, count: w * h)
        var river: [SurfaceCell] = []
        var seen = Set<Int>()
        var levees: [(crest: Double, line: Geometry, halfWidth: Double)] = []
        for f in layers["rivers"] {
            guard let g = f.geometry else { continue }
            let held = stageRivers.map { $0.contains(f.text("name") ?? "") } ?? true
            let halfWidth = max(size / 2, (f.number("width_m") ?? 20) / 2)
            let band = try g.buffer(distance: halfWidth)
            if let crest = f.number("levee_crest_m") { levees.append((crest, g, halfWidth)) }
            let prepared = try PreparedGeometry(band)
            try cells(in: band.envelope) { c, r, p in
                let i = r * w + c
                guard !seen.contains(i), try prepared.contains(x: p.x, y: p.y) else { return }
                seen.insert(i)
                water[i] = 1
                if held, elevation.isValid(elevation.values[i]), buildings?.values[i] ?? 0 == 0 { river.append(SurfaceCell(column: c, row: r)) }
            }
        }
        if let stage, !river.isEmpty { boundary.fixedLevels = [SurfaceBoundary.FixedLevel(cells: river, stage: stage)] }
        // Levees (堤防) raised to their crest (`levee_crest_m`, metres on the 1985 datum): every cell
        // in the ring one cell wide just outside a river's band that is not itself river is lifted
        // to at least the crest. A river held at its stage then stays in its channel unless the
        // stage overtops the crest; ground already above the crest (the hills upstream) is left as
        // it is. The ring is as wide as a cell, so no cell of the band has a face-neighbour (the 2D
        // scheme's faces are north, south, east and west) outside it. Documented simplification: a
        // levee follows the band's edge at the crest of its lowland reach (one crest per river),
        // with no breach, sluice or overtopping erosion.
        if !levees.isEmpty {
            var ground = elevation.values
            for levee in levees {
                let outer = try levee.line.buffer(distance: levee.halfWidth + size)
                let prepared = try PreparedGeometry(outer)
                try cells(in: outer.envelope) { c, r, p in
                    let i = r * w + c
                    guard water[i] == 0, elevation.isValid(ground[i]), try prepared.contains(x: p.x, y: p.y) else { return }
                    ground[i] = max(ground[i], Float(levee.crest))
                }
            }
            elevation = try Grid(width: w, height: h, geoTransform: elevation.geoTransform, noData: elevation.noData, values: ground)
        }
        let waterAreas = layers["lakes"] + layers["reservoirs"] + layers["land_use"].filter { $0.text("class") == "陆地水域" }
        for f in waterAreas {
            guard let g = f.geometry else { continue }
            let prepared = try PreparedGeometry(g)
            try cells(in: g.envelope) { c, r, p in
                if try prepared.contains(x: p.x, y: p.y) { water[r * w + c] = 1 }
            }
        }
        let roughness = try Grid(width: w, height: h, geoTransform: elevation.geoTransform, values: manning)
        let domain = try SurfaceDomain(elevation: elevation, roughness: .perCell(roughness, fallback: streetManningN),
                                       buildings: buildings, boundary: boundary)
        return DistrictSurface(domain: domain,
                               rainWeights: try Grid(width: w, height: h, geoTransform: elevation.geoTransform, values: weights),
                               permanentWater: try Grid(width: w, height: h, geoTransform: elevation.geoTransform, values: water),
                               factor: max(1, factor))
    }

    private static func clampCell(_ g: Grid, _ x: Double, _ y: Double) -> (column: Int, row: Int)? {
        guard let (c, r) = g.geoTransform.cellCoordinates(of: Position(x: x, y: y)) else { return nil }
        let column = min(g.width - 1, max(0, Int(c.rounded(.down)))), row = min(g.height - 1, max(0, Int(r.rounded(.down))))
        return (column, row)
    }

    /// The DEM coarsened by `factor`: each new cell is the mean of the valid cells of its block
    /// (no-data when the block has none); partial blocks at the east and south edges are dropped.
    static func coarsened(_ dem: Grid, factor: Int) throws -> Grid {
        guard factor > 1 else { return dem }
        let w = dem.width / factor, h = dem.height / factor
        guard w > 0, h > 0 else {
            throw ScenarioError(.invalidDistrict, "a \(dem.width) x \(dem.height) DEM cannot be coarsened by \(factor)")
        }
        let t = dem.geoTransform
        let transform = GeoTransform.northUp(west: t.originX, north: t.originY, cellWidth: t.pixelWidth * Double(factor),
                                             cellHeight: abs(t.pixelHeight) * Double(factor))
        let noData: Float = dem.noData ?? -9999
        return try Grid(width: w, height: h, geoTransform: transform, noData: noData) { c, r in
            var sum = 0.0, n = 0
            for rr in (r * factor)..<((r + 1) * factor) {
                for cc in (c * factor)..<((c + 1) * factor) {
                    let v = dem[column: cc, row: rr]
                    if dem.isValid(v) { sum += Double(v); n += 1 }
                }
            }
            return n > 0 ? Float(sum / Double(n)) : noData
        }
    }

    /// The surface cell of each manhole: the cell under it, or the nearest open cell within two
    /// cells when a building covers it; manholes off the grid are left unlinked. The manholes are the
    /// junctions and the pumping stations' wet wells (storage units that keep their manhole's rim, so
    /// they spill onto the street as the manhole did); the storage tanks, fed by weirs, are not linked.
    func links(for model: DistrictDrainageModel, network: HydraulicNetwork, coverArea: Double = 0.5) -> [CoupledFlood.Link] {
        var links: [CoupledFlood.Link] = []
        let g = domain.elevation
        for (i, node) in network.nodes.enumerated() {
            let isManhole: Bool
            switch node.kind {
            case .junction: isManhole = true
            case .storage: isManhole = model.rimElevation[node.id] != nil
            default: isManhole = false
            }
            guard isManhole, let p = model.nodePositions[node.id], let (c0, r0) = g.cell(containing: p) else { continue }
            var best: SurfaceCell?
            search: for radius in 0...2 {
                for dr in -radius...radius {
                    for dc in -radius...radius where max(abs(dr), abs(dc)) == radius {
                        let cell = SurfaceCell(column: c0 + dc, row: r0 + dr)
                        guard cell.column >= 0, cell.column < g.width, cell.row >= 0, cell.row < g.height else { continue }
                        if !domain.isBlocked(cell) { best = cell; break search }
                    }
                }
            }
            if let best { links.append(CoupledFlood.Link(node: i, cell: best, area: coverArea)) }
        }
        return links
    }
}
